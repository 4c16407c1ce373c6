import { columnJsonSchema, type JsonSchema } from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import type { Recovery } from './recovery';
import { MESSAGE, RETRY_AFTER, error, object, ok, text, validation, type RouteDocPart } from '../openapi';
import { REQUEST_ACCEPTED, TOKEN_REFUSED } from './email-routes';

/** The docs of the e-mail and recovery routes, by operation; `signedIn` is the security of a route any signed-in caller may use. */
export function recoveryDocs(
  core: AccountCore,
  recovery: Recovery,
  signedIn: RouteDocPart,
): Record<string, RouteDocPart> {
  const { users, passwords } = core;
  const column = (name: string): JsonSchema => {
    const info = users.info.columns.get(name);
    return info
      ? { ...columnJsonSchema(info), ...(info.maxLength !== undefined ? { maxLength: info.maxLength } : {}) }
      : {};
  };
  const redirectTo = text({
    description:
      'A same-origin path (`/x`; never `//x`, `/\\x`, a scheme or a host) the confirm answer echoes; anything else is dropped',
  });
  const factor: JsonSchema =
    recovery.factor === 'email'
      ? { ...column(recovery.column), format: 'email' }
      : text({
          description: 'International form: + and 7 to 15 digits (spaces, dashes, dots and brackets ignored)',
          maxLength: 32,
        });
  const token = text({ description: 'The `token` query parameter of the link', maxLength: 128 });
  const acceptedAnswer = ok(
    `Always this answer, whether or not an account matches; a message goes out only when one does (“${REQUEST_ACCEPTED}”)`,
    MESSAGE,
  );
  const limited = {
    ...error('Too many request-route calls from this address', 'Too many requests from this address; try again later'),
    headers: RETRY_AFTER,
  };
  const refused = error(
    'Unknown, expired or used token, or one the account has moved past (its password or address changed)',
    TOKEN_REFUSED,
  );
  const confirmedAnswer = (what: string) =>
    ok(
      what,
      object(
        {
          message: text(),
          redirect_to: text({ description: 'The redirect_to of the request, when it had a valid one' }),
        },
        ['message'],
      ),
    );
  const requestBody = object({ [recovery.factor]: factor, redirect_to: redirectTo }, [recovery.factor]);
  const request = (what: string): RouteDocPart => ({
    requestBody,
    responses: {
      '202': acceptedAnswer,
      '422': validation(`the ${recovery.factor} is missing, too long or malformed — ${what}`),
      '429': limited,
    },
  });

  return {
    verify_request: request('answered the same for every well-formed value'),
    verify_confirm: {
      requestBody: object({ token }, ['token']),
      responses: {
        '200': confirmedAnswer('The address is verified'),
        '400': refused,
        '422': validation('token missing or not a string'),
      },
    },
    reset_request: request('answered the same for every well-formed value'),
    reset_confirm: {
      requestBody: object(
        { token, new_password: text({ minLength: passwords.minLength, maxLength: passwords.maxLength }) },
        ['token', 'new_password'],
      ),
      responses: {
        '200': confirmedAnswer('The password is set; every session, refresh token and access token of the user ends'),
        '400': refused,
        '422': validation('a missing field, or a new password the policy refuses (the token stays usable)'),
        '429': error('Too many password hashes at once from this address', 'Too many requests; try again later'),
      },
    },
    change_request: {
      security: signedIn.security,
      securitySchemes: signedIn.securitySchemes,
      requestBody: object(
        {
          new_email: { ...column(users.columns.email ?? ''), format: 'email' },
          password: text({ description: 'The current password' }),
          redirect_to: redirectTo,
        },
        ['new_email', 'password'],
      ),
      responses: {
        '202': ok(
          'A link goes to the new address; when another account holds it (answered the same), its owner gets a notice without a link',
          MESSAGE,
        ),
        '400': error('The account has no password', 'This account has no usable password; use /set-password'),
        '401': error(
          'Not signed in, or the password is wrong (counts toward the lockout)',
          'Not authenticated',
          'Current password is incorrect',
        ),
        '403': error('A session request without the CSRF header', 'CSRF token missing or invalid'),
        '422': validation(
          'new_email missing, longer than its column, malformed or the current address; password missing',
        ),
        '429': limited,
      },
    },
    change_confirm: {
      requestBody: object({ token }, ['token']),
      responses: {
        '200': confirmedAnswer("The new address is the account's, verified; the old address is told"),
        '400': refused,
        '409': error('Another account took the address since', 'Email already registered'),
        '422': validation('token missing or not a string'),
      },
    },
  };
}

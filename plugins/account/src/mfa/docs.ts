import type { JsonSchema } from '@crudsmith/core';
import {
  CHALLENGE_ANSWER,
  RETRY_AFTER,
  MESSAGE,
  error,
  object,
  ok,
  text,
  validation,
  type RouteDocPart,
} from '../openapi';
import { BAD_CHALLENGE, NOT_A_SETUP } from './challenge-steps';
import { MFA_ALREADY_ENABLED, MFA_NOT_ENABLED, WRONG_CODE } from './two-factor';

const CODE = text({
  description: 'A 6-digit authenticator code, or a recovery code (xxxx-xxxx-xxxx); each is accepted once',
  maxLength: 64,
});
const CHALLENGE = text({ description: 'The challenge /login or /token answered', maxLength: 128 });
const RECOVERY_CODES: JsonSchema = {
  type: 'array',
  items: text(),
  minItems: 10,
  maxItems: 10,
  description: 'Single-use recovery codes: shown this once, stored only hashed',
};
const SETUP: JsonSchema = object(
  { secret: text({ description: 'Base32 TOTP secret (SHA-1, 6 digits, 30 s)' }), otpauth_uri: text({ format: 'uri' }) },
  ['secret', 'otpauth_uri'],
);

/**
 * The docs of the two-factor routes, and of /login and /token whose answer may be the
 * challenge object, built on the docs of the other routes (their security and errors).
 */
export function mfaDocs(docs: Record<string, RouteDocPart>): Record<string, RouteDocPart> {
  const secured = (unsafe: boolean) => {
    const source = unsafe ? docs.set_password : docs.me;
    return { security: source.security, securitySchemes: source.securitySchemes };
  };
  const notAuthenticated = docs.me.responses!['401'];
  const csrfRefused = error(
    'A session request with an unsafe verb lacks the matching X-CSRF-Token header',
    'CSRF token missing or invalid',
  );
  const wrongCode = error('A wrong, used or replayed code', WRONG_CODE);
  const authWrongCode = error(
    'Not signed in, or a wrong, used or replayed code',
    'Not authenticated',
    'Invalid or expired token',
    WRONG_CODE,
  );
  const codeLocked = {
    ...error(
      'Too many wrong codes for this account (the sign-in lockout policy)',
      'Too many wrong authentication codes; try again later',
    ),
    headers: RETRY_AFTER,
  };
  const recoveryCodes = object({ recovery_codes: RECOVERY_CODES }, ['recovery_codes']);
  const orChallenge = (doc: RouteDocPart | undefined): RouteDocPart | undefined => {
    const answer = doc?.responses?.['200'];
    if (!doc || !answer) return undefined;
    return {
      ...doc,
      responses: {
        ...doc.responses,
        '200': {
          ...answer,
          description: `${answer.description}; for an account with two-factor, the challenge object instead (no cookie, no token)`,
          schema: { oneOf: [answer.schema as JsonSchema, CHALLENGE_ANSWER] },
        },
      },
    };
  };
  const signIns = Object.fromEntries(
    ['login', 'token'].flatMap((name) => (orChallenge(docs[name]) ? [[name, orChallenge(docs[name])!]] : [])),
  );

  return {
    ...signIns,
    mfa_verify: {
      requestBody: object({ challenge: CHALLENGE, code: CODE }, ['challenge', 'code']),
      responses: {
        '200': ok(
          'The credential the sign-in started (session cookies and csrf_token, or tokens), plus recovery_codes after a required enrollment',
          {
            type: 'object',
            properties: {
              csrf_token: text(),
              access_token: text(),
              refresh_token: text(),
              token_type: text(),
              expires_in: { type: 'integer' },
              recovery_codes: RECOVERY_CODES,
            },
          },
        ),
        '400': error(
          'An unknown, used or expired challenge, one that took 5 wrong codes, or one the account moved past (a new password; two-factor turned on or off since)',
          BAD_CHALLENGE,
          MFA_ALREADY_ENABLED,
          MFA_NOT_ENABLED,
        ),
        '401': wrongCode,
        '403': error('A sign-in from a page of another site whose origin is not trusted', 'Cross-site sign-in refused'),
        '422': validation('challenge or code missing'),
        '429': codeLocked,
      },
    },
    mfa_challenge: {
      requestBody: object({ challenge: CHALLENGE }, ['challenge']),
      responses: {
        '200': ok(
          'The authenticator secret of a setup challenge',
          object({ setup: SETUP, expires_in: { type: 'integer' } }, ['setup', 'expires_in']),
        ),
        '400': error('An unknown, used or expired challenge, or one that is not a setup', BAD_CHALLENGE, NOT_A_SETUP),
        '422': validation('challenge missing'),
      },
    },
    mfa_status: {
      ...secured(false),
      responses: {
        '200': ok(
          'Two-factor state of the account',
          object(
            {
              enabled: { type: 'boolean' },
              required: { type: 'boolean' },
              recovery_codes_remaining: { type: 'integer' },
            },
            ['enabled', 'required', 'recovery_codes_remaining'],
          ),
        ),
        '401': notAuthenticated,
      },
    },
    mfa_totp_setup: {
      ...secured(true),
      requestBody: object(
        {
          password: text({
            description:
              'Required when the account has a password; an account without one sends {} and needs a recent sign-in',
          }),
        },
        [],
      ),
      responses: {
        '200': ok('A new secret, active once /mfa/totp/confirm gets its first code', SETUP),
        '400': error('Two-factor is on already', MFA_ALREADY_ENABLED),
        '401': error(
          'Not signed in, or a wrong password (counts toward the lockout)',
          'Not authenticated',
          'Invalid or expired token',
          'Password is incorrect',
        ),
        '403': error(
          'An account without a password whose sign-in is not recent, or a missing CSRF header',
          'Sign in again first: this needs a recent sign-in',
          'CSRF token missing or invalid',
        ),
        '422': validation('password missing'),
        '429': {
          ...error('Locked out after repeated wrong passwords', 'Too many failed sign-in attempts; try again later'),
          headers: RETRY_AFTER,
        },
      },
    },
    mfa_totp_confirm: {
      ...secured(true),
      requestBody: object({ code: CODE }, ['code']),
      responses: {
        '200': ok('Two-factor is on; the recovery codes, shown once', recoveryCodes),
        '400': error(
          'No setup in progress, or two-factor is on already',
          'No two-factor setup is in progress; start one with /mfa/totp/setup',
          MFA_ALREADY_ENABLED,
        ),
        '401': authWrongCode,
        '403': csrfRefused,
        '422': validation('code missing'),
        '429': codeLocked,
      },
    },
    mfa_totp_disable: {
      ...secured(true),
      requestBody: object({ code: CODE }, ['code']),
      responses: {
        '200': ok('Two-factor is off; the recovery codes are gone', MESSAGE),
        '400': error('Two-factor is not on', MFA_NOT_ENABLED),
        '401': authWrongCode,
        '403': error(
          'Two-factor is required for the account, or a missing CSRF header',
          'Two-factor authentication is required for this account',
          'CSRF token missing or invalid',
        ),
        '422': validation('code missing'),
        '429': codeLocked,
      },
    },
    mfa_recovery_codes_regenerate: {
      ...secured(true),
      requestBody: object({ code: CODE }, ['code']),
      responses: {
        '200': ok('New recovery codes, shown once; the old ones stop working', recoveryCodes),
        '400': error('Two-factor is not on', MFA_NOT_ENABLED),
        '401': authWrongCode,
        '403': csrfRefused,
        '422': validation('code missing'),
        '429': codeLocked,
      },
    },
  };
}

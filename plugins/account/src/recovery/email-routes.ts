import {
  BadRequestError,
  ValidationError,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import { bodyObject, stringFields } from '../body';
import { safeRedirect } from '../redirect-target';
import type { Recovery } from './recovery';
import { emailField, phoneField } from './recovery-input';
import { contextWords } from '../registration';
import { route } from '../route';

type Row = Record<string, unknown>;

/** The answer of every request route, whether or not an account matched. */
export const REQUEST_ACCEPTED = 'If an account matches, a message with a link is on its way';
export const TOKEN_REFUSED = 'Invalid, expired or already used token';

/** 202 with the one message: the same status and body for every address. */
export function accepted(): NeutralResult {
  return { status: 202, json: { message: REQUEST_ACCEPTED } };
}

/** The confirm answer: the message, and the `redirect_to` the token was issued with. */
export function confirmed(message: string, payload: Record<string, string>): NeutralResult {
  return { status: 200, json: { message, ...(payload.redirect_to ? { redirect_to: payload.redirect_to } : {}) } };
}

/** The `token` of a confirm body: 422 when missing or not a string. */
export function tokenField(req: NeutralRequest): string {
  return stringFields(req, ['token']).token;
}

/**
 * `/email/verify-request`, `/email/verify-confirm`, `/password/reset-request` and
 * `/password/reset-confirm`; their bodies name the factor (`email` or `phone`).
 */
export function emailRoutes(core: AccountCore, recovery: Recovery): RouteDescriptor[] {
  const { users } = core;
  const field = recovery.factor;
  const factorOf = (req: NeutralRequest) =>
    field === 'email' ? emailField(core, req, 'email', recovery.column) : phoneField(req);
  const routes: RouteDescriptor[] = [];

  // Request routes: check the input and the caller's limit, answer at once; the lookup,
  // the token and the message happen after the answer, so nothing about them shows in it.
  const requestRoute = (
    spec: { path: string; operation: string; summary: string },
    purpose: 'verify' | 'reset',
    wanted: (row: Row) => boolean,
  ) =>
    route({ method: 'POST', ...spec }, async (req) => {
      const value = factorOf(req);
      const redirect = safeRedirect(bodyObject(req).redirect_to);
      await recovery.limit(req);
      recovery.background(purpose, value, async () => {
        const row = await recovery.findByFactor(value);
        if (row && wanted(row))
          await recovery.sendToken(
            purpose,
            row,
            String(row[recovery.column]),
            redirect ? { redirect_to: redirect } : {},
          );
      });
      return accepted();
    });

  if (users.columns.isVerified) {
    const verified = users.columns.isVerified;
    routes.push(
      requestRoute(
        {
          path: '/email/verify-request',
          operation: 'verify_request',
          summary: `Mail a link that confirms the ${field === 'email' ? 'e-mail address' : 'phone number'}`,
        },
        'verify',
        (row) => !users.flag(row, verified),
      ),
      route(
        {
          method: 'POST',
          path: '/email/verify-confirm',
          operation: 'verify_confirm',
          summary: 'Confirm the address with the token of the link',
        },
        async (req) => {
          const found = await recovery.redeemable(tokenField(req), 'verify');
          if (!found || !(await recovery.tokens.consume(found.token, core.now())))
            throw new BadRequestError(TOKEN_REFUSED);
          // Only while the address is still the one the token was mailed to.
          const marked = await core.options
            .knex(users.info.table)
            .where(users.columns.id, users.idOf(found.row))
            .where(recovery.column, found.row[recovery.column] as string)
            .update({ [verified]: true });
          if (Number(marked) !== 1) throw new BadRequestError(TOKEN_REFUSED);
          return confirmed('Address verified', found.token.payload);
        },
      ),
    );
  }

  routes.push(
    requestRoute(
      { path: '/password/reset-request', operation: 'reset_request', summary: 'Mail a link that sets a new password' },
      'reset',
      () => true,
    ),
    route(
      {
        method: 'POST',
        path: '/password/reset-confirm',
        operation: 'reset_confirm',
        summary: 'Set a new password with the token of the link; signs out everywhere',
      },
      async (req) => {
        const { token, new_password } = stringFields(req, ['token', 'new_password']);
        const found = await recovery.redeemable(token, 'reset');
        if (!found) throw new BadRequestError(TOKEN_REFUSED);
        const { row } = found;
        // The policy before the token is used up: a refused password leaves the link working.
        const issues = core.passwords.check(
          new_password,
          ['body', 'new_password'],
          contextWords({
            username: row[users.columns.username],
            email: users.columns.email ? row[users.columns.email] : undefined,
          }),
        );
        if (issues.length > 0) throw new ValidationError(issues);
        const hash = await core.passwords.bounded(req.clientAddress, () => core.passwords.hash(new_password));
        if (!(await recovery.tokens.consume(found.token, core.now()))) throw new BadRequestError(TOKEN_REFUSED);
        const id = users.idOf(row);
        // Only over the password the token was issued for; token_version + 1 kills every access token.
        const old = row[users.columns.passwordHash];
        const query = core.options.knex(users.info.table).where(users.columns.id, id);
        if (old === null || old === undefined) query.whereNull(users.columns.passwordHash);
        else query.where(users.columns.passwordHash, old as string);
        const changed = await query.update({
          [users.columns.passwordHash]: hash,
          [users.columns.tokenVersion]: core.options.knex.raw('?? + 1', [users.columns.tokenVersion]),
        });
        if (Number(changed) !== 1) throw new BadRequestError(TOKEN_REFUSED);
        await core.signOutEverywhere(id);
        // Whoever holds the link controls the account's mail: a lock from guesses by others ends.
        await core.lockout.succeed(`user:${id}`);
        return confirmed('Password reset; sign in with the new password', found.token.payload);
      },
    ),
  );
  return routes;
}

import {
  BadRequestError,
  DuplicateValueError,
  UnauthorizedError,
  ValidationError,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AccountCore, Credential } from '../account-core';
import { bodyObject, stringFields } from '../body';
import { credentialDependency } from '../dependencies';
import { safeRedirect } from '../redirect-target';
import type { Recovery } from './recovery';
import { emailField } from './recovery-input';
import { foldIdentifier } from '../users';
import { TOKEN_REFUSED, accepted, confirmed, tokenField } from './email-routes';
import { route } from '../route';

/**
 * `/email/change-request` (signed in, with the current password) and
 * `/email/change-confirm` (the token mailed to the new address): the new address
 * applies, verified, once its owner confirms it; the old address is told.
 */
export function emailChangeRoutes(core: AccountCore, recovery: Recovery, email: string): RouteDescriptor[] {
  const { users } = core;
  const authenticated = credentialDependency(core, { optional: false });
  return [
    route(
      {
        method: 'POST',
        path: '/email/change-request',
        operation: 'change_request',
        summary: "Mail a link to a new address that makes it the account's",
        dependencies: [authenticated],
      },
      async (req) => {
        const credential = (await req.resolve(authenticated)) as Credential;
        const { row } = credential;
        const wanted = emailField(core, req, 'new_email', email);
        const { password } = stringFields(req, ['password']);
        const redirect = safeRedirect(bodyObject(req).redirect_to);
        if (foldIdentifier(wanted) === foldIdentifier(String(row[email] ?? '')))
          throw ValidationError.of(['body', 'new_email'], "This is already the account's address", 'value_error');
        if (!row[users.columns.passwordHash])
          throw new BadRequestError('This account has no usable password; use /set-password');
        await recovery.limit(req);
        // The same check and lockout as sign-in: a stolen session cannot move the account's mail.
        await core.signIn('', password, { row, client: req.clientAddress }).catch((error: unknown) => {
          throw error instanceof UnauthorizedError ? new UnauthorizedError('Current password is incorrect') : error;
        });
        // A taken address is answered as a free one and gets no link, only a notice to its
        // owner: nothing tells the caller who holds it.
        recovery.background('change', wanted, async () => {
          const holder = await users.findForLogin(wanted);
          if (holder && users.idOf(holder) !== users.idOf(row))
            return recovery.sendNotice('taken', holder, String(holder[email]), wanted);
          if (await users.taken(email, wanted, users.idOf(row))) return;
          await recovery.sendToken('change', row, wanted, {
            email: wanted,
            ...(redirect ? { redirect_to: redirect } : {}),
          });
        });
        return accepted();
      },
    ),

    route(
      {
        method: 'POST',
        path: '/email/change-confirm',
        operation: 'change_confirm',
        summary: 'Apply the new address with the token of the link',
      },
      async (req) => {
        const found = await recovery.redeemable(tokenField(req), 'change');
        if (!found) throw new BadRequestError(TOKEN_REFUSED);
        const { row, token } = found;
        const id = users.idOf(row);
        const wanted = token.payload.email;
        if (await users.taken(email, wanted, id)) throw new DuplicateValueError('Email already registered');
        if (!(await recovery.tokens.consume(token, core.now()))) throw new BadRequestError(TOKEN_REFUSED);
        const old = String(row[email]);
        const values: Record<string, unknown> = { [email]: wanted };
        if (users.columns.isVerified) values[users.columns.isVerified] = true;
        // Only over the address the token was issued for; the unique index refuses a race for the new one (409).
        const changed = await core.options
          .knex(users.info.table)
          .where(users.columns.id, id)
          .where(email, old)
          .update(values);
        if (Number(changed) !== 1) throw new BadRequestError(TOKEN_REFUSED);
        recovery.background('changed', old, () => recovery.sendNotice('changed', row, old, wanted));
        return confirmed('Address changed', token.payload);
      },
    ),
  ];
}

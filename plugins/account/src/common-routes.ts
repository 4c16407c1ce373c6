import {
  BadRequestError,
  RateLimitError,
  UnauthorizedError,
  ValidationError,
  type RouteDescriptor,
  type ValidationIssue,
} from '@crudsmith/core';
import { hashSecret } from '@crudsmith/core/auth';
import type { AccountCore, Credential } from './account-core';
import { bodyObject, stringFields } from './body';
import { credentialDependency } from './dependencies';
import { assertFreshSignIn } from './fresh-sign-in';
import { contextWords, createUser } from './registration';
import { route } from './route';

/** `/register`, `/me`, `/set-password`, `/change-password`: mounted with any transport. */
export function commonRoutes(core: AccountCore, registerFields: string[]): RouteDescriptor[] {
  const authenticated = credentialDependency(core, { optional: false });
  const anyCaller = credentialDependency(core, { optional: false, apiKey: true });
  const allowed = new Set(['username', 'email', 'password', ...registerFields]);
  if (!core.users.columns.email) allowed.delete('email');

  return [
    route({ method: 'POST', path: '/register', operation: 'register', summary: 'Create an account' }, async (req) => {
      const limit = core.options.registerRateLimit;
      if (limit) {
        const key = `reg:${hashSecret(req.clientAddress).slice(0, 32)}`;
        const { count, retryAfter } = await core.lockout.hit(key, limit.periodSeconds * 1000, core.now());
        if (count > limit.limit)
          throw new RateLimitError('Too many registrations from this address; try again later', { retryAfter });
      }
      const body = bodyObject(req);
      // The allow-list: anything else (is_superuser, a verified flag, token_version...) is refused, not ignored.
      const extra: ValidationIssue[] = Object.keys(body)
        .filter((key) => !allowed.has(key))
        .map((key) => ({ loc: ['body', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
      if (extra.length > 0) throw new ValidationError(extra);
      const user = await createUser(core, body as never, {}, req.clientAddress);
      const { columns } = core.users;
      const json: Record<string, unknown> = { id: user.id, username: user[columns.username] };
      if (columns.email) json.email = user[columns.email];
      for (const field of registerFields) if (field !== 'password' && field in user) json[field] = user[field];
      return { status: 201, json };
    }),

    route(
      {
        method: 'GET',
        path: '/me',
        operation: 'me',
        summary: 'The signed-in principal',
        dependencies: [anyCaller],
      },
      async (req) => {
        const credential = (await req.resolve(anyCaller)) as Credential;
        return {
          status: 200,
          json: { id: core.users.idOf(credential.row), scopes: credential.scopes, transport: credential.transport },
        };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/set-password',
        operation: 'set_password',
        summary: 'Set a first password (accounts without one)',
        dependencies: [authenticated],
      },
      async (req) => {
        const credential = (await req.resolve(authenticated)) as Credential;
        const { users } = core;
        if (credential.row[users.columns.passwordHash])
          throw new BadRequestError('This account already has a password; use /change-password');
        assertFreshSignIn(core, credential);
        const { new_password } = stringFields(req, ['new_password']);
        const issues = core.passwords.check(new_password, ['body', 'new_password'], contextOf(core, credential));
        if (issues.length > 0) throw new ValidationError(issues);
        const hash = await core.passwords.bounded(req.clientAddress, () => core.passwords.hash(new_password));
        await users.setPasswordHash(users.idOf(credential.row), hash, false);
        return { status: 200, json: { message: 'Password set' } };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/change-password',
        operation: 'change_password',
        summary: 'Change a known password',
        dependencies: [authenticated],
      },
      async (req) => {
        const credential = (await req.resolve(authenticated)) as Credential;
        const { users } = core;
        if (!credential.row[users.columns.passwordHash])
          throw new BadRequestError('This account has no usable password; use /set-password');
        const { current_password, new_password } = stringFields(req, ['current_password', 'new_password']);
        // Same lockout as sign-in: a stolen session cannot guess the password freely.
        await core
          .signIn('', current_password, { row: credential.row, client: req.clientAddress })
          .catch((error: unknown) => {
            throw error instanceof UnauthorizedError ? new UnauthorizedError('Current password is incorrect') : error;
          });
        const issues = core.passwords.check(new_password, ['body', 'new_password'], contextOf(core, credential));
        if (issues.length > 0) throw new ValidationError(issues);
        const id = users.idOf(credential.row);
        // token_version + 1: every access token dies; other sessions and every refresh token too.
        await users.setPasswordHash(
          id,
          await core.passwords.bounded(req.clientAddress, () => core.passwords.hash(new_password)),
          true,
        );
        await core.signOutEverywhere(id, { keep: credential.session });
        return { status: 200, json: { message: 'Password changed' } };
      },
    ),
  ];
}

function contextOf(core: AccountCore, credential: Credential): string[] {
  const { columns } = core.users;
  return contextWords({
    username: credential.row[columns.username],
    email: columns.email ? credential.row[columns.email] : undefined,
  });
}

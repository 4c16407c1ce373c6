import { NotFoundError, ValidationError, type RouteDescriptor } from '@crudsmith/core';
import type { OperatorApiKeys } from '@crudsmith/core/auth';
import { inTransaction, takesTransaction } from '../app-transaction';
import { layoutLocals, translate, type AdminContext } from '../context';
import { guarded } from '../guard';
import { messageError } from '../i18n/message-error';
import { html, seeOther } from '../page';
import { render } from '../templates';

// An app user's id as typed in the form: letters, digits, `-` and `_` (integer and UUID keys).
const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

function userIdOf(raw: unknown): string {
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (typeof value !== 'string' || !USER_ID.test(value))
    throw ValidationError.of(['query', 'user'], 'A user id: letters, digits, - or _', 'string_pattern_mismatch');
  return value;
}

const iso = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString());

/**
 * `{mount}/management/api-keys/?user=<id>` (admin users with full access, the `apiKeys`
 * option): an app user's live API keys with when each was made, expires and was last
 * used, and a button that revokes one, an `api_key_revoked` event naming the admin.
 */
export function apiKeyRoutes(ctx: AdminContext, keys: OperatorApiKeys | undefined): RouteDescriptor[] {
  if (!keys) return [];
  const base = `${ctx.mount}/management/api-keys`;
  return [
    guarded(
      ctx,
      { method: 'GET', path: `${base}/`, operation: 'admin_management_api_keys', fullAccess: true },
      async (req, principal) => {
        const given = req.query.user !== undefined && req.query.user !== '';
        const user = given ? userIdOf(req.query.user) : null;
        const listed = user === null ? [] : await keys.list(user);
        return html(
          200,
          render('management-api-keys', {
            ...layoutLocals(ctx, req, principal, translate(ctx, req)('apiKeys.title')),
            base,
            user,
            keys: listed.map((k) => ({
              ...k,
              scopes: k.scopes.join(' '),
              createdAt: iso(k.createdAt),
              expiresAt: iso(k.expiresAt),
              lastUsedAt: iso(k.lastUsedAt),
            })),
          }),
        );
      },
    ),
    guarded(
      ctx,
      {
        method: 'POST',
        path: `${base}/:user/:key/revoke`,
        operation: 'admin_management_api_keys_revoke',
        fullAccess: true,
      },
      async (req, principal) => {
        const user = userIdOf(req.params.user);
        const keyId = /^\d{1,9}$/.test(req.params.key) ? Number(req.params.key) : NaN;
        if (!Number.isSafeInteger(keyId))
          throw messageError((english) => new NotFoundError(english), 'error.apiKeyNotFound');
        // The revocation and its event in one transaction: both are kept or neither.
        await inTransaction(ctx, takesTransaction(keys.revoke, 2), async (trx, events) => {
          const revoked = await keys.revoke(user, keyId, trx);
          if (!revoked) throw messageError((english) => new NotFoundError(english), 'error.apiKeyNotFound');
          await events.record(req, principal, [
            {
              type: 'api_key_revoked',
              model: 'api_keys',
              recordId: revoked.id,
              details: { user_id: user, name: revoked.name, prefix: revoked.prefix },
            },
          ]);
        });
        return seeOther(req, `${base}/?${new URLSearchParams({ user })}`);
      },
    ),
  ];
}

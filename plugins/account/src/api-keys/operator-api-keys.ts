import type { OperatorApiKeys as KeyOperator } from '@crudsmith/core/auth';
import type { AccountCore } from '../account-core';
import type { ApiKey, ApiKeys } from '../api-key-store';

/** Any user's API keys, for an operator's tool (the admin): core's contract, answering the stored keys. */
export type OperatorApiKeys = KeyOperator<ApiKey>;

/** The operator's view of the key table. */
export function operatorApiKeys(core: AccountCore, keys: ApiKeys): OperatorApiKeys {
  return {
    async list(userId) {
      const row = await core.users.findById(userId);
      if (!row) return [];
      const now = core.now();
      const live = await keys.list(userId, core.users.tokenVersionOf(row));
      return live.filter((key) => key.expiresAt === null || key.expiresAt > now);
    },
    revoke: (userId, keyId, trx) => keys.revoke(userId, keyId, core.now(), trx),
  };
}

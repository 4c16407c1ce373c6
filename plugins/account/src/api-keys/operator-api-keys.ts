import type { AccountCore } from '../account-core';
import type { ApiKey, ApiKeys } from '../api-key-store';

/** Any user's API keys, for an operator's tool (the admin): listed and revoked by owner. */
export interface OperatorApiKeys {
  /** The user's live keys (unrevoked, unexpired, of their current token version), newest first. */
  list(userId: string): Promise<ApiKey[]>;
  /** Revokes one of the user's keys; answers it, or null when the user has no such live key. */
  revoke(userId: string, keyId: number): Promise<ApiKey | null>;
}

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
    revoke: (userId, keyId) => keys.revoke(userId, keyId, core.now()),
  };
}

// The API key contract two plugins speak without importing each other: the account plugin
// tells key events and lists any user's keys, the admin records those events and shows the
// keys. One declaration here, so the two cannot drift apart.
import type { Knex } from 'knex';

/** An API key made, revoked or used for the first time, as the account plugin tells it (`onApiKeyEvent`); never the secret. */
export interface ApiKeyEvent {
  type: 'api_key_created' | 'api_key_revoked' | 'api_key_first_used';
  userId: string;
  keyId: number;
  /** The key's name and prefix (`csk_<lookup>`), when the key was found (creation always). */
  name?: string;
  prefix?: string;
  ipAddress: string;
  at: Date;
}

/** An app user's API key as an operator's tool lists it (never its secret). */
export interface ListedApiKey {
  id: number;
  name: string;
  /** `<prefix>_<lookup>`: what tells keys apart. */
  prefix: string;
  scopes: readonly string[];
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

/** Any user's API keys for an operator's tool (the admin): listed and revoked by owner. */
export interface OperatorApiKeys<Key extends ListedApiKey = ListedApiKey> {
  /** The user's live keys (unrevoked, unexpired, of their current token version), newest first. */
  list(userId: string): Promise<Key[]>;
  /**
   * Revokes one of the user's live keys; answers it, or null when the user has no such key.
   * In `trx` when given, so the revocation commits with the caller's record of it.
   */
  revoke(userId: string, keyId: number, trx?: Knex.Transaction): Promise<Key | null>;
}

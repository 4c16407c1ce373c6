import type { EventLog } from './event-log';

/** An app user's API key as the admin lists it (never its secret). */
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

/** The app users' API keys, as the admin lists and revokes them (the account plugin's `apiKeys`). */
export interface AdminApiKeys {
  /** A user's live keys, newest first. */
  list(userId: string): Promise<readonly ListedApiKey[]>;
  /** Revokes one of a user's live keys; null when the user has no such key. */
  revoke(userId: string, keyId: number): Promise<ListedApiKey | null>;
}

/** An API key event as the account plugin reports it (its `onApiKeyEvent`). */
export interface ApiKeyEventInput {
  type: 'api_key_created' | 'api_key_revoked' | 'api_key_first_used';
  userId: string;
  keyId: number;
  name?: string;
  prefix?: string;
  ipAddress: string;
  at: Date;
}

/**
 * Writes an API key event, made or used through the API, to the admin's event log: the
 * key's id as the record, its owner, name and prefix as details (never the secret).
 */
export async function recordApiKeyEvent(events: EventLog, event: ApiKeyEventInput): Promise<void> {
  await events.recordFrom({ ipAddress: event.ipAddress }, null, [
    {
      type: event.type,
      model: 'api_keys',
      recordId: event.keyId,
      details: { user_id: event.userId, name: event.name, prefix: event.prefix },
    },
  ]);
}

import type { NeutralRequest } from '@crudsmith/core';
import type { CredentialResult } from './credential';
import type { UserTable } from './users';
import type { ApiKeys } from './api-key-store';
import { notifyApiKeyEvent, type KeyEventContext } from './api-key-events';

/** What reading a key needs of the core (which calls it); its first use is told to the app's hook. */
interface KeyContext extends KeyEventContext {
  users: UserTable;
  scopesOf(row: Record<string, unknown>): string[];
}

/** The API key a request presents: in `X-API-Key`, or as a bearer token with the keys' prefix; null when none. */
export function presentedKey(keys: ApiKeys, req: NeutralRequest): string | null {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  const bearer = /^bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  return bearer && keys.looksLikeKey(bearer[1]) ? bearer[1] : null;
}

/**
 * The credential of a presented key: one indexed read for the key, one for its owner. A key
 * made before the owner's last password change (or sign-out everywhere), or of a deleted
 * owner, is dead: 401 like an unknown one. Scopes are the owner's narrowed to the key's.
 * A key's first use is told to `onApiKeyEvent`.
 */
export async function apiKeyCredential(
  core: KeyContext,
  keys: ApiKeys,
  presented: string,
  ipAddress: string,
): Promise<CredentialResult> {
  const now = core.now();
  const key = await keys.find(presented, now);
  const row = key ? await core.users.findById(key.userId) : null;
  if (!key || !row || core.users.tokenVersionOf(row) !== key.tokenVersion)
    return { credential: null, invalidToken: true };
  if (await keys.touch(key, now)) await notifyApiKeyEvent(core, 'api_key_first_used', key, ipAddress);
  const scopes = core.scopesOf(row).filter((s) => key.scopes.includes(s));
  return {
    credential: {
      row,
      transport: 'api-key',
      scopes,
      session: null,
      claims: null,
      authTime: 0,
      csrfOk: true,
      apiKey: key,
    },
    invalidToken: false,
  };
}

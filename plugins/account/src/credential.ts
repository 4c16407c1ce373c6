import type { Session } from '@crudsmith/core/auth';
import type { ApiKey } from './api-key-store';

type Row = Record<string, unknown>;

/** Who is calling and how, once the credential was checked. */
export interface Credential {
  /** The full user row (password hash included): internal, never answered. */
  row: Row;
  transport: 'session' | 'bearer' | 'api-key';
  scopes: string[];
  /** The key the caller authenticated with (transport `api-key`): its scopes narrow the owner's permissions. */
  apiKey?: ApiKey;
  session: Session | null;
  /** The access token's claims (bearer transport): sudo reads its `sudo_until`, in seconds. */
  claims: { sudo_until?: number } | null;
  /** When the user last entered a password, ms. */
  authTime: number;
  /** Whether the request may use the credential for an unsafe verb (CSRF passed or not needed). */
  csrfOk: boolean;
}

/** The credential, or why there is none that counts. */
export interface CredentialResult {
  credential: Credential | null;
  /** A bearer token was presented and is not valid: 401 even where sign-in is optional. */
  invalidToken: boolean;
}

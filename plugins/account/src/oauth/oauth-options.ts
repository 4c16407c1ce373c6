/** One OpenID Connect provider: found by issuer discovery, signed in with by authorization code + PKCE. */
export interface OidcProviderOptions {
  /** The issuer URL (`https://accounts.example.com`); `http` only on a loopback address (development, tests). */
  issuer: string;
  clientId: string;
  /** Sent with client_secret_basic; leave it out for a public client (PKCE alone). */
  clientSecret?: string;
  /** Scopes asked for (default `openid email profile`). */
  scope?: string;
  /** Longest wait for the provider's discovery and token endpoints, in seconds (default 10). */
  timeoutSeconds?: number;
}

/** Why an OpenID Connect sign-in ended without a session: the short code its redirect (or 400) carries. */
export type OAuthErrorCode =
  | 'invalid_state'
  | 'access_denied'
  | 'provider_error'
  | 'email_missing'
  | 'email_unsupported'
  | 'email_unverified'
  | 'account_unverified'
  | 'identity_conflict'
  | 'account_deleted';

/** A failed sign-in, answered as a redirect with `?error=<code>` (or a 400 in JSON mode). */
export class OAuthFlowError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    /** Where the flow asked to land; the error is sent there. */
    readonly redirectTo = '/',
  ) {
    super(`OAuth sign-in failed: ${code}`);
  }
}

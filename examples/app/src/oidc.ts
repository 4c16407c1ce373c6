import type { AccountOptions } from '@crudsmith/account';

/** The example's OpenID Connect provider `oidc`: on when its three settings are set. */
export interface OidcSettings {
  /** OAUTH_OIDC_ISSUER: the issuer URL (https; http only on a loopback address). */
  issuer: string;
  /** OAUTH_OIDC_CLIENT_ID. */
  clientId: string;
  /** OAUTH_OIDC_CLIENT_SECRET. */
  clientSecret: string;
}

/** The provider's settings, or undefined when any of the three is unset. */
export function readOidcSettings(env: NodeJS.ProcessEnv): OidcSettings | undefined {
  const { OAUTH_OIDC_ISSUER: issuer, OAUTH_OIDC_CLIENT_ID: clientId, OAUTH_OIDC_CLIENT_SECRET: clientSecret } = env;
  return issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : undefined;
}

/** The account options of the `oidc` provider: sign-in at /auth/oauth/oidc/authorize, the provider sending browsers back to PUBLIC_URL. */
export function exampleOauth(
  oidc: OidcSettings | undefined,
  publicUrl: string,
): Pick<AccountOptions, 'oauthProviders' | 'redirectBaseUrl'> {
  return oidc ? { oauthProviders: { oidc }, redirectBaseUrl: publicUrl } : {};
}

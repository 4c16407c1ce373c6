import { ConfigurationError } from '@crudsmith/core';
import * as oidc from 'openid-client';
import type { OidcProviderOptions } from './oauth-options';

/** What a provider says about who signed in, from its ID token. */
export interface ProviderIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  preferredUsername: string | null;
  name: string | null;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** Longest subject the identity table holds. */
const SUBJECT_MAX = 255;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * One OpenID Connect provider through openid-client: discovery once (again after a
 * failure), the authorization URL with PKCE S256, `state` and `nonce`, and the code
 * exchange that checks all three and the ID token's signature.
 */
export class OidcProvider {
  private config?: Promise<oidc.Configuration>;
  private readonly issuer: URL;

  constructor(
    readonly name: string,
    private readonly options: OidcProviderOptions,
    /** Where the provider sends the browser back. */
    readonly redirectUri: string,
  ) {
    this.issuer = new URL(options.issuer);
    const loopback = LOOPBACK.has(this.issuer.hostname);
    if (this.issuer.protocol !== 'https:' && !(this.issuer.protocol === 'http:' && loopback)) {
      throw new ConfigurationError(
        `account: the issuer of OAuth provider '${name}' must be https (http only on a loopback address)`,
      );
    }
  }

  /** The authorization URL the browser is sent to. */
  async authorizationUrl(flow: { state: string; nonce: string; codeVerifier: string }): Promise<string> {
    const config = await this.configuration();
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: this.redirectUri,
        scope: this.options.scope ?? 'openid email profile',
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      })
      .toString();
  }

  /** Trades the callback's code for tokens (checking state, nonce and PKCE) and answers the ID token's identity. */
  async identity(
    callbackQuery: URLSearchParams,
    flow: { state: string; nonce: string; codeVerifier: string },
  ): Promise<ProviderIdentity> {
    const config = await this.configuration();
    const current = new URL(this.redirectUri);
    current.search = callbackQuery.toString();
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the provider answered no ID token');
    const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
    // The subject is stored and looked up as it is: one the identity table cannot hold,
    // or an e-mail with a control character (NUL...), is a provider fault, not ours.
    if (claims.sub.length > SUBJECT_MAX || CONTROL.test(claims.sub))
      throw new Error('the provider answered an unusable subject');
    if (typeof claims.email === 'string' && CONTROL.test(claims.email))
      throw new Error('the provider answered an unusable e-mail address');
    // A name or preferred username with a control character is left out: both are optional.
    const label = (value: unknown) => (typeof value === 'string' && !CONTROL.test(value) ? text(value) : null);
    return {
      subject: claims.sub,
      email: text(claims.email),
      emailVerified: claims.email_verified === true,
      preferredUsername: label(claims.preferred_username),
      name: label(claims.name),
    };
  }

  private configuration(): Promise<oidc.Configuration> {
    this.config ??= oidc
      .discovery(
        this.issuer,
        this.options.clientId,
        undefined,
        this.options.clientSecret ? oidc.ClientSecretBasic(this.options.clientSecret) : oidc.None(),
        {
          execute: this.issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
          timeout: this.options.timeoutSeconds ?? 10,
        },
      )
      .catch((error: unknown) => {
        // Not kept: the next sign-in tries the discovery again.
        this.config = undefined;
        throw error;
      });
    return this.config;
  }
}

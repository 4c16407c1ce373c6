import type { CookieToSet, NeutralRequest } from '@crudsmith/core';
import type { AccountCore, AccountTransports, BearerSettings, BearerSide, CredentialResult } from '../account-core';
import { clearCookie, cookie } from '../cookies';
import type { BearerTransportOptions } from '../options';
import { AccessTokens, deriveKey } from './access-token';
import { RefreshTokens } from './refresh-tokens';

type Row = Record<string, unknown>;

/**
 * The bearer transport of `options.bearer` (null when it is off), and the refresh-token
 * revocation the core runs at sign-out everywhere either way (the table always exists).
 */
export function bearerTransport(
  option: BearerTransportOptions | boolean | undefined,
): Pick<AccountTransports<BearerTransport>, 'bearer' | 'revokeRefreshTokens'> {
  return {
    bearer: option ? (core) => new BearerTransport(core, option === true ? {} : option) : null,
    revokeRefreshTokens: (core) => {
      const tokens = refreshTokensOf(core, 0);
      return (userId, now, db) => tokens.revokeUser(userId, now, db);
    },
  };
}

function refreshTokensOf(core: AccountCore, lifetimeMs: number): RefreshTokens {
  return new RefreshTokens(core.options.knex, core.tables.refreshTokens, lifetimeMs);
}

/** Access tokens (signed, short) and rotating refresh tokens: issuing them, their cookie, and reading the Authorization header. */
export class BearerTransport implements BearerSide {
  readonly accessSeconds: number;
  readonly refresh: BearerSettings['refresh'];
  readonly refreshSeconds: number;
  readonly refreshCookie: string;
  readonly refreshTokens: RefreshTokens;
  readonly accessTokens: AccessTokens;

  constructor(
    private readonly core: AccountCore,
    given: BearerTransportOptions,
  ) {
    this.accessSeconds = given.accessTokenSeconds ?? 900;
    this.refresh = given.refresh ?? 'body';
    this.refreshSeconds = given.refreshTokenSeconds ?? 30 * 86_400;
    this.refreshCookie = given.refreshCookieName ?? `${core.secure ? '__Host-' : ''}cs_refresh`;
    this.refreshTokens = refreshTokensOf(core, this.refreshSeconds * 1000);
    let key: Promise<Buffer> | undefined;
    this.accessTokens = new AccessTokens(
      () => (key ??= core.secret().then((value) => deriveKey(value, 'access-token'))),
    );
  }

  /** Signs an access token for a user. */
  async accessToken(row: Row, grant: { scope: string; authTime: number; sudoUntil?: number }): Promise<string> {
    const { users } = this.core;
    const seconds = Math.floor(this.core.now() / 1000);
    return this.accessTokens.sign({
      sub: String(users.idOf(row)),
      token_version: users.tokenVersionOf(row),
      scope: grant.scope,
      iat: seconds,
      exp: seconds + this.accessSeconds,
      auth_time: Math.floor(grant.authTime / 1000),
      ...(grant.sudoUntil ? { sudo_until: Math.floor(grant.sudoUntil / 1000) } : {}),
    });
  }

  /** The token answer: the access token, and the refresh token in the body or its cookie. */
  tokenAnswer(access: string, refresh: string | null): { json: Record<string, unknown>; cookies: CookieToSet[] } {
    const json: Record<string, unknown> = {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.accessSeconds,
    };
    const cookies: CookieToSet[] = [];
    if (refresh !== null && this.refresh === 'body') json.refresh_token = refresh;
    if (refresh !== null && this.refresh === 'cookie') {
      cookies.push(
        cookie(this.refreshCookie, refresh, { secure: this.core.secure, httpOnly: true, maxAge: this.refreshSeconds }),
      );
    }
    return { json, cookies };
  }

  /** Issues an access token, and a new refresh-token family unless refresh is off. */
  async issueTokens(
    row: Row,
    grant: { scope: string; authTime: number },
  ): Promise<{ json: Record<string, unknown>; cookies: CookieToSet[] }> {
    const { users } = this.core;
    const access = await this.accessToken(row, grant);
    let refresh: string | null = null;
    if (this.refresh !== 'none') {
      const userId = String(users.idOf(row));
      ({ token: refresh } = await this.refreshTokens.issue(
        { userId, scope: grant.scope, tokenVersion: users.tokenVersionOf(row), authTime: grant.authTime },
        this.core.now(),
      ));
    }
    return this.tokenAnswer(access, refresh);
  }

  /** The cookie clearing the refresh cookie (refresh mode `cookie`), else none. */
  signOutCookies(): CookieToSet[] {
    return this.refresh === 'cookie'
      ? [clearCookie(this.refreshCookie, { secure: this.core.secure, httpOnly: true })]
      : [];
  }

  /** Revokes the refresh-token family named by the request's refresh cookie, if any. */
  async revokeRefreshCookie(cookies: Record<string, string>): Promise<void> {
    const token = this.refresh === 'cookie' ? cookies[this.refreshCookie] : undefined;
    if (!token) return;
    const family = await this.refreshTokens.familyOf(token);
    if (family) await this.refreshTokens.revokeFamily(family, this.core.now());
  }

  /** The credential of the request's Authorization header. */
  async read(req: NeutralRequest): Promise<CredentialResult> {
    const { core } = this;
    // RFC 7235: the auth-scheme is case-insensitive.
    const match = /^bearer +([A-Za-z0-9_.~+/=-]+) *$/i.exec(req.headers.authorization ?? '');
    const claims = match ? await this.accessTokens.verify(match[1], Math.floor(core.now() / 1000)) : null;
    const row = claims ? await core.users.findById(claims.sub) : null;
    // A token minted before the last password change (or for a deleted user) is dead.
    if (!claims || !row || core.users.tokenVersionOf(row) !== claims.token_version)
      return { credential: null, invalidToken: true };
    const held = core.scopesOf(row);
    const scopes = claims.scope.split(' ').filter((s) => s && held.includes(s));
    return {
      credential: {
        row,
        transport: 'bearer',
        scopes,
        session: null,
        claims,
        authTime: claims.auth_time * 1000,
        csrfOk: true,
      },
      invalidToken: false,
    };
  }
}

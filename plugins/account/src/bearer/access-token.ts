import { createHmac } from 'node:crypto';
import { randomToken, safeEqual } from '@crudsmith/core/auth';

/** What an access token says. Standard JWT claim names, plus the user's token_version. */
export interface AccessClaims {
  sub: string;
  token_version: number;
  /** Space-separated scopes. */
  scope: string;
  iat: number;
  exp: number;
  /** When the user last entered a password (seconds), for fresh sign-in checks. */
  auth_time: number;
  /** Until when a sudo elevation holds (seconds), when one was granted. */
  sudo_until?: number;
  jti: string;
  typ: 'access';
}

// One fixed header: a token naming another algorithm (`none`, RS256...) is refused by
// comparison, never interpreted.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * Signs and verifies access tokens: compact JWTs (HS256) made with node:crypto, so any
 * JWT tool can read them, and only a holder of the key can make one.
 */
export class AccessTokens {
  constructor(private readonly key: () => Promise<Buffer>) {}

  async sign(claims: Omit<AccessClaims, 'jti' | 'typ'>): Promise<string> {
    const payload = Buffer.from(JSON.stringify({ ...claims, jti: randomToken(12), typ: 'access' })).toString(
      'base64url',
    );
    return `${HEADER}.${payload}.${await this.signature(`${HEADER}.${payload}`)}`;
  }

  /** The claims of a valid, unexpired token; null for anything else. */
  async verify(token: string, nowSeconds: number): Promise<AccessClaims | null> {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER || token.length > 4096) return null;
    if (!safeEqual(parts[2], await this.signature(`${parts[0]}.${parts[1]}`))) return null;
    let claims: AccessClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as AccessClaims;
    } catch {
      return null;
    }
    if (claims?.typ !== 'access' || typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return null;
    if (typeof claims.token_version !== 'number' || claims.exp <= nowSeconds) return null;
    return claims;
  }

  private async signature(input: string): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(input)
      .digest('base64url');
  }
}

/** Derives a purpose-bound key from the app's secret, so one secret serves several uses apart. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`crudsmith/account/${purpose}`).digest();
}

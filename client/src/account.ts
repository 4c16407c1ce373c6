import { BearerAuth, SessionAuth, type TokenPair } from './auth';
import type { CallOptions, HttpClient } from './http';

/** An account with two-factor answers a challenge instead of signing in: pass it to `verifyMfa`. */
export interface MfaChallenge {
  mfa_required: true;
  challenge: string;
  expires_in: number;
  setup?: true;
}

/** What a sign-in answers: signed in, or the two-factor challenge. */
export type SignInResult<T> = { status: 'signed-in'; value: T } | { status: 'mfa-required'; challenge: MfaChallenge };

/** The account plugin's routes under `authPath` (default `/auth`), for the client's transport. */
export class AccountClient {
  private readonly path: string;

  constructor(
    private readonly http: HttpClient,
    authPath = '/auth',
  ) {
    this.path = authPath.replace(/\/$/, '');
  }

  /** Signs in for a session (session transport): keeps the CSRF token it answers. */
  async signIn(
    credentials: { username: string; password: string },
    options?: CallOptions,
  ): Promise<SignInResult<{ csrf_token: string }>> {
    const answer = await this.post<{ csrf_token: string } | MfaChallenge>('/login', credentials, options);
    if ('mfa_required' in answer) return { status: 'mfa-required', challenge: answer };
    if (this.http.auth instanceof SessionAuth) this.http.auth.setCsrfToken(answer.csrf_token);
    return { status: 'signed-in', value: answer };
  }

  /** Signs in for a token pair (bearer transport): the client uses and refreshes it from then on. */
  async token(
    credentials: { username: string; password: string; scope?: string },
    options?: CallOptions,
  ): Promise<SignInResult<TokenPair>> {
    const answer = await this.post<TokenPair | MfaChallenge>('/token', credentials, options);
    if ('mfa_required' in answer) return { status: 'mfa-required', challenge: answer };
    if (this.http.auth instanceof BearerAuth) this.http.auth.setTokens(answer);
    return { status: 'signed-in', value: answer };
  }

  /** Completes a two-factor sign-in with a code (or a recovery code). */
  verifyMfa(body: { challenge: string; code: string }, options?: CallOptions): Promise<unknown> {
    return this.post('/mfa/verify', body, options);
  }

  /** The signed-in user, as /auth/me answers it. */
  me<T = Record<string, unknown>>(options?: CallOptions): Promise<T> {
    return this.http.request<T>({ method: 'GET', path: `${this.path}/me`, ...options });
  }

  /** Signs out: a session ends on the server; a bearer client forgets its pair (tokens expire on their own). */
  async signOut(options?: CallOptions): Promise<void> {
    const auth = this.http.auth;
    if (auth instanceof BearerAuth) return auth.setTokens(undefined);
    await this.post('/logout', undefined, options);
    if (auth instanceof SessionAuth) auth.clear();
  }

  private post<T>(path: string, json: unknown, options?: CallOptions): Promise<T> {
    return this.http.request<T>({ method: 'POST', path: `${this.path}${path}`, json, ...options });
  }
}

import type { HttpClient } from './http';

/** How a client authenticates its requests; `bearerAuth()` and `sessionAuth()` make one. */
export interface Auth {
  /** `fetch`'s `credentials`: `include` lets a browser send the session cookie across origins. */
  readonly credentials?: 'include' | 'same-origin' | 'omit';
  /** Called once by the client that uses it. */
  attach?(client: HttpClient): void;
  /** Sets this request's credential headers. */
  apply(method: string, headers: Headers): void | Promise<void>;
  /** Sees every answer (the session transport keeps its cookies outside browsers). */
  receive?(response: Response): void;
  /** After a refused answer: true when the credential was renewed and the request should go again (once). */
  recover?(status: number, body: unknown, method: string, sent: Headers): Promise<boolean>;
}

/** An access token and the refresh token that renews it, as /auth/token and /auth/refresh answer them. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type?: 'bearer';
  expires_in?: number;
}

/** The bearer transport: `Authorization: Bearer`, renewed once through /auth/refresh on a 401. */
export class BearerAuth implements Auth {
  private client?: HttpClient;
  private refreshing?: Promise<boolean>;
  private tokens?: TokenPair;

  constructor(
    private readonly options: {
      tokens?: TokenPair;
      /** Where the account plugin is mounted (default `/auth`). */
      authPath?: string;
      /** Called with each new pair (persist the refresh token here), and with null when refresh fails. */
      onTokens?: (tokens: TokenPair | null) => void;
    } = {},
  ) {
    this.tokens = options.tokens;
  }

  attach(client: HttpClient): void {
    this.client = client;
  }

  /** The current pair (after a sign-in or refresh), or undefined. */
  get current(): TokenPair | undefined {
    return this.tokens;
  }

  /** Replaces the pair (after /auth/token), or forgets it with undefined. */
  setTokens(tokens: TokenPair | undefined): void {
    this.tokens = tokens;
    this.options.onTokens?.(tokens ?? null);
  }

  apply(_method: string, headers: Headers): void {
    if (this.tokens) headers.set('authorization', `Bearer ${this.tokens.access_token}`);
  }

  async recover(status: number, _body: unknown, _method: string, sent: Headers): Promise<boolean> {
    if (status !== 401 || !this.tokens) return false;
    // Another request refreshed while this one was in flight: go again with its token.
    if (sent.get('authorization') !== `Bearer ${this.tokens.access_token}`) return true;
    // Concurrent 401s share one refresh: the refresh token is single use.
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Trades the refresh token for a new pair; false (and the pair forgotten) when the server refuses it. */
  async refresh(): Promise<boolean> {
    if (!this.client || !this.tokens) return false;
    const response = await this.client.send({
      method: 'POST',
      path: `${this.options.authPath ?? '/auth'}/refresh`,
      json: { refresh_token: this.tokens.refresh_token },
    });
    if (!response.ok) {
      await response.body?.cancel();
      this.setTokens(undefined);
      return false;
    }
    this.setTokens((await response.json()) as TokenPair);
    return true;
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The session transport: the session cookie (kept by the browser, or by this object where
 * `fetch` keeps none, as in Node) and the CSRF header on unsafe verbs, re-minted through
 * /auth/csrf/refresh once when the server refuses it.
 */
export class SessionAuth implements Auth {
  readonly credentials: 'include' | 'same-origin' | 'omit' = 'include';
  private client?: HttpClient;
  private readonly jar = new Map<string, string>();
  private csrf?: string;

  constructor(private readonly options: { authPath?: string; csrfCookie?: string; csrfHeader?: string } = {}) {}

  attach(client: HttpClient): void {
    this.client = client;
  }

  /** Keeps the CSRF token a sign-in answered. */
  setCsrfToken(token: string | undefined): void {
    this.csrf = token;
  }

  apply(method: string, headers: Headers): void {
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const token = this.csrf ?? this.cookie(this.options.csrfCookie ?? 'cs_csrf') ?? this.cookie('__Host-cs_csrf');
    if (UNSAFE.has(method) && token) headers.set(this.options.csrfHeader ?? 'x-csrf-token', token);
  }

  receive(response: Response): void {
    for (const line of response.headers.getSetCookie?.() ?? []) {
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async recover(status: number, body: unknown, method: string): Promise<boolean> {
    const detail = body && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
    if (status !== 403 || !UNSAFE.has(method) || !/csrf/i.test(String(detail)) || !this.client) return false;
    const headers = new Headers({ accept: 'application/json' });
    this.apply('GET', headers);
    const response = await this.client.send(
      { method: 'POST', path: `${this.options.authPath ?? '/auth'}/csrf/refresh` },
      headers,
    );
    this.receive(response);
    if (!response.ok) return false;
    this.csrf = ((await response.json()) as { csrf_token: string }).csrf_token;
    return true;
  }

  /** Forgets the session (after sign-out). */
  clear(): void {
    this.jar.clear();
    this.csrf = undefined;
  }

  private cookie(name: string): string | undefined {
    if (this.jar.has(name)) return this.jar.get(name);
    const doc = (globalThis as { document?: { cookie?: string } }).document;
    const found = doc?.cookie?.split('; ').find((c) => c.startsWith(`${name}=`));
    return found ? decodeURIComponent(found.slice(name.length + 1)) : undefined;
  }
}

/** The bearer transport (see `BearerAuth`). */
export const bearerAuth = (options?: ConstructorParameters<typeof BearerAuth>[0]): BearerAuth =>
  new BearerAuth(options);
/** The session transport (see `SessionAuth`). */
export const sessionAuth = (options?: ConstructorParameters<typeof SessionAuth>[0]): SessionAuth =>
  new SessionAuth(options);

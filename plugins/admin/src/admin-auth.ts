import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import { RateLimitError, type CookieToSet, type NeutralRequest, type Principal } from '@crudsmith/core';
import {
  Lockout,
  PasswordHasher,
  hashSecret,
  randomToken,
  safeEqual,
  type Session,
  type SessionManager,
} from '@crudsmith/core/auth';
import { AdminUsers, USERNAME_MAX, foldUsername, type AdminUser } from './admin-users';

/** The signed-in admin of a request. */
export interface AdminPrincipal {
  user: AdminUser;
  session: Session;
  /** The session's CSRF token, which every unsafe request must carry. */
  csrf: string;
  /** The principal the models' access policies see, set once the request is admitted (its roles read). */
  acting?: Principal;
}

/** Why a sign-in failed: one generic answer either way, or a lock with its wait. */
export type SignInOutcome =
  { ok: true; principal: AdminPrincipal; cookie: CookieToSet } | { ok: false } | { ok: false; retryAfter: number };

const PRELOGIN_TTL = 3600;

/**
 * The admin's sign-in, sessions and CSRF. Its sessions are its own SessionManager's (its
 * own cookie, limited to the mount path), apart from any account session of the app.
 * Before sign-in a random cookie binds the login form: its hidden `csrf_token` is an
 * HMAC of that cookie under the secret key, so a form posted from another site (login
 * CSRF) carries no valid pair.
 */
export class AdminAuth {
  readonly preloginCookie: string;

  readonly users: AdminUsers;
  readonly sessions: SessionManager;
  readonly passwords: PasswordHasher;
  private readonly lockout: Lockout;

  constructor(
    private readonly settings: { mount: string; secretKey: () => Promise<string>; secure: boolean; now: () => number },
    parts: { users: AdminUsers; sessions: SessionManager; passwords: PasswordHasher; lockout: Lockout },
  ) {
    ({ users: this.users, sessions: this.sessions, passwords: this.passwords, lockout: this.lockout } = parts);
    this.preloginCookie = `${settings.secure ? '__Secure-' : ''}cs_admin_login`;
  }

  /** The request's admin, or null (no session, or it ended). */
  async current(req: NeutralRequest): Promise<AdminPrincipal | null> {
    const session = await this.sessions.load(req);
    if (!session) return null;
    const data = session.data as { csrf?: string; username?: string };
    if (typeof data.csrf !== 'string') return null;
    return { session, csrf: data.csrf, user: { id: Number(session.userId), username: String(data.username ?? '') } };
  }

  /** Whether an unsafe request carries the session's CSRF token (header or form field). */
  csrfValid(req: NeutralRequest, principal: AdminPrincipal): boolean {
    const body = req.body as Record<string, unknown> | undefined;
    const sent =
      req.headers['x-csrf-token'] ??
      (body && typeof body === 'object' && typeof body.csrf_token === 'string' ? body.csrf_token : undefined);
    return typeof sent === 'string' && safeEqual(sent, principal.csrf);
  }

  /** The pre-sign-in cookie value to use (the request's, or a new one) and the form token bound to it. */
  async prelogin(req: NeutralRequest): Promise<{ value: string; token: string; cookie?: CookieToSet }> {
    const existing = req.cookies[this.preloginCookie];
    const value = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomToken(32);
    const cookie = value === existing ? undefined : this.cookie(this.preloginCookie, value, PRELOGIN_TTL);
    return { value, token: await this.preloginToken(value), cookie };
  }

  /** Whether a login form's `csrf_token` matches its pre-sign-in cookie. */
  async preloginValid(req: NeutralRequest): Promise<boolean> {
    const value = req.cookies[this.preloginCookie];
    const sent = (req.body as Record<string, unknown> | undefined)?.csrf_token;
    return (
      typeof value === 'string' &&
      value.length > 0 &&
      typeof sent === 'string' &&
      safeEqual(sent, await this.preloginToken(value))
    );
  }

  /**
   * Checks a username and password under the lockout: the attempt is counted (atomically,
   * before bcrypt) so concurrent guesses cannot pass the threshold; a locked account answers
   * its wait. Unknown names take the same time and lock the same way as real ones.
   */
  async signIn(req: NeutralRequest, username: string, password: string): Promise<SignInOutcome> {
    if ([...username].length > USERNAME_MAX * 2 || [...password].length > this.passwords.maxLength)
      return { ok: false };
    const key = this.lockoutKey(username);
    return this.passwords.bounded(req.clientAddress, async () => {
      const now = this.settings.now();
      const attempt = await this.lockout.attempt(key, now);
      if (!attempt.allowed) return { ok: false, retryAfter: attempt.retryAfter };
      const user = await this.users.find(username);
      const ok = await this.passwords.verify(password, user?.hashedPassword);
      if (!ok || !user) {
        await this.lockout.fail(key, now);
        return { ok: false };
      }
      await this.lockout.succeed(key);
      const csrf = randomToken(32);
      const replaces = await this.sessions.load(req);
      const issued = await this.sessions.create(user.id, {
        data: { csrf, username: user.username },
        replaces,
        userAgent: req.headers['user-agent'],
        ipAddress: req.clientAddress,
      });
      return {
        ok: true,
        principal: { user: { id: user.id, username: user.username }, session: issued.session, csrf },
        cookie: issued.cookie,
      };
    });
  }

  /** Lifts an admin user's sign-in lockout and forgets its failures (through `db` when given: a transaction). */
  async unlock(username: string, db?: Knex): Promise<void> {
    await this.lockout.succeed(this.lockoutKey(username), db);
  }

  /** The ones of `usernames` locked out of sign-in now (one query). */
  async lockedOf(usernames: readonly string[]): Promise<Set<string>> {
    const keys = new Map(usernames.map((name) => [this.lockoutKey(name), name]));
    const locked = await this.lockout.lockedKeys([...keys.keys()], this.settings.now());
    return new Set([...locked].map((key) => keys.get(key)!));
  }

  // The lockout's key: a hash of the folded name, so unknown names lock exactly like real ones.
  private lockoutKey(username: string): string {
    return `admin:${hashSecret(foldUsername(username))}`;
  }

  /** The 429 of a locked account. */
  lockedError(retryAfter: number): RateLimitError {
    return new RateLimitError('Too many failed sign-ins; try again later', { retryAfter });
  }

  /** The cookie that removes the pre-sign-in cookie. */
  clearPrelogin(): CookieToSet {
    return { ...this.cookie(this.preloginCookie, '', 0), expires: new Date(0) };
  }

  private async preloginToken(value: string): Promise<string> {
    return createHmac('sha256', await this.settings.secretKey())
      .update(`crudsmith/admin/login-csrf/v1:${value}`)
      .digest('base64url');
  }

  private cookie(name: string, value: string, maxAge: number): CookieToSet {
    return {
      name,
      value,
      httpOnly: true,
      secure: this.settings.secure,
      sameSite: 'strict',
      path: this.settings.mount,
      maxAge,
    };
  }
}

import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import type { CookieToSet, Dependency, NeutralRequest } from '../http/neutral';
import type { SessionCarrier } from './session-carrier';
import type { Session } from './session-types';
import { expired, fromSession, toSession } from './session-record';
import { hashSecret, randomToken } from '../security/secrets';
import type { SessionRecord, SessionStore } from './session-store';

/** Options of a SessionManager. */
export interface SessionManagerOptions {
  store: SessionStore;
  /** Names this manager among others (the admin has its own); default `session`. */
  name?: string;
  /**
   * Cookie name; default `cs_<name>`, with the `__Host-` prefix when `secure` (the
   * `__Secure-` prefix when `cookiePath` is not `/`, which `__Host-` forbids).
   */
  cookieName?: string;
  /** The cookie's Path (default `/`); the admin limits its cookie to its mount path. */
  cookiePath?: string;
  /** Send the cookie over HTTPS only (and use the `__Host-` prefix by default). */
  secure?: boolean;
  sameSite?: 'lax' | 'strict';
  /** A session unused for this long ends (default 12 hours). */
  idleTimeoutSeconds?: number;
  /** A session ends this long after it began, however used (default 7 days). */
  absoluteTimeoutSeconds?: number;
  /** Most live sessions a user may hold; a new one evicts the least recently used (default 10). */
  maxSessionsPerUser?: number;
  /** Last-use writes happen at most this often per session (default 60 s). */
  touchIntervalSeconds?: number;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

/** What `create` and `regenerate` answer: the session and the cookie that carries it. */
export interface IssuedSession {
  session: Session;
  cookie: CookieToSet;
}

const HOUR = 3600;

/**
 * Owns every rule of server-side sessions: random 256-bit ids stored only as
 * SHA-256 hashes, a public handle apart from the id, a per-user index, idle and absolute
 * expiry, regeneration, revocation of one or all, a cap per user, and writes that only
 * touch sessions that still exist. It reads its cookie from the neutral request and
 * hands back the cookies to set, so it works on every adapter.
 */
export class SessionManager {
  readonly name: string;
  readonly cookieName: string;
  /** The request's session, or null: a dependency, resolved once per request. */
  readonly current: Dependency<Session | null>;
  private readonly store: SessionStore;
  private readonly secure: boolean;
  private readonly cookiePath: string;
  private readonly sameSite: 'lax' | 'strict';
  private readonly idleMs: number;
  private readonly absoluteMs: number;
  private readonly maxPerUser: number;
  private readonly touchMs: number;
  private readonly now: () => number;
  // Where a request's carrier sits in its state; whose carrier is required; which carrier holds each session.
  private readonly carrierKey: symbol;
  private carrierName: string | null = null;
  private readonly carriers = new WeakMap<Session, SessionCarrier>();

  constructor(options: SessionManagerOptions) {
    this.store = options.store;
    this.name = options.name ?? 'session';
    this.secure = options.secure ?? false;
    this.cookiePath = options.cookiePath ?? '/';
    const prefix = this.secure ? (this.cookiePath === '/' ? '__Host-' : '__Secure-') : '';
    this.cookieName = options.cookieName ?? `${prefix}cs_${this.name}`;
    this.sameSite = options.sameSite ?? 'lax';
    this.idleMs = seconds('idleTimeoutSeconds', options.idleTimeoutSeconds ?? 12 * HOUR) * 1000;
    this.absoluteMs = seconds('absoluteTimeoutSeconds', options.absoluteTimeoutSeconds ?? 7 * 24 * HOUR) * 1000;
    this.maxPerUser = seconds('maxSessionsPerUser', options.maxSessionsPerUser ?? 10);
    this.touchMs = (options.touchIntervalSeconds ?? 60) * 1000;
    this.now = options.now ?? Date.now;
    if (this.cookieName.startsWith('__Host-') && (!this.secure || this.cookiePath !== '/')) {
      throw new ConfigurationError(
        `Session cookie ${this.cookieName}: the __Host- prefix needs secure: true and the path /`,
      );
    }
    this.carrierKey = Symbol(`crudsmith.session.${this.name}`);
    this.current = (req) => this.read(req);
  }

  /**
   * Declares that a framework's session middleware (`name`, such as koa-session) carries
   * this manager's sessions: from now on a request that reaches a route without its
   * carrier is a configuration error, not a silent second way in.
   */
  requireCarrier(name: string): void {
    this.carrierName = name;
  }

  /** The carrier `requireCarrier` named, or null (adapters check their setup against it at startup). */
  get carrier(): string | null {
    return this.carrierName;
  }

  /** Attaches a request's carrier to its state (shared with the framework); `current` reads it from there. */
  carry(state: Record<string | symbol, unknown>, carrier: SessionCarrier): void {
    state[this.carrierKey] = carrier;
  }

  /**
   * The live session a raw cookie id names, or null (malformed, unknown, expired or
   * revoked). Touches its last use at most once per `touchIntervalSeconds`.
   */
  async loadById(id: string | undefined): Promise<Session | null> {
    // Ids are 43 base64url characters; anything else was never issued, so skip the lookup.
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const idHash = hashSecret(id);
    const record = await this.store.get(idHash);
    if (!record) return null;
    const now = this.now();
    if (expired(record, now)) {
      await this.store.delete([idHash]);
      return null;
    }
    if (now - record.lastSeenAt >= this.touchMs) {
      const changes = { lastSeenAt: now, idleExpiresAt: Math.min(now + this.idleMs, record.absoluteExpiresAt) };
      // Revoked meanwhile: the write finds nothing, and the request is anonymous.
      if (!(await this.store.update(idHash, changes))) return null;
      Object.assign(record, changes);
    }
    return toSession(record);
  }

  /** The request's session (same as `req.resolve(manager.current)`). */
  load(req: NeutralRequest): Promise<Session | null> {
    return req.resolve(this.current);
  }

  /**
   * Starts a session for a user. Pass the request's current session as `replaces` at
   * sign-in: it is deleted, so an id planted before sign-in (fixation) never becomes
   * an authenticated one. Pass the `request` too, so that its carrier (if any) adopts the new session.
   */
  async create(
    userId: string | number,
    options: {
      data?: Record<string, unknown>;
      replaces?: Session | null;
      request?: NeutralRequest;
      userAgent?: string;
      ipAddress?: string;
    } = {},
  ): Promise<IssuedSession> {
    const now = this.now();
    if (options.replaces) await this.store.delete([options.replaces.idHash]);
    await this.enforceCap(String(userId), now);
    const id = randomToken(32);
    const record: SessionRecord = {
      idHash: hashSecret(id),
      handle: randomToken(16),
      userId: String(userId),
      data: options.data ?? {},
      createdAt: now,
      lastSeenAt: now,
      idleExpiresAt: Math.min(now + this.idleMs, now + this.absoluteMs),
      absoluteExpiresAt: now + this.absoluteMs,
      userAgent: options.userAgent?.slice(0, 255) ?? null,
      ipAddress: options.ipAddress?.slice(0, 64) ?? null,
    };
    await this.store.insert(record);
    const carrier = options.request
      ? this.carrierOf(options.request)
      : options.replaces
        ? this.carriers.get(options.replaces)
        : undefined;
    return {
      session: this.handOver(carrier, toSession(record)),
      cookie: this.cookie(id, record.absoluteExpiresAt - now),
    };
  }

  /**
   * Moves a session to a fresh id (after a privilege change), keeping its user, data and
   * absolute expiry; the old id stops working at once.
   */
  async regenerate(session: Session): Promise<IssuedSession | null> {
    const now = this.now();
    if ((await this.store.delete([session.idHash])) === 0) return null;
    const id = randomToken(32);
    const record: SessionRecord = {
      ...fromSession(session),
      idHash: hashSecret(id),
      lastSeenAt: now,
      idleExpiresAt: Math.min(now + this.idleMs, session.absoluteExpiresAt.getTime()),
    };
    await this.store.insert(record);
    return {
      session: this.handOver(this.carriers.get(session), toSession(record)),
      cookie: this.cookie(id, record.absoluteExpiresAt - now),
    };
  }

  /** Saves `session.data`, only if the session still exists; answers whether it did. */
  save(session: Session): Promise<boolean> {
    // A plain JSON copy: a carrier's data may be its framework's own session object.
    return this.store.update(session.idHash, {
      data: JSON.parse(JSON.stringify(session.data ?? {})) as Record<string, unknown>,
    });
  }

  /** Ends one session. */
  async revoke(session: Session): Promise<void> {
    await this.store.delete([session.idHash]);
    this.carriers.get(session)?.replace(null);
  }

  /**
   * Ends the user's session with this public handle; false when the user has none such.
   * `current` is the calling request's session: when it is the one ended, its carrier learns.
   */
  async revokeByHandle(
    userId: string | number,
    handle: string,
    options: { current?: Session | null } = {},
  ): Promise<boolean> {
    const found = (await this.store.listByUser(String(userId))).find((r) => r.handle === handle);
    if (!found || (await this.store.delete([found.idHash])) === 0) return false;
    if (options.current?.idHash === found.idHash) this.carriers.get(options.current)?.replace(null);
    return true;
  }

  /**
   * Ends every session of the user, except `keep`; answers how many ended. `current` as for
   * `revokeByHandle`. With `db` (a transaction), a database store ends them in it, so they
   * end only if it commits; a store elsewhere (Redis) ends them at once.
   */
  async revokeAll(
    userId: string | number,
    options: { keep?: Session | null; current?: Session | null; db?: Knex } = {},
  ): Promise<number> {
    const store = options.db && this.store.within ? this.store.within(options.db) : this.store;
    const records = await store.listByUser(String(userId));
    const ended = records.filter((r) => r.idHash !== options.keep?.idHash).map((r) => r.idHash);
    const count = await store.delete(ended);
    if (options.current && ended.includes(options.current.idHash)) this.carriers.get(options.current)?.replace(null);
    return count;
  }

  /** The user's live sessions, oldest first. */
  async list(userId: string | number): Promise<Session[]> {
    const now = this.now();
    const records = await this.store.listByUser(String(userId));
    return records
      .filter((r) => !expired(r, now))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(toSession);
  }

  /** Deletes expired sessions (stores without their own expiry need this now and then). */
  prune(): Promise<number> {
    return this.store.deleteExpired(this.now());
  }

  /** The cookie that removes this manager's session cookie from the browser. */
  clearCookie(): CookieToSet {
    return { ...this.cookieBase(), value: '', maxAge: 0, expires: new Date(0) };
  }

  private cookie(id: string, lifetimeMs: number): CookieToSet {
    return { ...this.cookieBase(), value: id, maxAge: Math.floor(lifetimeMs / 1000) };
  }

  /** The session cookie's attributes: HttpOnly, SameSite, Path (`/` by default), host-only (no Domain), Secure when configured. */
  cookieAttributes(): Omit<CookieToSet, 'value'> {
    return this.cookieBase();
  }

  private cookieBase(): Omit<CookieToSet, 'value'> {
    return {
      name: this.cookieName,
      httpOnly: true,
      secure: this.secure,
      sameSite: this.sameSite,
      path: this.cookiePath,
    };
  }

  private async read(req: NeutralRequest): Promise<Session | null> {
    const carrier = this.carrierOf(req);
    if (carrier) {
      if (carrier.session) this.carriers.set(carrier.session, carrier);
      return carrier.session;
    }
    if (this.carrierName) {
      throw new ConfigurationError(
        `Session manager "${this.name}" is carried by ${this.carrierName}, which did not run before this route: install it before the routes (on Koa: app.use(createSession(koaSessionOptions(manager), app)) before mountRoutes)`,
      );
    }
    return this.loadById(req.cookies[this.cookieName]);
  }

  private carrierOf(req: NeutralRequest): SessionCarrier | undefined {
    return (req.state as Record<symbol, SessionCarrier | undefined>)[this.carrierKey];
  }

  // The request's carrier (if any) adopts a newly issued session and answers for it from then on.
  private handOver(carrier: SessionCarrier | undefined, session: Session): Session {
    if (!carrier) return session;
    carrier.replace(session);
    const carried = carrier.session ?? session;
    this.carriers.set(carried, carrier);
    return carried;
  }

  private async enforceCap(userId: string, now: number): Promise<void> {
    const records = await this.store.listByUser(userId);
    const dead = records.filter((r) => expired(r, now));
    const live = records.filter((r) => !expired(r, now)).sort((a, b) => a.lastSeenAt - b.lastSeenAt);
    const evicted = live.slice(0, Math.max(0, live.length - (this.maxPerUser - 1)));
    await this.store.delete([...dead, ...evicted].map((r) => r.idHash));
  }
}

function seconds(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ConfigurationError(`${name} must be a positive integer, got ${value}`);
  return value;
}

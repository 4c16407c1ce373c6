import type { Context } from 'koa';
import type { CreateSessionOptions } from 'koa-session';
import type { ErrorLogger } from '@crudsmith/core';
import { randomToken, type Session, type SessionCarrier, type SessionManager } from '@crudsmith/core/auth';
import { errorLoggerFor, errorToResult } from '@crudsmith/core/adapter';
import { writeResult } from './write-result';

// On Koa, koa-session is the session cookie's carrier: it loads the session
// once per request through the manager, and the routes and the app's own middleware
// share it as `ctx.session`. Every rule stays the manager's: hashed ids, handles,
// expiry, regeneration at sign-in, revocation, writes that never revive a session.

/** Where koa-session's options (its `store`) keep the manager they were made for. */
export const MANAGER = Symbol('crudsmith.koaSession.manager');
const CARRIER = Symbol('crudsmith.koaSession.carrier');
// What koa-session adds to the data it saves: its own bookkeeping, not session data.
const BOOKKEEPING = ['_expire', '_maxAge', '_session'];

type Data = Record<string, unknown>;

/** One request's session, kept in step with `ctx.session`. */
class KoaSessionCarrier implements SessionCarrier {
  /** The session koa-session loaded, or the one issued since; read by the store methods. */
  current: Session | null = null;
  /** Why the store could not load the request's session (it is down): what reading the session throws. */
  failure: { error: unknown } | null = null;

  constructor(private readonly ctx: Context) {}

  /**
   * What the routes see: none once the app's middleware set `ctx.session = null` (koa-session
   * then revokes it). Throws the store's failure, so a route that needs the session answers
   * it as any error (a JSON 503 for an unreachable store), and one that does not still serves.
   */
  get session(): Session | null {
    if (this.failure) throw this.failure.error;
    return this.ctx.session === null ? null : this.current;
  }

  /**
   * The session as the routes see it: its `data` is `ctx.session` itself while it is this
   * request's session, so a value the app's middleware puts there reaches the routes and back.
   */
  adopt(session: Session | null): Session | null {
    if (!session) return null;
    const { ctx } = this;
    let detached: Data = session.data;
    const carried = { ...session } as Session;
    Object.defineProperty(carried, 'data', {
      enumerable: true,
      get: () => (this.current === carried ? (ctx.session as Data | null) : null) ?? detached,
      set: (value: Data) => {
        detached = value;
        if (this.current === carried) ctx.session = value;
      },
    });
    return carried;
  }

  replace(session: Session | null): void {
    if (session === null && this.current === null) return;
    const data = session ? plain(session.data) : {};
    this.current = this.adopt(session);
    // Never null: koa-session would then clear the cookie itself. An empty session is what an anonymous request has.
    this.ctx.session = data;
  }
}

/**
 * The koa-session options `koaSessionOptions` answers, for `createSession`. Written out
 * rather than taken from koa-session's own types, so that this package's declarations
 * compile in a Koa app without koa-session (an optional peer); `koaSessionOptions` checks
 * at build time that they still fit koa-session's `CreateSessionOptions`.
 */
export interface KoaSessionOptions {
  key: string;
  signed: boolean;
  httpOnly: boolean | undefined;
  secure: boolean | undefined;
  sameSite: 'lax' | 'strict' | 'none' | undefined;
  /** Not in koa-session's type, but it passes it on to the cookie it clears. */
  path: string | undefined;
  overwrite: boolean;
  rolling: boolean;
  renew: boolean;
  autoCommit: boolean;
  genid: () => string;
  valid: (ctx: Context) => boolean;
  externalKey: { get(ctx: Context): string; set(): void };
  store: {
    get(id: string, maxAge: number, options: { ctx?: Context }): Promise<Record<string, unknown> | null>;
    set(id: string, data: Record<string, unknown>, maxAge: number, options: { ctx?: Context }): Promise<void>;
    destroy(id: string, options: { ctx?: Context }): Promise<void>;
  };
}

/**
 * koa-session options that make it carry `manager`'s sessions; pass them to
 * `createSession` before the routes. Sessions still begin only at sign-in (the manager's
 * `create`): what the app writes to `ctx.session` of an anonymous request is not stored,
 * and `ctx.session = null` signs the request's user out. The cookie is written by the
 * manager's routes alone, with its flags (SameSite, Path=/, host-only, HttpOnly, Secure
 * when configured); koa-session only clears it when the app sets `ctx.session = null`.
 *
 * @example
 * app.use(createSession(koaSessionOptions(auth.sessionManager!), app));
 * mountRoutes(app, routes, { sessions: [auth.sessionManager!] });
 */
export function koaSessionOptions(manager: SessionManager): KoaSessionOptions {
  manager.requireCarrier('koa-session');
  const attributes = manager.cookieAttributes();
  const carrierOf = (ctx: Context) => (ctx.state as Record<symbol, KoaSessionCarrier | undefined>)[CARRIER];
  const store = {
    async get(id: string, _maxAge: number, { ctx }: { ctx?: Context }): Promise<Data | null> {
      const carrier = carrierOf(ctx!)!;
      // koa-session loads before the routes, outside their error rendering: a store that is
      // down must not become Koa's plain-text answer, so the failure waits on the carrier.
      let session: Session | null;
      try {
        session = await manager.loadById(id);
      } catch (error) {
        carrier.failure = { error };
        return null;
      }
      carrier.current = carrier.adopt(session);
      return session ? plain(session.data) : null;
    },
    async set(_id: string, data: Data, _maxAge: number, { ctx }: { ctx?: Context }): Promise<void> {
      const session = carrierOf(ctx!)?.current;
      // No session behind this request (anonymous, or revoked meanwhile): nothing is stored, nothing revived.
      if (session) await answerFailure(ctx!, manager, manager.save({ ...session, data: withoutBookkeeping(data) }));
    },
    async destroy(_id: string, { ctx }: { ctx?: Context }): Promise<void> {
      const carrier = carrierOf(ctx!);
      const session = carrier?.current;
      if (!carrier || !session) return;
      carrier.current = null;
      await answerFailure(ctx!, manager, manager.revoke(session));
    },
    [MANAGER]: manager,
  };
  const options: KoaSessionOptions = {
    key: manager.cookieName,
    // The id is 256 random bits, stored hashed: a signature cookie would add nothing.
    signed: false,
    httpOnly: attributes.httpOnly,
    secure: attributes.secure,
    sameSite: attributes.sameSite,
    path: attributes.path,
    overwrite: true,
    rolling: false,
    renew: false,
    autoCommit: true,
    genid: () => randomToken(32),
    valid: (ctx: Context) => carrierOf(ctx)?.current != null,
    externalKey: {
      get(ctx: Context): string {
        const carrier = new KoaSessionCarrier(ctx);
        (ctx.state as Record<symbol, unknown>)[CARRIER] = carrier;
        manager.carry(ctx.state as Record<symbol, unknown>, carrier);
        return ctx.cookies.get(manager.cookieName, { signed: false }) ?? '';
      },
      // The manager's routes set the cookie (sign-in) and clear it (sign-out); koa-session never re-sends it.
      set() {},
    },
    store,
  };
  return options satisfies CreateSessionOptions;
}

// koa-session saves after the routes answered, outside their error rendering: a failed
// write replaces the answer with the JSON error every route gives (a 503 for a store that is down).
async function answerFailure(ctx: Context, manager: SessionManager, write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    writeResult(ctx, errorToResult(error, errorLoggerFor(reporters.get(manager) ?? console, ctx.req.headers)));
  }
}

// The logger of the routes that carry each manager: an unexpected failure of a save or a
// sign-out after the routes goes where their own errors go, with the request's id.
const reporters = new WeakMap<SessionManager, ErrorLogger>();

/** Reports what koa-session's saves of `manager`'s sessions fail with unexpectedly to `logger` (mountRoutes' own). */
export function reportSessionErrors(manager: SessionManager, logger: ErrorLogger): void {
  reporters.set(manager, logger);
}

function plain(data: Data): Data {
  return JSON.parse(JSON.stringify(data ?? {})) as Data;
}

function withoutBookkeeping(data: Data): Data {
  const copy = plain(data);
  for (const key of BOOKKEEPING) delete copy[key];
  return copy;
}

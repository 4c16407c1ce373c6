import type { Session } from './session-types';

/**
 * How a framework's own session middleware carries a SessionManager's session through
 * one request (koa-session on Koa), so that the framework's middleware and
 * the routes share one session: the carrier loads it once (`SessionManager.loadById`)
 * and hands it to the manager (`SessionManager.carry`); the manager tells it when the
 * request's session changes.
 */
export interface SessionCarrier {
  /** The session the request presented, or null. */
  readonly session: Session | null;
  /** This request's session changed: a new one was issued (sign-in, regenerate) or it ended (null). */
  replace(session: Session | null): void;
}

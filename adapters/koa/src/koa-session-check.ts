import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type Koa from 'koa';
import { ConfigurationError } from '@crudsmith/core';
import type { SessionManager } from '@crudsmith/core/auth';
import { MANAGER } from './koa-session';

// The startup check that koa-session is in place. It relies on two behaviours of
// koa-session that are not its documented API: the options an app installs are readable
// on every context as `ctx.sessionOptions` (with the `store` they were made with), and
// its middleware function is named `session`. A koa-session that changes either fails
// this check at startup with its message, never a request.

/**
 * Checks at startup that koa-session carries `manager` on `app`, installed before the
 * routes; throws a ConfigurationError saying what to do otherwise.
 */
export function assertKoaSession(app: Koa<any, any>, manager: SessionManager): void {
  const fix = `app.use(createSession(koaSessionOptions(manager), app)) before mountRoutes`;
  if (manager.carrier !== 'koa-session')
    throw new ConfigurationError(`Session manager "${manager.name}" is not carried by koa-session: ${fix}`);
  const req = new IncomingMessage(new Socket());
  const probe = app.createContext(req, new ServerResponse(req)) as {
    sessionOptions?: { store?: Record<symbol, unknown> };
  };
  const installed = probe.sessionOptions;
  if (!installed)
    throw new ConfigurationError(
      `koa-session is missing on this Koa app for session manager "${manager.name}": ${fix}`,
    );
  if (installed.store?.[MANAGER] !== manager) {
    throw new ConfigurationError(
      `koa-session on this Koa app carries other options than session manager "${manager.name}" (koa-session carries one configuration per app): ${fix}`,
    );
  }
  if (!app.middleware.some((fn) => fn.name === 'session'))
    throw new ConfigurationError(`koa-session's middleware is not installed before the routes: ${fix}`);
}

import type { CookieToSet, Dependency, NeutralRequest } from '@crudsmith/core';
import { randomToken, safeEqual, KnexSessionStore, SessionManager, type Session } from '@crudsmith/core/auth';
import type { AccountCore, Credential, SessionSide } from '../account-core';
import { clearCookie, cookie } from '../cookies';
import type { SessionTransportOptions } from '../options';

type Row = Record<string, unknown>;

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const CSRF_HEADER = 'x-csrf-token';

/** The session transport of `options.session` (null when it is off), to build the core with. */
export function sessionTransport(
  option: SessionTransportOptions | false | undefined,
): ((core: AccountCore) => SessionSide) | null {
  if (option === false) return null;
  return (core) => new SessionTransport(core, option ?? {});
}

/** Server-side sessions with a CSRF token: starting one at sign-in, its cookies, and reading its credential. */
export class SessionTransport implements SessionSide {
  readonly manager: SessionManager;
  readonly csrf: boolean;
  readonly csrfCookie: string;
  readonly managementRoutes: boolean;

  constructor(
    private readonly core: AccountCore,
    session: SessionTransportOptions,
  ) {
    const { options, secure } = core;
    this.manager = new SessionManager({
      name: 'session',
      store: session.store ?? new KnexSessionStore(options.knex, { table: core.tables.sessions }),
      secure,
      cookieName: session.cookieName,
      idleTimeoutSeconds: session.idleTimeoutSeconds,
      absoluteTimeoutSeconds: session.absoluteTimeoutSeconds,
      maxSessionsPerUser: session.maxSessionsPerUser,
      now: core.now,
    });
    this.csrf = session.csrf !== false;
    this.csrfCookie = session.csrfCookieName ?? `${secure ? '__Host-' : ''}cs_csrf`;
    this.managementRoutes = session.managementRoutes ?? false;
  }

  /** Starts a session for a signed-in user, replacing the one the request came with. */
  async start(req: NeutralRequest, row: Row): Promise<{ cookies: CookieToSet[]; csrfToken: string }> {
    const { core, manager: sessions } = this;
    const csrfToken = randomToken(32);
    const issued = await sessions.create(core.users.idOf(row), {
      data: { csrf: csrfToken, auth_time: core.now() },
      // Any session the browser had (a planted one included) ends here: no fixation.
      replaces: await sessions.load(req),
      request: req,
      userAgent: req.headers['user-agent'],
      ipAddress: req.clientAddress,
    });
    return { cookies: [issued.cookie, this.csrfCookieFor(csrfToken, issued.session)], csrfToken };
  }

  csrfCookieFor(token: string, session: Session): CookieToSet {
    const maxAge = Math.max(0, Math.floor((session.absoluteExpiresAt.getTime() - this.core.now()) / 1000));
    return cookie(this.csrfCookie, token, { secure: this.core.secure, httpOnly: false, maxAge });
  }

  /** Cookies that sign the browser out: session, CSRF and (when used) the refresh cookie. */
  signOutCookies(): CookieToSet[] {
    return [
      this.manager.clearCookie(),
      clearCookie(this.csrfCookie, { secure: this.core.secure, httpOnly: false }),
      ...(this.core.bearer?.signOutCookies() ?? []),
    ];
  }

  /** Whether the request is a session request allowed to use an unsafe verb. */
  csrfPasses(req: NeutralRequest, session: Session): boolean {
    if (!this.csrf || !UNSAFE.has(req.method)) return true;
    const sent = req.headers[CSRF_HEADER];
    const expected = session.data.csrf;
    return typeof sent === 'string' && typeof expected === 'string' && sent.length > 0 && safeEqual(sent, expected);
  }

  /** The session credential alone, whatever the Authorization header says (session routes). */
  readonly credential: Dependency<Credential | null> = async (req) => {
    const { core } = this;
    const session = await this.manager.load(req);
    if (!session) return null;
    const row = await core.users.findById(session.userId);
    if (!row) {
      // The user was deleted (soft or hard) since: this session is over.
      await this.manager.revoke(session);
      return null;
    }
    return {
      row,
      transport: 'session',
      scopes: core.scopesOf(row),
      session,
      claims: null,
      authTime: Number(session.data.auth_time ?? session.createdAt.getTime()),
      csrfOk: this.csrfPasses(req, session),
    };
  };
}

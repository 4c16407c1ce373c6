import type { Knex } from 'knex';
import type { MigrationSet, Plugin } from '@crudsmith/core';
import {
  HashPool,
  Lockout,
  PasswordHasher,
  loginFailureMigration,
  loginLockoutsMigration,
  normalizePassword,
  KnexSessionStore,
  SessionManager,
  sessionTableMigration,
  type ApiKeyEvent,
} from '@crudsmith/core/auth';
import { AdminAuth } from './admin-auth';
import { AdminUsers, adminUsersMigration } from './admin-users';
import { AdminRoles, adminUserRolesMigration } from './admin-roles';
import { Assets } from './assets';
import { EventLog, adminEventRepeatsMigration, adminEventsMigration } from './event-log';
import type { AdminContext } from './context';
import { AdminDependencyError, AdminSchemaError } from './errors';
import { checkReferences, resolveView, type ResolvedView } from './model-view';
import type { AdminOptions } from './options';
import { authRoutes } from './routes/auth-routes';
import { languageRoute } from './routes/language';
import { bulkDeleteRoute } from './routes/bulk-delete';
import { csvExportRoute } from './routes/csv-export';
import { csvImportRoute } from './routes/csv-import';
import { crudApiRoutes } from './routes/crud-api';
import { eventRoutes } from './routes/events';
import { formRoutes } from './routes/forms';
import { lookupRoutes } from './routes/lookup';
import { revertRoute } from './routes/revert';
import { roleRoutes } from './routes/roles';
import { apiKeyRoutes } from './routes/api-keys';
import { recordApiKeyEvent } from './api-key-events';
import { hasTrash, trashRoutes } from './routes/trash';
import { accountActionRoute } from './routes/account-actions';
import { ADMIN_PASSWORD_MIN, managementRoutes } from './routes/management';
import { dashboardRoutes, listRoutes } from './routes/pages';
import { RowCounts } from './row-counts';
import { catalogue } from './i18n/translate';

/** The admin plugin, and what an app does with it besides mounting it. */
export interface AdminPlugin extends Plugin {
  /** The admin's session manager (its own cookie, limited to the mount path). */
  readonly sessionManager: SessionManager;
  /** Adds an admin user (the example's first one comes from ADMIN_USERNAME / ADMIN_PASSWORD); a taken name is a 409. */
  createAdminUser(username: string, password: string): Promise<number>;
  /** How many admin users exist. */
  countAdminUsers(): Promise<number>;
  /**
   * Writes an API key event made through the API to the event log (give it to the account
   * plugin's `onApiKeyEvent`); nothing when the log is off.
   */
  apiKeyEvent(event: ApiKeyEvent): Promise<void>;
}

const SHORT_KEY = "admin() needs secretKey, at least 32 characters (the app's SECRET_KEY)";

// The key, asked for once (a function may read it from where the deployment keeps it).
function secretKeyOf(given: AdminOptions['secretKey']): () => Promise<string> {
  if (typeof given === 'string') {
    if (given.length < 32) throw new AdminDependencyError(SHORT_KEY);
    return async () => given;
  }
  if (typeof given !== 'function') throw new AdminDependencyError(SHORT_KEY);
  let found: Promise<string> | undefined;
  return () =>
    (found ??= Promise.resolve(given())
      .then((key) => {
        if (typeof key !== 'string' || key.length < 32) throw new AdminDependencyError(SHORT_KEY);
        return key;
      })
      .catch((error: unknown) => {
        found = undefined;
        throw error;
      }));
}

function mountOf(path: string | undefined, option = 'mountPath'): string {
  const mount = (path ?? '/admin').replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(mount))
    throw new AdminSchemaError(`admin ${option} must be a path such as /admin, got '${path}'`);
  return mount;
}

// The adapter prefix before the mount path, from the public path browsers see ('' without one).
function prefixOf(publicPath: string | undefined, mount: string): string {
  if (publicPath === undefined) return '';
  const seen = mountOf(publicPath, 'publicPath');
  if (!seen.endsWith(mount))
    throw new AdminSchemaError(
      `admin publicPath '${publicPath}' must end with the mountPath '${mount}' (the adapter prefix comes before it)`,
    );
  return seen.slice(0, seen.length - mount.length);
}

/**
 * The admin interface: server-rendered pages (pug, htmx) over the given models, with its
 * own admin users, sessions, CSRF and sign-in lockout. Answers a Plugin of neutral routes,
 * so it runs on every adapter. Every model view is checked here, at startup.
 */
export function admin(options: AdminOptions): AdminPlugin {
  if (!options || typeof options.knex !== 'function')
    throw new AdminDependencyError('admin() needs knex: the database its users, sessions and models live in');
  const secretKey = secretKeyOf(options.secretKey);
  if (!options.models || typeof options.models !== 'object')
    throw new AdminDependencyError('admin() needs models: the model views, by name');
  // Routes are built at the public path (links, redirects, the cookie path) and mounted
  // without the adapter's prefix, which the adapter puts back.
  const prefix = prefixOf(options.publicPath, mountOf(options.mountPath));
  const mount = prefix + mountOf(options.mountPath);
  const knex: Knex = options.knex;
  const tables = {
    users: 'admin_users',
    sessions: 'admin_sessions',
    loginFailures: 'admin_login_failures',
    events: 'admin_events',
    userRoles: 'admin_user_roles',
    ...options.tables,
  };
  const views = new Map<string, ResolvedView>(
    Object.entries(options.models).map(([name, view]) => [name, resolveView(name, view, knex)]),
  );
  checkReferences(views);
  const secure = options.secureCookies ?? false;
  const session = options.session ?? {};
  const sessions = new SessionManager({
    store: session.store ?? new KnexSessionStore(knex, { table: tables.sessions }),
    name: 'admin',
    cookiePath: mount,
    secure,
    sameSite: 'strict',
    idleTimeoutSeconds: session.idleTimeoutSeconds ?? 30 * 60,
    absoluteTimeoutSeconds: session.absoluteTimeoutSeconds ?? 12 * 3600,
    maxSessionsPerUser: session.maxSessionsPerUser ?? 5,
  });
  const passwords = new PasswordHasher(
    { rounds: options.bcryptRounds ?? 12 },
    options.hashPool ?? new HashPool(options.hashing),
  );
  const users = new AdminUsers(knex, tables.users);
  const lockout = new Lockout(knex, tables.loginFailures, options.lockout);
  const auth = new AdminAuth({ mount, secretKey, secure, now: Date.now }, { users, sessions, passwords, lockout });
  const ctx: AdminContext = {
    knex,
    mount,
    title: options.theme?.title ?? 'crudsmith admin',
    scheme: options.theme?.scheme,
    auth,
    assets: new Assets(),
    views,
    exactCountLimit: options.exactCountLimit ?? 100_000,
    logger: options.logger ?? { error: (message, error) => console.error(message, error) },
    events: new EventLog(
      knex,
      tables.events,
      options.eventIntegration ?? false,
      Math.max(1, options.signInFailureRetentionDays ?? 30) * 86_400_000,
    ),
    i18n: catalogue(options.messages),
    roles: new AdminRoles(knex, tables.userRoles, options.access),
    keysPage: options.apiKeys !== undefined,
  };
  const counts = new RowCounts(knex, ctx.exactCountLimit);
  const routes = [
    ctx.assets.route(mount),
    ...authRoutes(ctx),
    languageRoute(ctx),
    ...dashboardRoutes(ctx, counts),
    ...managementRoutes(ctx),
    ...roleRoutes(ctx),
    ...apiKeyRoutes(ctx, options.apiKeys),
    ...eventRoutes(ctx),
    revertRoute(ctx, counts),
  ];
  for (const view of views.values()) {
    if (view.allowed.has('view')) routes.push(...listRoutes(ctx, view));
    if (view.allowed.has('view') && view.view.export) routes.push(csvExportRoute(ctx, view));
    if (view.allowed.has('create') && view.view.import) routes.push(csvImportRoute(ctx, view, counts));
    routes.push(...formRoutes(ctx, view, counts), ...lookupRoutes(ctx, view));
    if (view.allowed.has('delete')) routes.push(bulkDeleteRoute(ctx, view, counts));
    if (hasTrash(view)) routes.push(...trashRoutes(ctx, view, counts));
    if (view.view.unlock)
      routes.push(accountActionRoute(ctx, view, { segment: 'unlock', event: 'unlock', run: view.view.unlock }));
    if (view.view.signOutEverywhere)
      routes.push(
        accountActionRoute(ctx, view, {
          segment: 'sign-out',
          event: 'sign_out_everywhere',
          run: view.view.signOutEverywhere,
        }),
      );
    routes.push(...crudApiRoutes(ctx, view, counts));
  }
  const migrations: MigrationSet = {
    name: 'admin',
    migrations: {
      '0001_admin_users': adminUsersMigration(tables.users),
      '0002_admin_sessions': sessionTableMigration(tables.sessions),
      '0003_admin_login_failures': loginFailureMigration(tables.loginFailures),
      '0004_admin_login_lockouts': loginLockoutsMigration(tables.loginFailures),
      '0005_admin_events': adminEventsMigration(tables.events),
      '0006_admin_event_repeats': adminEventRepeatsMigration(tables.events),
      '0007_admin_user_roles': adminUserRolesMigration(tables.userRoles, tables.users),
    },
  };
  return {
    name: 'admin',
    routes: routes.map((route) => ({ ...route, path: route.path.slice(prefix.length) })),
    migrations,
    sessionManager: sessions,
    async createAdminUser(username, password) {
      if ([...normalizePassword(password)].length < ADMIN_PASSWORD_MIN)
        throw new AdminSchemaError(`An admin password must be at least ${ADMIN_PASSWORD_MIN} characters`);
      return users.insert(username, await passwords.hash(password), Date.now());
    },
    countAdminUsers: () => users.count(),
    apiKeyEvent: (event) => recordApiKeyEvent(ctx.events, event),
    async close() {
      // A pool the app passed is the app's to end.
      if (!options.hashPool) await passwords.pool.close();
    },
  };
}

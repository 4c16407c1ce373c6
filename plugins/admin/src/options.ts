import type { Knex } from 'knex';
import type { Dependency, ErrorLogger, ModelClass, SchemaLike, Storage, UploadedFile } from '@crudsmith/core';
import type { HashPool, HashingOptions, LockoutOptions, OperatorApiKeys, SessionStore } from '@crudsmith/core/auth';
import type { Messages } from './i18n/en';
import type { AdminAccessOptions } from './admin-roles';

/** What the admin may do with a model's rows. */
export type AdminAction = 'view' | 'create' | 'update' | 'delete';

/** How a write field becomes a stored password hash (the example's users). */
export interface PasswordTransformer {
  /** The form field holding the plain password (`password`); never shown, never stored as such. */
  field: string;
  /** The column that stores the hash (`hashed_password`). */
  column: string;
  /** Hashes a plain password (default: the admin's bcrypt, the one the account plugin uses). */
  hash?: (plain: string) => Promise<string>;
}

/**
 * A column filled by a file upload: the form has a file input. Give `storage` (the column
 * stores the key the admin wrote the file under) or `store` (the column stores what it answers).
 */
export interface FileField {
  /** Largest file in bytes; larger is a 413 (default 2 MiB). */
  maxBytes?: number;
  /** Accepted content types (default: any); another is a 400. */
  types?: readonly string[];
  /**
   * Where the files go (core's `localStorage`, `s3Storage`, or the app's own `Storage`): each
   * under a new key `keyPrefix` + random name, which the column stores. An object whose row
   * write fails is removed, and so is the one a new upload replaces.
   */
  storage?: Storage;
  /** Put before every key in `storage` (default `admin/<view>/<column>/`). */
  keyPrefix?: string;
  /** Keeps the file and answers what the column stores (instead of `storage`). */
  store?: (file: UploadedFile) => Promise<string>;
}

/** A model's page set in the admin. */
export interface ModelView {
  /** The objection model class. */
  model: ModelClass;
  /** Which routes exist: view (list), create, update, delete (bulk delete). */
  allowedActions: readonly AdminAction[];
  /** Fields of the create form (a class-validator class or a list of names). */
  createSchema: SchemaLike;
  /** Fields of the update form. */
  updateSchema: SchemaLike;
  /** Fields the admin may write on update beyond `updateSchema` (server-side values). */
  updateInternalSchema?: SchemaLike;
  /** The API's hard-delete schema, accepted for parity; bulk delete soft-deletes when the model has the flag, as the API's DELETE does. */
  deleteSchema?: SchemaLike;
  /** Columns of the list (default: every column of the model). */
  selectSchema?: SchemaLike;
  /** The view's names in pages (default: from its URL name, `rate_limits` → "Rate limit", "Rate limits"). */
  label?: { singular?: string; plural?: string };
  /** Column headers and form labels by column (default: from the names, `customer_id` → "Customer", `created_at` → "Created at"). */
  columnLabels?: Record<string, string>;
  /** Marks the admin's own user model (its list shows no password column). */
  adminModel?: boolean;
  /** Hashes a password field on create and update. */
  passwordTransformer?: PasswordTransformer;
  /** The column that labels a row where another model refers to it (default: the primary key). */
  displayField?: string;
  /** Foreign-key columns shown as a select of another view's rows: column → view name. */
  references?: Record<string, string>;
  /** Columns filled by file uploads (the forms become multipart): column → how the file is checked and kept. */
  files?: Record<string, FileField>;
  /** Adjusts checked values before a create or update is written (the example stores rate-limit paths sanitized). */
  beforeWrite?: (
    values: Record<string, unknown>,
    action: 'create' | 'update',
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * Lifts the sign-in lockout of the row's account (the API users' view: the account
   * plugin's `unlock`), so the admin needs no import of the account plugin. When given, the
   * row's update page has an Unlock button, and each unlock is in the event log. It is given
   * the admin's transaction, which its database writes should go through: the unlock and
   * its event then commit together (the account plugin's does, sharing the admin's database).
   */
  unlock?: (id: string | number, trx?: Knex.Transaction) => Promise<void>;
  /**
   * Whether the row's account is locked out of sign-in now (the account plugin's
   * `isLocked`): with it, the Unlock button shows only for a locked account; without it,
   * on every row.
   */
  isLocked?: (id: string | number) => Promise<boolean>;
  /**
   * Ends every session, access token and refresh token of the row's account (the account
   * plugin's `signOutEverywhere`). When given, it runs after the admin sets the row's
   * password, deletes it (soft or for good) or restores it from the trash, and the row's
   * update page has a "Sign out everywhere" button, logged as a `sign_out_everywhere` event.
   * The button's run is given the admin's transaction, as `unlock` is, so the sign-out and
   * its event commit together; the other runs come after their write commits, with none.
   */
  signOutEverywhere?: (id: string | number, trx?: Knex.Transaction) => Promise<void>;
  /**
   * The address column and the flag that says it was proven (`{ column: 'email', flag:
   * 'is_verified' }`): an admin's change of the address clears the flag in the same write.
   * The JSON API (`{mount}/crud/{model}`) then offers no update, which would skip that step.
   */
  verifiedEmail?: { column: string; flag: string };
  /**
   * Server-side values of the admin's creates, updates and soft deletes, column → dependency
   * resolved on the admin's request (`adminUserOf(req)` names the admin). They are added to
   * the model's own `@Crud` `createConfig`/`updateConfig`/`deleteConfig` auto fields,
   * replacing one of the same column (one that reads the API's session, which an admin
   * request does not carry). Never form fields.
   */
  autoFields?: {
    create?: Record<string, Dependency<unknown>>;
    update?: Record<string, Dependency<unknown>>;
    delete?: Record<string, Dependency<unknown>>;
  };
  /** The list gets an Export button: its rows for the current search and sort, as CSV (off unless true). */
  export?: boolean;
  /**
   * The list gets an Import form (with the `create` action): a CSV file whose header names
   * create fields, every row validated as the create form's, written all or nothing.
   * `maxBytes` bounds the upload (default 1 MiB; 413 beyond).
   */
  import?: boolean | { maxBytes?: number };
  /** Runs after a create, update or delete was written (the example drops every process's rate-limit caches). */
  afterWrite?: (action: 'create' | 'update' | 'delete') => void | Promise<void>;
}

/** Options of `admin()`. */
export interface AdminOptions {
  /** The app's database; admin users, sessions and lockouts live there too. */
  knex: Knex;
  /** Where the pages are served, as the routes are mounted (default `/admin`). */
  mountPath?: string;
  /**
   * Where browsers reach the admin when the adapter mounts the routes under a prefix:
   * `/api/admin` for `mountPath: '/admin'` under `mountRoutes(app, routes, { prefix: '/api' })`.
   * Links, redirects, form actions and the session cookie's path use it. Default: `mountPath`.
   */
  publicPath?: string;
  /** The models, by the name used in their URLs (`items` → `/admin/items/`). */
  models: Record<string, ModelView>;
  /** Signs the pre-sign-in CSRF token (at least 32 characters; the app's SECRET_KEY), or a function answering it (asked once). */
  secretKey: string | (() => string | Promise<string>);
  /** Send cookies over HTTPS only (default false; set it in production). */
  secureCookies?: boolean;
  /** Sessions and their limits. */
  session?: AdminSessionOptions;
  /** Sign-in lockout per admin user (default: 5 failures, 60 s doubling, at most a day). */
  lockout?: LockoutOptions;
  /** bcrypt cost of admin passwords (default 12). */
  bcryptRounds?: number;
  /** bcrypt's worker threads and the bounds on concurrent hashing. */
  hashing?: HashingOptions;
  /**
   * A bcrypt pool shared with the account plugin (its `hashPool`), so the process runs one
   * set of worker threads and one bound on concurrent hashing. Default: a pool of the
   * admin's own from `hashing`, ended with the plugin; a given pool is the app's to close.
   */
  hashPool?: HashPool;
  /** Page title and stylesheet choice. */
  theme?: AdminTheme;
  /**
   * Messages by language tag, merged over the shipped English (`en`) and German (`de`):
   * an override replaces a shipped message, and a new tag adds a language (its missing keys
   * in English). A reader gets the language of their choice (a link in the header, kept in
   * a cookie), else the best of their browser's `Accept-Language`, else English.
   */
  messages?: Record<string, Partial<Messages>>;
  /** Rows past which the dashboard shows an estimated count on PostgreSQL and MariaDB (default 100 000). */
  exactCountLimit?: number;
  /** Record sign-ins, failed sign-ins, sign-outs, creates, updates (a before/after diff), deletes and list views in `admin_events`, shown at `{mount}/management/events` (default false). */
  eventIntegration?: boolean;
  /**
   * Days refused sign-ins stay in the event log (default 30): anyone can cause them, for any
   * name, so older ones are deleted as new ones come. Other events are kept.
   */
  signInFailureRetentionDays?: number;
  /** Where an error no page expected is reported (its page says nothing of it); default `console`. */
  logger?: ErrorLogger;
  /**
   * Admin users with roles: the roles come from `access.roles` (the account plugin's), an
   * admin user is given some on the admin users page, and one holding roles sees and does
   * only what each model's access policy lets a principal with them (lists, counts, forms,
   * exports, imports, bulk delete and `/crud`); one without roles keeps full access.
   */
  access?: AdminAccessOptions;
  /** The app users' API keys (the account plugin's `apiKeys`): a page lists a user's keys and revokes one. */
  apiKeys?: OperatorApiKeys;
  /** Table names (default `admin_users`, `admin_sessions`, `admin_login_failures`, `admin_events`, `admin_user_roles`). */
  tables?: { users?: string; sessions?: string; loginFailures?: string; events?: string; userRoles?: string };
}

/** The admin's own sessions. */
export interface AdminSessionOptions {
  /** Where sessions live (default: the `admin_sessions` table; pass a Redis store to share them otherwise). */
  store?: SessionStore;
  /** A session unused this long ends (default 30 minutes). */
  idleTimeoutSeconds?: number;
  /** A session ends this long after sign-in (default 12 hours). */
  absoluteTimeoutSeconds?: number;
  /** Most live sessions per admin user; a new one ends the least recently used (default 5). */
  maxSessionsPerUser?: number;
}

/** The admin's look. */
export interface AdminTheme {
  /** Shown in the header and the page titles (default `crudsmith admin`). */
  title?: string;
  /** `light` or `dark` for every reader (default: each reader's system preference); the page's toggle overrides it per browser. */
  scheme?: 'light' | 'dark';
}

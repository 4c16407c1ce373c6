import type { Knex } from 'knex';
import { IsBoolean, IsEmail, IsInt, IsOptional, IsString, Matches, MaxLength, Min, MinLength } from 'class-validator';
import { randomToken, type HashPool, type OperatorApiKeys, type SessionStore } from '@crudsmith/core/auth';
import { admin, type AdminPlugin, type RoleCatalogue } from '@crudsmith/admin';
import { RateLimit, Tier, sanitizePath, type TierService } from '@crudsmith/rate-limit';
import { Item, ItemCreate, ItemUpdate } from './models/item';
import { Note, NoteUpdate } from './models/note';
import { Post } from './models/post';
import { Tag, TagWrite } from './models/tag';
import { User } from './models/user';
import { POST_TEXT_MAX } from './text-limits';

const USERNAME = /^[a-z0-9]+$/;

/** A user as the admin creates it: the password is hashed into `hashed_password`. */
class AdminUserCreate {
  @IsString() @MinLength(2) @MaxLength(30) name!: string;
  @IsString()
  @MinLength(2)
  @MaxLength(20)
  @Matches(USERNAME, { message: 'username may hold lower-case letters and digits only' })
  username!: string;
  @IsEmail() @MaxLength(50) email!: string;
  @IsString() @MinLength(8) @MaxLength(1024) password!: string;
  @IsOptional() @IsInt() tier_id?: number | null;
  @IsOptional() @IsBoolean() is_superuser?: boolean;
}

/** A user's fields the admin may change; an empty password is left as it is. */
class AdminUserUpdate {
  @IsOptional() @IsString() @MinLength(2) @MaxLength(30) name?: string;
  @IsOptional()
  @IsString()
  @MinLength(2)
  @MaxLength(20)
  @Matches(USERNAME, { message: 'username may hold lower-case letters and digits only' })
  username?: string;
  @IsOptional() @IsEmail() @MaxLength(50) email?: string;
  @IsOptional() @IsString() @MinLength(8) @MaxLength(1024) password?: string;
  @IsOptional() @IsInt() tier_id?: number | null;
  @IsOptional() @IsBoolean() is_superuser?: boolean;
}

class AdminPostCreate {
  @IsString() @MinLength(1) @MaxLength(100) title!: string;
  @IsString() @MinLength(1) @MaxLength(POST_TEXT_MAX) text!: string;
  @IsInt() author_id!: number;
}

class AdminPostUpdate {
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) title?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(POST_TEXT_MAX) text?: string;
}

class AdminTierWrite {
  @IsString() @MinLength(1) @MaxLength(100) name!: string;
  @IsOptional() @IsString() @MaxLength(1000) description?: string | null;
}

class AdminRateLimitCreate {
  @IsInt() tier_id!: number;
  @IsString() @MinLength(1) @MaxLength(100) name!: string;
  @IsString() @MinLength(1) @MaxLength(255) path!: string;
  @IsInt() @Min(0) limit!: number;
  @IsInt() @Min(1) period!: number;
}

class AdminRateLimitUpdate {
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) name?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255) path?: string;
  @IsOptional() @IsInt() @Min(0) limit?: number;
  @IsOptional() @IsInt() @Min(1) period?: number;
}

/** What the example's admin needs from the app. */
export interface ExampleAdminOptions {
  secretKey: () => Promise<string>;
  secureCookies?: boolean;
  bcryptRounds?: number;
  /** Admin sessions beside the account sessions (Redis when REDIS_URL is set); the database by default. */
  sessionStore?: SessionStore;
  /** Tier and limit writes through the admin drop every process's limit caches, as the API's do. */
  tiers: TierService;
  /** The bcrypt pool the account plugin uses too. */
  hashPool?: HashPool;
  /** Lifts an API user's sign-in lockout (the account plugin's `unlock`, in the admin's transaction): the users view's Unlock button. */
  unlockUser?: (id: string | number, trx?: Knex.Transaction) => Promise<void>;
  /** Whether an API user is locked out (the account plugin's `isLocked`): the Unlock button shows only then. */
  isUserLocked?: (id: string | number) => Promise<boolean>;
  /** Ends an API user's sessions and tokens (the account plugin's `signOutEverywhere`): after a password set, delete or restore, and the users view's button. */
  signOutUser?: (id: string | number, trx?: Knex.Transaction) => Promise<void>;
  /** The roles (the account plugin's `roles`): admin users may hold them, and the roles page assigns users' roles. */
  roles?: RoleCatalogue;
  /** The users' API keys (the account plugin's `apiKeys`): the API keys page lists and revokes them. */
  apiKeys?: OperatorApiKeys;
}

/**
 * `/admin` over items, users (password hashed, tier as a select), posts (tags as a
 * multi-select), tags, tiers and rate limits. Rate-limit paths are stored sanitized and every tier or limit change reaches
 * the limiter's caches in every process, as through the API.
 */
export function exampleAdmin(knex: Knex, options: ExampleAdminOptions): AdminPlugin {
  const invalidate = () => options.tiers.invalidate();
  return admin({
    knex,
    mountPath: '/admin',
    secretKey: options.secretKey,
    secureCookies: options.secureCookies,
    bcryptRounds: options.bcryptRounds,
    hashPool: options.hashPool,
    session: { store: options.sessionStore },
    // Sign-ins, changes and views, at /admin/management/events.
    eventIntegration: true,
    // An admin user given roles (viewer, editor, admin) acts, under the notes' policy, as the
    // API user of the same name, so "own notes" are that user's; one without roles has full access.
    access: options.roles && {
      roles: options.roles,
      principal: async (user, held) => {
        const row = await knex('users').where({ username: user.username }).first('id');
        // No API user of that name: id 0, which owns no row.
        const id = row ? Number(row.id) : 0;
        return { id, tierId: null, isSuperuser: false, scopes: [], ...held, transport: 'admin' };
      },
    },
    apiKeys: options.apiKeys,
    models: {
      items: {
        model: Item,
        allowedActions: ['view', 'create', 'update', 'delete'],
        createSchema: ItemCreate,
        updateSchema: ItemUpdate,
        displayField: 'name',
        export: true,
        import: true,
      },
      users: {
        model: User,
        allowedActions: ['view', 'create', 'update', 'delete'],
        createSchema: AdminUserCreate,
        updateSchema: AdminUserUpdate,
        selectSchema: ['id', 'username', 'name', 'email', 'tier_id', 'is_superuser', 'is_verified', 'created_at'],
        passwordTransformer: { field: 'password', column: 'hashed_password' },
        displayField: 'username',
        references: { tier_id: 'tiers' },
        unlock: options.unlockUser,
        isLocked: options.isUserLocked,
        signOutEverywhere: options.signOutUser,
        // An address the admin types is not proven: the user verifies it again.
        verifiedEmail: { column: 'email', flag: 'is_verified' },
      },
      posts: {
        model: Post,
        allowedActions: ['view', 'create', 'update', 'delete'],
        createSchema: AdminPostCreate,
        updateSchema: AdminPostUpdate,
        displayField: 'title',
        references: { author_id: 'users' },
        // The post's `tags` relation is a searchable multi-select, written with the post.
      },
      tags: {
        model: Tag,
        allowedActions: ['view', 'create', 'update', 'delete'],
        createSchema: TagWrite,
        updateSchema: TagWrite,
        displayField: 'name',
      },
      // Notes are created through the API (their owner is the caller); the admin reads,
      // edits and deletes them as the notes' policy lets each admin user.
      notes: {
        model: Note,
        allowedActions: ['view', 'update', 'delete'],
        createSchema: ['title', 'body', 'shared'],
        updateSchema: NoteUpdate,
        displayField: 'title',
        export: true,
      },
      tiers: {
        model: Tier,
        allowedActions: ['view', 'create', 'update'],
        createSchema: AdminTierWrite,
        updateSchema: AdminTierWrite,
        displayField: 'name',
        afterWrite: invalidate,
      },
      rate_limits: {
        model: RateLimit,
        allowedActions: ['view', 'create', 'update', 'delete'],
        createSchema: AdminRateLimitCreate,
        updateSchema: AdminRateLimitUpdate,
        references: { tier_id: 'tiers' },
        beforeWrite: (values) =>
          typeof values.path === 'string' ? { ...values, path: sanitizePath(values.path) } : values,
        afterWrite: invalidate,
      },
    },
  });
}

/**
 * Creates the first admin user when there is none: ADMIN_USERNAME / ADMIN_PASSWORD, the
 * same credentials as the first API superuser. Without ADMIN_PASSWORD a random password is
 * generated and printed once; it is stored only as a hash.
 */
export async function ensureFirstAdmin(
  panel: AdminPlugin,
  first: { username: string; password?: string },
  log: (line: string) => void = console.log,
): Promise<void> {
  if ((await panel.countAdminUsers()) > 0) return;
  const password = first.password ?? randomToken(18);
  await panel.createAdminUser(first.username, password);
  if (first.password) log(`Created the admin user ${first.username} for /admin (password from ADMIN_PASSWORD).`);
  else log(`Created the admin user ${first.username} for /admin with the password ${password} (shown once).`);
}

import type { Knex } from 'knex';
import {
  ConflictError,
  CrudRepository,
  DuplicateValueError,
  ForbiddenError,
  NotFoundError,
  parseListQuery,
  validateBody,
  type CustomFilter,
  type Dependency,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AccountPlugin, AccountUser } from '@crudsmith/account';
import type { AvatarStore } from '../avatars';
import { User, UserUpdate } from '../models/user';

type Row = Record<string, unknown>;

// `email__same_text=x`: equal ignoring case, as the unique indexes on lower(column) compare,
// so a clash is found before the database refuses it and answered with the column's name.
const sameText: CustomFilter = (column) => (qb, value) => {
  qb.whereRaw('lower(??) = ?', [column, String(value).toLowerCase()]);
};

/**
 * The `users` table through the library's repository: reads leave soft-deleted users out
 * unless they ask for them, an update stamps `updated_at`, a delete is soft. The model
 * has no objection hooks, so its writes go straight through knex.
 */
export const userRepository = new CrudRepository(User, { customFilters: { same_text: sameText } });

/** The hand-written lists' paging: `page` from 1, `items_per_page` 1 to 100, 10 by default. */
const PAGES = { maxLimit: 100, defaultLimit: 10, pagesOnly: true } as const;

const MAX_ID = userRepository.info.columns.get('id')?.maximum ?? Number.MAX_SAFE_INTEGER;
// Uploads racing for one user's avatar: each lost swap rereads the row and tries again.
const AVATAR_SWAP_ATTEMPTS = 10;

/**
 * The user a path's `user_id` names (a live one unless `includeDeleted`), or 404. A value
 * that can name no user (`abc`, 0, past the id column's range) is a 404 as well, not a
 * 422: to the caller it is one more id that does not exist.
 */
export async function userAt(knex: Knex, userId: string, options: { includeDeleted?: boolean } = {}): Promise<Row> {
  const id = /^\d{1,16}$/.test(userId) ? Number(userId) : 0;
  return found(id >= 1 && id <= MAX_ID ? await userRepository.get(knex, { id }, options) : null);
}

function found(row: Row | null): Row {
  if (!row) throw new NotFoundError('User not found');
  return row;
}

/**
 * The data access and rules every version of the users routes shares (versions share
 * dependencies and data access; only schemas and endpoints differ). Rows are the
 * repository's (dates as Dates, flags as booleans); each version serialises them its own way.
 */
export interface UserAccess {
  /** Any signed-in user (401 otherwise). */
  signedIn: Dependency<AccountUser | null>;
  /** A signed-in superuser (401, 403). */
  superuser: Dependency<AccountUser | null>;
  /** A caller in sudo mode (POST /sudo in the last minutes; 403 otherwise). */
  sudo: Dependency<AccountUser>;
  /** The live user `:user_id` names, or 404. */
  find(req: NeutralRequest): Promise<Row>;
  /** The live user with this id (one just created or signed in), or 404. */
  get(id: string | number): Promise<Row>;
  /** The caller, when they are that user or a superuser; 403 for anyone else, whether or not the id exists. */
  mayChange(req: NeutralRequest): Promise<AccountUser>;
  /**
   * One page of live users in id order, from `page` and `items_per_page`, with their total
   * when `count` asks. No `sort`: ordering by a column a reader never sees (a password
   * hash) would still tell them something about it.
   */
  list(
    req: NeutralRequest,
    options: { count: boolean },
  ): Promise<{ rows: Row[]; total?: number; page: number; perPage: number }>;
  /** Creates a user from a validated UserCreate body (409 for a taken name or e-mail), hashing within `client`'s bound (429 beyond). */
  create(body: Record<string, unknown>, client: string): Promise<AccountUser>;
  /** PATCH: that user or a superuser, a UserUpdate body, 409 on a taken name or e-mail; the updated row. */
  update(req: NeutralRequest): Promise<Row>;
  /** Soft delete by that user or a superuser; signs the user out everywhere. */
  softDelete(req: NeutralRequest): Promise<void>;
  /** Hard delete (the route needs a superuser), soft-deleted users too, with their avatar file. */
  hardDelete(req: NeutralRequest): Promise<void>;
  /** Stores the multipart `file` as the avatar of that user (or by a superuser); the updated row. */
  setAvatar(req: NeutralRequest): Promise<Row>;
}

/** The users data access over the app's `users` table and the account plugin. */
export function userAccess(knex: Knex, auth: AccountPlugin, avatars: AvatarStore): UserAccess {
  const signedIn = auth.currentUser();
  const find = (req: NeutralRequest): Promise<Row> => userAt(knex, req.params.user_id);
  const mayChange = async (req: NeutralRequest): Promise<AccountUser> => {
    const me = (await req.resolve(signedIn))!;
    if (String(me.id) !== req.params.user_id && !me.is_superuser)
      throw new ForbiddenError('Not allowed to change another user');
    return me;
  };

  return {
    signedIn,
    superuser: auth.currentUser({ superuser: true }),
    sudo: auth.requireSudo(),
    find,
    mayChange,

    get: async (id) => found(await userRepository.get(knex, { id })),

    async list(req, { count }) {
      const page = parseListQuery(req.query, PAGES);
      const { data, total_count } = await userRepository.getMulti(knex, {
        offset: page.offset,
        limit: page.limit,
        returnTotalCount: count,
      });
      return { rows: data, total: total_count, page: page.page, perPage: page.itemsPerPage };
    },

    create: (body, client) =>
      auth.createUser(body as { username: string; email: string; password: string; name: string }, {}, { client }),

    async update(req) {
      await mayChange(req);
      const row = await find(req);
      const changes = await validateBody(UserUpdate, req.body);
      for (const column of ['username', 'email'] as const) {
        const value = changes[column];
        // A soft-deleted user keeps their name and e-mail: taking them is a clash too.
        const clash =
          typeof value === 'string' &&
          (await userRepository.exists(
            knex,
            { [`${column}__same_text`]: value, id__ne: row.id },
            { includeDeleted: true },
          ));
        if (clash) throw new DuplicateValueError(`${column === 'email' ? 'Email' : 'Username'} already registered`);
      }
      const values: Record<string, unknown> = { ...changes };
      // A new address is not verified until its owner confirms it (through /auth/email/change-request,
      // it is): a flag carried over would let anyone claim someone else's address as verified.
      if (typeof changes.email === 'string' && changes.email.toLowerCase() !== String(row.email).toLowerCase())
        values.is_verified = false;
      if (Object.keys(values).length > 0) await userRepository.update(knex, values, { filters: { id: row.id } });
      return find(req);
    },

    async softDelete(req) {
      await mayChange(req);
      const row = await find(req);
      await userRepository.delete(knex, { id: row.id });
      // Signed out everywhere at once (the plugin also refuses deleted users on every request).
      await auth.signOutEverywhere(row.id as number);
    },

    async hardDelete(req) {
      const row = await userAt(knex, req.params.user_id, { includeDeleted: true });
      await auth.signOutEverywhere(row.id as number);
      await userRepository.dbDelete(knex, { id: row.id });
      await avatars.remove(row.profile_image_url);
    },

    async setAvatar(req) {
      await mayChange(req);
      const row = await find(req);
      let current = (row.profile_image_url ?? null) as string | null;
      const url = await avatars.save(req);
      try {
        // Swapped only while the row still holds the URL this upload replaces (one UPDATE,
        // so two concurrent uploads cannot both replace the same file): each upload then
        // removes exactly the file it replaced, and none is left behind.
        for (let attempt = 1; ; attempt++) {
          const swapped = await knex('users')
            .where({ id: row.id, is_deleted: false, profile_image_url: current })
            .update({ profile_image_url: url, updated_at: new Date() });
          if (swapped === 1) break;
          if (attempt >= AVATAR_SWAP_ATTEMPTS)
            throw new ConflictError('The avatar is being changed by another upload; try again');
          current = ((await find(req)).profile_image_url ?? null) as string | null;
        }
      } catch (error) {
        await avatars.remove(url);
        throw error;
      }
      await avatars.remove(current);
      return find(req);
    },
  };
}

/** A route of one users version. */
export type UserRouteMaker = (
  spec: `${RouteDescriptor['method']} ${string} ${string}`,
  dependencies: RouteDescriptor['dependencies'],
  handler: (req: NeutralRequest) => Promise<NeutralResult>,
) => RouteDescriptor;

/** Makes users routes from `'METHOD /path name'` under `base.path` (`/users`, relative to the version), operations `<prefix>_<name>`. */
export function userRouteMaker(base: { path: string; operationPrefix: string }): UserRouteMaker {
  return (spec, dependencies, handler) => {
    const [method, path, name] = spec.split(' ') as [RouteDescriptor['method'], string, string];
    const operation = `${base.operationPrefix}_${name}`;
    return {
      method,
      path: `${base.path}${path}`,
      operation,
      dependencies,
      handler,
      doc: { operationId: operation, tags: ['users'] },
    };
  };
}

/**
 * `POST /:user_id/avatar` (that user or a superuser; multipart `file`), answering the
 * updated user as `answer` serialises it. Its body limit is the avatar limit's, not the
 * app's JSON limit.
 */
export function userAvatarRoute(
  route: UserRouteMaker,
  using: { users: UserAccess; avatars: AvatarStore; answer: (row: Row) => unknown },
): RouteDescriptor {
  const { users, avatars, answer } = using;
  const upload = route(
    'POST /:user_id/avatar avatar',
    [...avatars.uploadDependencies, users.signedIn],
    async (req) => ({ status: 200, json: await answer(await users.setAvatar(req)) }),
  );
  return {
    ...upload,
    bodyLimit: avatars.bodyLimit,
    doc: {
      ...upload.doc!,
      requestBodyContentTypes: ['multipart/form-data'],
      requestBody: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] },
    },
  };
}

/** DELETE (soft, that user or a superuser) and DELETE /permanent (superuser): the same answers in every version. */
export function userDeleteRoutes(route: UserRouteMaker, users: UserAccess): RouteDescriptor[] {
  return [
    route('DELETE /:user_id delete', [users.signedIn], async (req) => {
      await users.softDelete(req);
      return { status: 200, json: { message: 'User deleted' } };
    }),

    // Sensitive: a superuser who confirmed their password (or code) at POST /sudo in the last minutes.
    route('DELETE /:user_id/permanent delete_permanent', [users.superuser, users.sudo], async (req) => {
      await users.hardDelete(req);
      return { status: 200, json: { message: 'User deleted from the database' } };
    }),
  ];
}

import type { Knex } from 'knex';
import {
  DuplicateValueError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  validateBody,
  type Dependency,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AccountPlugin, AccountUser } from '@crudsmith/account';
import type { AvatarStore } from '../avatars';
import { UserUpdate } from '../models/user';

type Row = Record<string, unknown>;

/**
 * The data access and rules every version of the users routes shares (spec Versioning 2:
 * versions share dependencies and data access; only schemas and endpoints differ).
 * Rows are the `users` table's; each version serialises them its own way.
 */
export interface UserAccess {
  /** Any signed-in user (401 otherwise). */
  signedIn: Dependency<AccountUser | null>;
  /** A signed-in superuser (401, 403). */
  superuser: Dependency<AccountUser | null>;
  /** The live user `:user_id` names, or 404. */
  find(req: NeutralRequest): Promise<Row>;
  /** The live user with this id (one just created or signed in), or 404. */
  get(id: string | number): Promise<Row>;
  /** The caller, when they are that user or a superuser; 403 for anyone else, whether or not the id exists. */
  mayChange(req: NeutralRequest): Promise<AccountUser>;
  /** One page of live users by id, from `page` (≥ 1, default 1) and `items_per_page` (1–100, default 10). */
  page(req: NeutralRequest): Promise<{ rows: Row[]; page: number; perPage: number }>;
  /** How many live users there are. */
  countLive(): Promise<number>;
  /** Creates a user from a validated UserCreate body (409 for a taken name or e-mail). */
  create(body: Record<string, unknown>): Promise<AccountUser>;
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
  const live = () => knex('users').where('is_deleted', false);
  const find = async (req: NeutralRequest): Promise<Row> => {
    const id = Number(req.params.user_id);
    const row = Number.isSafeInteger(id) && /^\d+$/.test(req.params.user_id) ? await live().where('id', id).first() : undefined;
    if (!row) throw new NotFoundError('User not found');
    return row;
  };
  const mayChange = async (req: NeutralRequest): Promise<AccountUser> => {
    const me = (await req.resolve(signedIn))!;
    if (String(me.id) !== req.params.user_id && !me.is_superuser) throw new ForbiddenError('Not allowed to change another user');
    return me;
  };

  return {
    signedIn,
    superuser: auth.currentUser({ superuser: true }),
    find,
    mayChange,

    async get(id) {
      const row = await live().where('id', id).first();
      if (!row) throw new NotFoundError('User not found');
      return row;
    },

    async page(req) {
      const page = intParam(req, 'page', { min: 1, fallback: 1 });
      const perPage = intParam(req, 'items_per_page', { min: 1, max: 100, fallback: 10 });
      return { rows: await live().orderBy('id').offset((page - 1) * perPage).limit(perPage), page, perPage };
    },

    async countLive() {
      const row = await live().count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },

    create: (body) => auth.createUser(body as { username: string; email: string; password: string; name: string }),

    async update(req) {
      await mayChange(req);
      const row = await find(req);
      const changes = await validateBody(UserUpdate, req.body);
      for (const column of ['username', 'email'] as const) {
        const value = changes[column];
        if (typeof value !== 'string') continue;
        const clash = await knex('users').whereRaw('lower(??) = ?', [column, value.toLowerCase()]).whereNot('id', row.id as number).first('id');
        if (clash) throw new DuplicateValueError(`${column === 'email' ? 'Email' : 'Username'} already registered`);
      }
      if (Object.keys(changes).length > 0) await knex('users').where('id', row.id as number).update({ ...changes, updated_at: new Date() });
      return find(req);
    },

    async softDelete(req) {
      await mayChange(req);
      const row = await find(req);
      await knex('users').where('id', row.id as number).update({ is_deleted: true, deleted_at: new Date() });
      // Signed out everywhere at once (the plugin also refuses deleted users on every request).
      await auth.signOutEverywhere(row.id as number);
    },

    async hardDelete(req) {
      const id = /^\d+$/.test(req.params.user_id) ? Number(req.params.user_id) : NaN;
      const row = Number.isSafeInteger(id) ? await knex('users').where('id', id).first('id', 'profile_image_url') : undefined;
      if (!row) throw new NotFoundError('User not found');
      await auth.signOutEverywhere(id);
      await knex('users').where('id', id).delete();
      await avatars.remove(row.profile_image_url);
    },

    async setAvatar(req) {
      await mayChange(req);
      const row = await find(req);
      const url = await avatars.save(req);
      await knex('users').where('id', row.id as number).update({ profile_image_url: url, updated_at: new Date() });
      await avatars.remove(row.profile_image_url);
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
    return { method, path: `${base.path}${path}`, operation, dependencies, handler, doc: { operationId: operation, tags: ['users'] } };
  };
}

/**
 * `POST /:user_id/avatar` (that user or a superuser; multipart `file`), answering the
 * updated user as `answer` serialises it. Its body limit is the avatar limit's, not the
 * app's JSON limit.
 */
export function userAvatarRoute(route: UserRouteMaker, using: { users: UserAccess; avatars: AvatarStore; answer: (row: Row) => unknown }): RouteDescriptor {
  const { users, avatars, answer } = using;
  const upload = route('POST /:user_id/avatar avatar', [users.signedIn], async (req) => ({ status: 200, json: await answer(await users.setAvatar(req)) }));
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

    route('DELETE /:user_id/permanent delete_permanent', [users.superuser], async (req) => {
      await users.hardDelete(req);
      return { status: 200, json: { message: 'User deleted from the database' } };
    }),
  ];
}

function intParam(req: NeutralRequest, name: string, range: { min: number; max?: number; fallback: number }): number {
  const raw = req.query[name];
  if (raw === undefined) return range.fallback;
  const text = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  const value = /^[+-]?\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < range.min || (range.max !== undefined && value > range.max)) {
    const bound = range.max === undefined ? `at least ${range.min}` : `between ${range.min} and ${range.max}`;
    throw ValidationError.of(['query', name], `Input should be an integer ${bound}`, 'int_parsing');
  }
  return value;
}

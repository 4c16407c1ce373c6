import type { Knex } from 'knex';
import {
  DuplicateValueError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  validateBody,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AccountPlugin, AccountUser } from '@crudsmith/account';
import { toUserRead, UserCreate, UserUpdate } from '../models/user';

type Row = Record<string, unknown>;

/**
 * The v1 users routes of spec section C over the account plugin's user model, with
 * DESIGN §4/§8's rules: PATCH and DELETE need that user or a superuser (401/403), a
 * duplicate username or e-mail is 409, and answers are UserRead (no secret ever).
 */
export function userRoutes(knex: Knex, auth: AccountPlugin): RouteDescriptor[] {
  const signedIn = auth.currentUser();
  const superuser = auth.currentUser({ superuser: true });
  const live = () => knex('users').where('is_deleted', false);
  const find = async (req: NeutralRequest): Promise<Row> => {
    const id = Number(req.params.user_id);
    const row = Number.isSafeInteger(id) && /^\d+$/.test(req.params.user_id) ? await live().where('id', id).first() : undefined;
    if (!row) throw new NotFoundError('User not found');
    return row;
  };
  // That user or a superuser; anyone else is 403, whether or not the id exists.
  const mayChange = async (req: NeutralRequest): Promise<AccountUser> => {
    const me = (await req.resolve(signedIn))!;
    if (String(me.id) !== req.params.user_id && !me.is_superuser) throw new ForbiddenError('Not allowed to change another user');
    return me;
  };
  const route = (spec: `${RouteDescriptor['method']} ${string} ${string}`, dependencies: RouteDescriptor['dependencies'], handler: (req: NeutralRequest) => Promise<NeutralResult>): RouteDescriptor => {
    const [method, path, operation] = spec.split(' ') as [RouteDescriptor['method'], string, string];
    return { method, path: `/api/v1/users${path}`, operation: `users_${operation}`, dependencies, handler, doc: { operationId: `users_${operation}`, tags: ['users'] } };
  };

  return [
    route('POST / create', [], async (req) => {
      const body = await validateBody(UserCreate, req.body);
      const user = await auth.createUser(body as { username: string; email: string; password: string; name: string });
      return { status: 201, json: toUserRead(user) };
    }),

    route('GET / list', [], async (req) => {
      const page = intParam(req, 'page', { min: 1, fallback: 1 });
      const perPage = intParam(req, 'items_per_page', { min: 1, max: 100, fallback: 10 });
      const rows = await live().orderBy('id').offset((page - 1) * perPage).limit(perPage);
      return { status: 200, json: rows.map(toUserRead) };
    }),

    route('GET /me me', [signedIn], async (req) => ({ status: 200, json: toUserRead((await req.resolve(signedIn))!) })),

    route('GET /:user_id read', [], async (req) => ({ status: 200, json: toUserRead(await find(req)) })),

    route('PATCH /:user_id update', [signedIn], async (req) => {
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
      return { status: 200, json: toUserRead(await find(req)) };
    }),

    route('DELETE /:user_id delete', [signedIn], async (req) => {
      await mayChange(req);
      const row = await find(req);
      await knex('users').where('id', row.id as number).update({ is_deleted: true, deleted_at: new Date() });
      // Signed out everywhere at once (the plugin also refuses deleted users on every request).
      await auth.signOutEverywhere(row.id as number);
      return { status: 200, json: { message: 'User deleted' } };
    }),

    route('DELETE /:user_id/permanent delete_permanent', [superuser], async (req) => {
      const id = /^\d+$/.test(req.params.user_id) ? Number(req.params.user_id) : NaN;
      const row = Number.isSafeInteger(id) ? await knex('users').where('id', id).first('id') : undefined;
      if (!row) throw new NotFoundError('User not found');
      await auth.signOutEverywhere(id);
      await knex('users').where('id', id).delete();
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

// Per-operation dependency lists (a dependency is resolved once per request) and the generic 500 of an unexpected error.
import { Model } from 'objection';
import { beforeAll, describe, expect, it } from 'vitest';
import { crudRouter, ForbiddenError, UnauthorizedError, type Dependency } from '@crudsmith/core';
import { itemOptions, storedRow, type Api, type CrudEnv } from './kit';

/** 401 without a token, 403 for a token that is not the admin's. */
const requireAdmin: Dependency<string> = (req) => {
  const auth = req.headers.authorization;
  if (!auth) throw new UnauthorizedError();
  if (auth !== 'Bearer admin') throw new ForbiddenError('Admins only');
  return 'admin';
};

class Ghost extends Model {
  static override tableName = 'ghosts_never_created';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, secret_column: { type: 'string' } },
  };
}

export function describeDependencies(env: CrudEnv): void {
  describe('dependencies (per-operation lists, once per request, errors)', () => {
    let guarded: Api;
    const admin = { authorization: 'Bearer admin' };
    const user = { authorization: 'Bearer user' };

    beforeAll(async () => {
      await env.resetItems();
      guarded = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            createDeps: [requireAdmin],
            readDeps: [requireAdmin],
            readMultiDeps: [requireAdmin],
            updateDeps: [requireAdmin],
            deleteDeps: [requireAdmin],
            dbDeleteDeps: [requireAdmin],
          }),
        ),
      );
    });

    it("runs each operation's dependencies: 401 without a credential, 403 with the wrong one", async () => {
      const calls: [string, (headers: Record<string, string>) => Promise<{ status: number }>][] = [
        ['create', (h) => guarded.post('/items', { name: 'Guarded' }, h)],
        ['read', (h) => guarded.get('/items/1', h)],
        ['readMulti', (h) => guarded.get('/items', h)],
        ['update', (h) => guarded.patch('/items/1', { price: 11 }, h)],
        ['delete', (h) => guarded.del('/items/2', h)],
        ['dbDelete', (h) => guarded.del('/items/db_delete/3', h)],
      ];
      for (const [op, call] of calls) {
        expect(await call({}), op).toMatchObject({ status: 401, body: { detail: 'Not authenticated' } });
        expect(await call(user), op).toMatchObject({ status: 403, body: { detail: 'Admins only' } });
      }
      expect(await env.knex('items').where({ name: 'Guarded' })).toEqual([]);
      expect(await storedRow(env.knex, 'items', 1)).toMatchObject({ is_deleted: false });
      expect((await guarded.get('/items/1', admin)).body).toMatchObject({ price: 10 });
      expect(await storedRow(env.knex, 'items', 2)).toMatchObject({ is_deleted: false });
      expect(await storedRow(env.knex, 'items', 3)).toBeDefined();
      for (const [op, call] of calls) expect((await call(admin)).status, op).toBeLessThan(300);
    });

    it('guards restore with deleteDeps unless restoreDeps is given', async () => {
      await env.knex('items').where({ id: 4 }).update({ is_deleted: true });
      expect((await guarded.post('/items/4/restore', undefined, user)).status).toBe(403);
      expect(await storedRow(env.knex, 'items', 4)).toMatchObject({ is_deleted: true });
      const open = await env.serve(
        crudRouter(itemOptions(env.knex, { path: '/opened', deleteDeps: [requireAdmin], restoreDeps: [] })),
      );
      expect((await open.post('/opened/4/restore')).status).toBe(200);
      expect(await storedRow(env.knex, 'items', 4)).toMatchObject({ is_deleted: false });
    });

    it('runs the dependencies before the body is validated', async () => {
      expect((await guarded.post('/items', { price: 'not a number' })).status).toBe(401);
      expect((await guarded.patch('/items/abc', { price: 'x' })).status).toBe(401);
    });

    it('resolves a dependency once per request, however many places use it', async () => {
      let calls = 0;
      const org: Dependency<string> = () => {
        calls++;
        return 'shared';
      };
      const orgLabel: Dependency<string> = async (req) => `label-${await req.resolve(org)}`;
      const api = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            path: '/once',
            createDeps: [org, orgLabel],
            readMultiDeps: [org],
            createConfig: { autoFields: { category: org, description: orgLabel } },
            filterConfig: { category: org },
            session: async (req) => {
              await req.resolve(org);
              return env.knex;
            },
          }),
        ),
      );
      const created = await api.post('/once', { name: 'Once' });
      expect(created.body).toMatchObject({ category: 'shared', description: 'label-shared' });
      expect(calls).toBe(1);
      const list = await api.get('/once');
      expect(list.body.data.map((row: { name: string }) => row.name)).toEqual(['Once']);
      expect(calls).toBe(2);
    });

    it('answers an unexpected error with 500 and a generic detail, and logs it', async () => {
      const failing = await env.serve(
        crudRouter(
          itemOptions(env.knex, {
            path: '/failing',
            readDeps: [
              () => {
                throw new Error('secret: connection string postgres://admin:hunter2@db');
              },
            ],
          }),
        ),
      );
      const res = await failing.get('/failing/1');
      expect(res).toMatchObject({ status: 500, body: { detail: 'Internal server error' } });
      expect(JSON.stringify(res.body)).not.toContain('hunter2');
      const ghosts = await env.serve(
        crudRouter({ session: env.knex, model: Ghost, path: '/ghosts', includedMethods: ['read', 'readMulti'] }),
      );
      for (const path of ['/ghosts', '/ghosts/1']) {
        const missing = await ghosts.get(path);
        expect(missing, path).toMatchObject({ status: 500, body: { detail: 'Internal server error' } });
        expect(JSON.stringify(missing.body)).not.toMatch(/ghosts_never_created|secret_column|select/i);
      }
      expect(env.logged.length).toBeGreaterThanOrEqual(3);
      env.logged.length = 0;
    });
  });
}

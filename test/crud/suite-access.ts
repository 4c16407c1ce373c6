// A model's access policy on the generated routes: who may call each operation (401 vs
// 403), which rows it reaches (lists, counts, cursor pages, reads, writes, joins and
// dotted filters) and which fields it reads and writes. The caller is the app's own
// principal dependency, given to bootstrap: here a header naming a user and its roles.
import { beforeAll, describe, expect, it } from 'vitest';
import { Model } from 'objection';
import { Access, bootstrap, crudRouter, type Principal } from '@crudsmith/core';
import type { Api, CrudEnv } from './kit';

@Access({
  read: { rows: { owner_id: (p: Principal) => p.id }, fields: { except: ['code'] } },
})
class Folder extends Model {
  static override tableName = 'ac_folders';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      owner_id: { type: 'integer' },
      code: { type: 'string' },
    },
  };
}

const isEditor = (p: Principal) => p.roles?.includes('editor') ?? false;
// `remark` shows to editors on every note, to anyone else on their own notes only.
const remarkShown = {
  remark: (p: Principal) => isEditor(p) || ((row: { owner_id?: unknown }) => row.owner_id === p.id),
};

@Access({
  default: {},
  list: {
    rows: { _or: { shared: true, owner_id: (p: Principal) => p.id } },
    fields: (p) => (isEditor(p) ? { except: [] } : { except: ['secret'] }),
    rowFields: remarkShown,
  },
  read: {
    rows: { _or: { shared: true, owner_id: (p: Principal) => p.id } },
    fields: { except: ['secret'] },
    rowFields: remarkShown,
  },
  update: {
    rows: (qb, p, table) => void (isEditor(p) ? qb : qb.where(`${table}.owner_id`, p.id)),
    fields: { except: ['owner_id'] },
  },
  delete: { roles: ['admin'] },
  create: { rows: { shared: false } },
})
class Note extends Model {
  static override tableName = 'ac_notes';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      title: { type: 'string' },
      owner_id: { type: 'integer' },
      shared: { type: 'boolean' },
      folder_id: { type: 'integer' },
      secret: { type: 'string' },
      remark: { type: 'string' },
    },
  };
  static override get relationMappings() {
    return {
      folder: {
        relation: Model.BelongsToOneRelation,
        modelClass: Folder,
        join: { from: 'ac_notes.folder_id', to: 'ac_folders.id' },
      },
    };
  }
}

// `x-user: 1` is user 1, `x-user: 5:editor` user 5 with the editor role, `x-user: root` a superuser.
async function principal(req: { headers: Record<string, string | string[] | undefined> }): Promise<Principal | null> {
  const header = req.headers['x-user'];
  if (typeof header !== 'string') return null;
  const [id, ...roles] = header.split(':');
  const base = { tierId: null, scopes: [], transport: 'bearer', roles, permissions: [] };
  return id === 'root' ? { ...base, id: 0, isSuperuser: true } : { ...base, id: Number(id), isSuperuser: false };
}

const as = (user: string) => ({ 'x-user': user });
const ids = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);

export function describeAccess(env: CrudEnv): void {
  describe('access policy: who, which rows, which fields', () => {
    let api: Api;

    beforeAll(async () => {
      const { knex } = env;
      await knex.schema.createTable('ac_folders', (t) => {
        t.increments('id');
        t.string('name', 20);
        t.integer('owner_id');
        t.string('code', 20);
      });
      await knex.schema.createTable('ac_notes', (t) => {
        t.increments('id');
        t.string('title', 20);
        t.integer('owner_id');
        t.boolean('shared').notNullable().defaultTo(false);
        t.integer('folder_id');
        t.string('secret', 20);
        t.string('remark', 20);
      });
      await knex('ac_folders').insert([
        { id: 1, name: 'a', owner_id: 1, code: 'c1' },
        { id: 2, name: 'b', owner_id: 2, code: 'c2' },
      ]);
      // Without ids, so the engine's sequence hands out the next ones (1 to 4 here) to the bulk creates.
      await knex('ac_notes').insert([
        { title: 'n1', owner_id: 1, shared: false, folder_id: 1, secret: 's1', remark: 'r1' },
        { title: 'n2', owner_id: 2, shared: true, folder_id: 2, secret: 's2', remark: 'r2' },
        { title: 'n3', owner_id: 2, shared: false, folder_id: 2, secret: 's3', remark: 'r3' },
        { title: 'n4', owner_id: 1, shared: false, folder_id: 2, secret: 's4', remark: 'r4' },
      ]);
      const router = crudRouter({
        session: knex,
        model: Note,
        path: '/notes',
        createSchema: ['title', 'shared'],
        updateSchema: ['title', 'owner_id', 'shared'],
        includeRelationships: ['folder'],
        filterConfig: { secret: null, title: null, remark: null, shared: null, 'folder.name': null },
        export: true,
        bulk: true,
      });
      api = await env.serve(bootstrap({ routers: [router], principal }).routes);
    });

    it('401 without a principal, 403 for a caller the rule refuses', async () => {
      expect((await api.get('/notes')).status).toBe(401);
      expect((await api.get('/notes/1')).status).toBe(401);
      expect((await api.del('/notes/1', as('1'))).status).toBe(403);
    });

    it('lists, counts, pages and reads only the rows in scope; 404 outside it; a superuser sees all', async () => {
      const list = await api.get('/notes?sort=id', as('1'));
      expect(ids(list.body)).toEqual([1, 2, 4]);
      expect(list.body.total_count).toBe(3);
      const first = await api.get('/notes?sort=id&limit=2&cursor=', as('1'));
      expect(ids(first.body)).toEqual([1, 2]);
      const second = await api.get(`/notes?sort=id&limit=2&cursor=${first.body.next_cursor}`, as('1'));
      expect([ids(second.body), second.body.next_cursor]).toEqual([[4], null]);
      expect((await api.get('/notes/3', as('1'))).status).toBe(404);
      const root = await api.get('/notes?sort=id', as('root'));
      expect([ids(root.body), root.body.total_count, root.body.data[2].secret]).toEqual([[1, 2, 3, 4], 4, 's3']);
    });

    it('update: 403 on a row readable but not writable, 404 outside the read scope, 422 on an unwritable field', async () => {
      expect((await api.patch('/notes/2', { title: 'x' }, as('1'))).status).toBe(403);
      expect((await api.patch('/notes/3', { title: 'x' }, as('1'))).status).toBe(404);
      // Nor does a stale If-Match tell it apart: 404, not 412.
      expect((await api.patch('/notes/3', { title: 'x' }, { ...as('1'), 'if-match': '"t.x.1"' })).status).toBe(404);
      const refused = await api.patch('/notes/1', { title: 'x', owner_id: 2 }, as('1'));
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'owner_id']);
      expect((await env.knex('ac_notes').where({ id: 1 }).first()).title).toBe('n1');
      expect((await api.patch('/notes/2', { title: 'n2' }, as('5:editor'))).status).toBe(200);
    });

    it('leaves unreadable fields out of answers, and refuses (400) filtering or sorting on them', async () => {
      const read = await api.get('/notes/1', as('1'));
      expect(read.body).not.toHaveProperty('secret');
      expect(read.body.folder).toEqual({ id: 1, name: 'a', owner_id: 1 });
      expect((await api.get('/notes?secret=s1', as('1'))).status).toBe(400);
      expect((await api.get('/notes?sort=secret', as('1'))).status).toBe(400);
      const editor = await api.get('/notes?sort=-secret&title=n3', as('5:editor'));
      expect(editor.body.data).toEqual([]);
      expect((await api.get('/notes?sort=secret', as('5:editor'))).status).toBe(200);
    });

    it('shows a per-row field only on the rows its rule allows, and refuses filtering or sorting on it', async () => {
      const list = await api.get('/notes?sort=id', as('1'));
      expect(list.body.data.map((n: { remark?: string }) => n.remark ?? null)).toEqual(['r1', null, 'r4']);
      expect(list.body.data[1]).not.toHaveProperty('remark');
      expect((await api.get('/notes/1', as('1'))).body.remark).toBe('r1');
      expect((await api.get('/notes/2', as('1'))).body).not.toHaveProperty('remark');
      // Neither a filter, a sort nor a cursor page ordered by it reveals the hidden values.
      expect((await api.get('/notes?remark=r2', as('1'))).status).toBe(400);
      expect((await api.get('/notes?sort=remark&limit=1&cursor=', as('1'))).status).toBe(400);
      const editor = await api.get('/notes?remark=r2', as('5:editor'));
      expect(editor.body.data.map((n: { remark: string }) => n.remark)).toEqual(['r2']);
      const exported = await api.get('/notes/export?format=csv&sort=-id', as('1'));
      expect((exported.body as string).split('\r\n').slice(0, 4)).toEqual([
        'id,title,owner_id,shared,folder_id,remark,folder',
        '4,n4,1,false,2,r4,',
        '2,n2,2,true,2,,',
        '1,n1,1,false,1,r1,"{""id"":1,""name"":""a"",""owner_id"":1}"',
      ]);
    });

    it('exports what the list shows the caller: its rows, without unreadable fields; hidden keys are a 400', async () => {
      expect((await api.get('/notes/export?format=ndjson')).status).toBe(401);
      const mine = await api.get('/notes/export?format=ndjson&sort=id', as('1'));
      const rows = (mine.body as string)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(rows.map((row) => row.id)).toEqual([1, 2, 4]);
      expect(rows.some((row) => 'secret' in row)).toBe(false);
      expect((await api.get('/notes/export?sort=secret', as('1'))).status).toBe(400);
    });

    it('never leaks a related row the caller may not read, through a join or a dotted filter', async () => {
      const list = await api.get('/notes?sort=id', as('1'));
      expect(list.body.data.map((n: { folder: unknown }) => n.folder)).toEqual([
        { id: 1, name: 'a', owner_id: 1 },
        null,
        null,
      ]);
      expect(ids((await api.get('/notes?folder.name=b', as('1'))).body)).toEqual([]);
      expect(ids((await api.get('/notes?folder.name=b&sort=id', as('root'))).body)).toEqual([2, 3, 4]);
    });

    it('bulk writes obey the rules of the operations they generalise, in their one statement', async () => {
      const send = (method: string, path: string, body: unknown, user: string) =>
        api.send(method, path, {
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...as(user) },
        });
      const titles = async () => (await env.knex('ac_notes').orderBy('id').select('title')).map((r) => r.title);
      const before = await titles();
      // Update: only the rows the caller reads and may change (note 3 is out of its reach).
      const updated = await api.patch('/notes/bulk', { filter: { shared: false }, set: { title: 'b' } }, as('1'));
      expect([updated.status, updated.body]).toEqual([200, { count: 2 }]);
      expect(await titles()).toEqual(['b', before[1], before[2], 'b']);
      const unwritable = await api.patch('/notes/bulk', { filter: { shared: false }, set: { owner_id: 1 } }, as('1'));
      expect([unwritable.status, unwritable.body.detail?.[0]?.loc]).toEqual([422, ['body', 'set', 'owner_id']]);
      for (const filter of [{ secret: 's1' }, { remark: 'r2' }])
        expect((await api.patch('/notes/bulk', { filter, set: { title: 'x' } }, as('1'))).status).toBe(400);
      // Create: every row must meet the create rule, or none is written (403).
      expect((await api.post('/notes/bulk', [{ title: 'c1' }, { title: 'c2', shared: true }], as('1'))).status).toBe(
        403,
      );
      expect((await api.post('/notes/bulk', [{ title: 'c1' }], as('1'))).status).toBe(201);
      expect(await titles()).toHaveLength(5);
      // Upsert: 403 on a row readable but not writable, 404 on one out of sight; a new row meets the create rule.
      expect((await send('PUT', '/notes/2', { title: 'x' }, '1')).status).toBe(403);
      expect((await send('PUT', '/notes/3', { title: 'x' }, '1')).status).toBe(404);
      expect((await send('PUT', '/notes/1', { title: 'p1' }, '1')).status).toBe(200);
      expect((await send('PUT', '/notes/99', { title: 'x', shared: true }, '1')).status).toBe(403);
      // Delete: who may (admins), and only the rows they read: note 3 stays.
      expect((await send('DELETE', '/notes/bulk', { ids: [2, 3] }, '1')).status).toBe(403);
      const removed = await send('DELETE', '/notes/bulk', { ids: [2, 3] }, '7:admin');
      expect([removed.status, removed.body]).toEqual([200, { count: 1 }]);
      expect(await titles()).toEqual(['p1', before[2], 'b', 'c1']);
    });
  });
}

// Memos under an access policy, the roles that read and write them, and their admin view:
// what the admin's access suite and its Chromium walk share.
import type { Knex } from 'knex';
import { Model } from 'objection';
import { Access, type MigrationSet, type Principal } from '@crudsmith/core';
import type { ModelView, RoleCatalogue } from '@crudsmith/admin';

const isEditor = (p: Principal) => p.roles?.includes('editor') ?? false;
const noSecret = (p: Principal) => (isEditor(p) ? { except: [] } : { except: ['secret'] });

/**
 * A memo: readers see the shared ones without their secret; editors see and change all;
 * others create shared ones only, a clerk without the title a memo needs; deleting is the editor's.
 */
@Access({
  list: {
    permissions: ['memos:read'],
    rows: (qb, p, table) => void (isEditor(p) ? qb : qb.where(`${table}.shared`, true)),
    fields: noSecret,
  },
  read: {
    permissions: ['memos:read'],
    rows: (qb, p, table) => void (isEditor(p) ? qb : qb.where(`${table}.shared`, true)),
    fields: noSecret,
  },
  create: {
    permissions: ['memos:write'],
    rows: (qb, p, table) => void (isEditor(p) ? qb : qb.where(`${table}.shared`, true)),
    fields: (p) => (p.roles?.includes('clerk') ? { except: ['secret', 'title'] } : noSecret(p)),
  },
  update: { permissions: ['memos:write'], fields: noSecret },
  delete: { roles: ['editor'] },
  restore: {
    permissions: ['memos:write'],
    rows: (qb, p, table) => void (isEditor(p) ? qb : qb.where(`${table}.shared`, true)),
  },
  hardDelete: { roles: ['editor'] },
})
export class Memo extends Model {
  static override tableName = 'memos';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      title: { type: 'string', maxLength: 40 },
      shared: { type: 'boolean' },
      secret: { type: ['string', 'null'], maxLength: 40 },
      is_deleted: { type: 'boolean' },
    },
  };
}

export const memoMigrations: MigrationSet = {
  name: 'admin-access-memos',
  migrations: {
    '0001_memos': {
      async up(knex) {
        await knex.schema.createTable('memos', (t) => {
          t.increments('id');
          t.string('title', 40).notNullable();
          t.boolean('shared').notNullable().defaultTo(false);
          t.string('secret', 40).nullable();
          t.boolean('is_deleted').notNullable().defaultTo(false);
        });
        await knex.schema.createTable('memo_pins', (t) => {
          t.increments('id');
          t.integer('memo_id').notNullable();
        });
      },
      async down(knex) {
        await knex.schema.dropTable('memo_pins');
        await knex.schema.dropTable('memos');
      },
    },
  },
};

/** The roles and their permissions, as the account plugin's `roles.list()` answers them. */
export const catalogue: RoleCatalogue = {
  list: async () => [
    { name: 'editor', permissions: ['memos:read', 'memos:write'] },
    { name: 'clerk', permissions: ['memos:read', 'memos:write'] },
    { name: 'viewer', permissions: ['memos:read'] },
    { name: 'writer', permissions: ['memos:read', 'memos:write'] },
  ],
};

/** A pin of a memo, without a policy of its own: its list shows the memo by title. */
export class MemoPin extends Model {
  static override tableName = 'memo_pins';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, memo_id: { type: 'integer' } },
  };
}

/** The memos' admin view: every action, exported and imported as CSV. */
export const memoView: ModelView = {
  model: Memo,
  allowedActions: ['view', 'create', 'update', 'delete'],
  createSchema: ['title', 'shared', 'secret'],
  updateSchema: ['title', 'shared', 'secret'],
  displayField: 'title',
  export: true,
  import: true,
};

/** The pins' admin view: `memo_id` a select of the memos. */
export const pinView: ModelView = {
  model: MemoPin,
  allowedActions: ['view', 'update'],
  createSchema: ['memo_id'],
  updateSchema: ['memo_id'],
  references: { memo_id: 'memos' },
};

/** Two memos, one shared; answers their ids. */
export async function seedMemos(knex: Knex): Promise<{ shared: number; hidden: number }> {
  await knex('memos').insert([
    { title: 'shared memo', shared: true, secret: 'shared-secret' },
    { title: 'private memo', shared: false, secret: 'private-secret' },
  ]);
  const rows = await knex('memos').orderBy('id').select('id');
  await knex('memo_pins').insert(rows.map((row) => ({ memo_id: row.id })));
  return { shared: Number(rows[0].id), hidden: Number(rows[1].id) };
}

/** An admin user to give roles to. */
export const VIEWER = { username: 'vera', password: 'a viewer password of some length' };

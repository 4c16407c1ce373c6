// Tickets under an access policy that lets support read more of a ticket than it may write:
// what the admin's read-only fields suite and its Chromium walk share.
import type { Knex } from 'knex';
import { Model } from 'objection';
import { Access, type MigrationSet, type Principal } from '@crudsmith/core';
import type { ModelView, RoleCatalogue } from '@crudsmith/admin';

const isLead = (p: Principal) => p.roles?.includes('lead') ?? false;

/** A ticket: support reads its status, flag and (on open tickets only) comment, and writes its title alone. */
@Access({
  list: { permissions: ['tickets:read'], rowFields: { comment: (p) => isLead(p) || ((row) => Boolean(row.open)) } },
  read: { permissions: ['tickets:read'], rowFields: { comment: (p) => isLead(p) || ((row) => Boolean(row.open)) } },
  update: {
    permissions: ['tickets:write'],
    fields: (p) => (isLead(p) ? { except: [] } : { except: ['status', 'open', 'comment', 'pin_hash'] }),
  },
})
export class Ticket extends Model {
  static override tableName = 'tickets';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      title: { type: 'string', maxLength: 40 },
      status: { type: 'string', enum: ['new', 'escalated', 'done'] },
      open: { type: 'boolean' },
      comment: { type: ['string', 'null'], maxLength: 40 },
      pin_hash: { type: ['string', 'null'] },
    },
  };
}

export const ticketMigrations: MigrationSet = {
  name: 'admin-read-only-fields-tickets',
  migrations: {
    '0001_tickets': {
      async up(knex) {
        await knex.schema.createTable('tickets', (t) => {
          t.increments('id');
          t.string('title', 40).notNullable();
          t.string('status', 20).notNullable().defaultTo('new');
          t.boolean('open').notNullable().defaultTo(false);
          t.string('comment', 40).nullable();
          t.string('pin_hash', 100).nullable();
        });
      },
      async down(knex) {
        await knex.schema.dropTable('tickets');
      },
    },
  },
};

export const ticketCatalogue: RoleCatalogue = {
  list: async () => [{ name: 'support', permissions: ['tickets:read', 'tickets:write'] }],
};

export const ticketView: ModelView = {
  model: Ticket,
  allowedActions: ['view', 'update'],
  createSchema: ['title', 'status', 'open', 'comment'],
  updateSchema: ['title', 'status', 'open', 'comment'],
  displayField: 'title',
};

/** The same tickets with a PIN kept as a hash: the hash column is in the update schema but never shown. */
export const pinnedTicketView: ModelView = {
  ...ticketView,
  passwordTransformer: { field: 'pin', column: 'pin_hash', hash: async (plain) => `hashed:${plain}` },
  updateSchema: ['title', 'status', 'pin', 'pin_hash'],
};

/** The hash the seeded tickets keep, to look for on pages that must not show it. */
export const PIN_HASH = 'hashed:pin-of-the-seeded-tickets';

/** An admin user to give the support role to. */
export const SUPPORT = { username: 'sam', password: 'a support password of some length' };

/** Two tickets, one open; answers their ids. */
export async function seedTickets(knex: Knex): Promise<{ open: number; closed: number }> {
  await knex('tickets').insert([
    { title: 'open ticket', status: 'escalated', open: true, comment: 'open-comment', pin_hash: PIN_HASH },
    { title: 'closed ticket', status: 'done', open: false, comment: 'closed-comment', pin_hash: PIN_HASH },
  ]);
  const rows = await knex('tickets').orderBy('id').select('id');
  return { open: Number(rows[0].id), closed: Number(rows[1].id) };
}

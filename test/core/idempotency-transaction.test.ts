// Idempotency keys kept in the router's own database, used inside a caller's transaction:
// a repeat's refused claim must not abort that transaction (on PostgreSQL a failed insert
// would), the claim and the answer commit or roll back with it, and a write that fails
// there is answered with its own error, not with the release's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { DuplicateValueError, idempotencyTableMigration, mapDatabaseError, type NeutralRequest } from '@crudsmith/core';
import { idempotencyOf, idempotent } from '../../core/src/crud/idempotency';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';

const settings = idempotencyOf(true)!;

function request(key: string, body: unknown): NeutralRequest {
  return {
    method: 'POST',
    path: '/rows',
    params: {},
    query: {},
    headers: { 'idempotency-key': key },
    cookies: {},
    body,
    files: [],
    clientAddress: '127.0.0.1',
    state: {},
    resolve: () => Promise.reject(new Error('no dependency is resolved here')),
  };
}

describe.each(ENGINES)('idempotent creates inside a transaction on %s', (engine) => {
  let db: TestDatabase;
  // Inserts the row and answers it, as a create does; `runs` counts the inserts.
  let runs = 0;
  const create = (trx: Knex, key: string, row: { id: number; name: string }, delayMs = 0) =>
    idempotent(settings, request(key, row), trx, async () => {
      runs++;
      await trx('idem_rows').insert(row);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { status: 201, json: row };
    });
  const names = async () => (await db.knex('idem_rows').orderBy('id')).map((row) => row.name);

  beforeAll(async () => {
    db = await openDatabase(engine);
    await idempotencyTableMigration().up(db.knex);
    await db.knex.schema.createTable('idem_rows', (t) => {
      t.integer('id').primary();
      t.string('name', 40).notNullable();
    });
  });
  afterAll(() => db?.destroy());

  it('replays a repeated key and the transaction goes on and commits, in a later transaction and in the same one', async () => {
    const first = await db.knex.transaction((trx) => create(trx, 'pen', { id: 1, name: 'pen' }));
    expect(first).toEqual({ status: 201, json: { id: 1, name: 'pen' } });
    await db.knex.transaction(async (trx) => {
      const again = await create(trx, 'pen', { id: 1, name: 'pen' });
      expect(again.headers?.['idempotent-replayed']).toBe('true');
      expect(again.json).toEqual(first.json);
      // The refused claim left the transaction usable.
      await trx('idem_rows').insert({ id: 2, name: 'after' });
    });
    await db.knex.transaction(async (trx) => {
      await create(trx, 'ink', { id: 3, name: 'ink' });
      const again = await create(trx, 'ink', { id: 3, name: 'ink' });
      expect(again.headers?.['idempotent-replayed']).toBe('true');
      await trx('idem_rows').insert({ id: 4, name: 'later' });
    });
    expect(runs).toBe(2);
    expect(await names()).toEqual(['pen', 'after', 'ink', 'later']);
  });

  it('takes the key back with a transaction that rolls back: a retry runs afresh', async () => {
    const undone = new Error('the caller rolls back');
    await expect(
      db.knex.transaction(async (trx) => {
        await create(trx, 'cup', { id: 5, name: 'cup' });
        throw undone;
      }),
    ).rejects.toBe(undone);
    const retried = await db.knex.transaction((trx) => create(trx, 'cup', { id: 5, name: 'cup' }));
    expect([retried.status, retried.headers?.['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await names()).toContain('cup');
  });

  it("answers a write that fails inside the transaction with the write's own error, and leaves the key free", async () => {
    const failed = db.knex.transaction((trx) => create(trx, 'twin', { id: 1, name: 'twin' }));
    const error = await failed.catch((caught: unknown) => caught);
    expect(mapDatabaseError(error)).toBeInstanceOf(DuplicateValueError);
    const retried = await db.knex.transaction((trx) => create(trx, 'twin', { id: 6, name: 'twin' }));
    expect(retried.status).toBe(201);
    expect(await names()).toContain('twin');
  });

  it('creates once of two concurrent transactions with one key: the other waits for its commit and replays it', async () => {
    const before = runs;
    const lamp = { id: 7, name: 'lamp' };
    const answers = await Promise.all([
      db.knex.transaction((trx) => create(trx, 'lamp', lamp, 200)),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
        db.knex.transaction((trx) => create(trx, 'lamp', lamp)),
      ),
    ]);
    expect(runs - before).toBe(1);
    expect(answers.map((answer) => [answer.status, answer.headers?.['idempotent-replayed']])).toEqual([
      [201, undefined],
      [201, 'true'],
    ]);
    expect((await names()).filter((name) => name === 'lamp')).toHaveLength(1);
  });
});

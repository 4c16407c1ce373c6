// HTTP beyond the reference: merge-patch bodies, Prefer, Idempotency-Key and several tags in If-Match.
import { beforeAll, describe, expect, it } from 'vitest';
import { crudRouter, IDEMPOTENCY_TABLE, idempotencyTableMigration } from '@crudsmith/core';
import { itemOptions, type Api, type CrudEnv } from './kit';

const MERGE = { 'content-type': 'application/merge-patch+json' };

export function describeHttp(env: CrudEnv): void {
  describe('merge-patch, Prefer and If-Match with several tags', () => {
    let api: Api;

    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(crudRouter(itemOptions(env.knex, { path: '/http' })));
    });

    it('takes a JSON merge patch whose null clears a field, and refuses another media type with 415', async () => {
      const body = JSON.stringify({ description: null, price: 7.5 });
      expect((await api.send('PATCH', '/http/1', { body, headers: MERGE })).status).toBe(200);
      const row = (await api.get('/http/1')).body;
      expect([row.description, row.price]).toEqual([null, 7.5]);
      const plain = { 'content-type': 'text/plain' };
      expect((await api.send('PATCH', '/http/1', { body, headers: plain })).status).toBe(415);
      const created = await api.send('POST', '/http', { body: JSON.stringify({ name: 'typed' }), headers: plain });
      expect(created.status).toBe(415);
      expect(typeof created.body.detail).toBe('string');
      expect(await env.knex('items').where({ name: 'typed' })).toEqual([]);
    });

    it('answers the row with return=representation and 204 with return=minimal, saying which it honoured', async () => {
      const rep = { prefer: 'return=representation' };
      const min = { prefer: 'return=minimal' };
      const created = await api.post('/http', { name: 'preferred' }, rep);
      expect(created.status).toBe(201);
      expect(created.headers.get('preference-applied')).toBe('return=representation');
      const id = created.body.id;
      expect(created.body.name).toBe('preferred');
      const updated = await api.patch(`/http/${id}`, { price: 3.25 }, rep);
      expect([updated.status, updated.body.price, updated.body.name]).toEqual([200, 3.25, 'preferred']);
      const minimal = await api.patch(`/http/${id}`, { price: 4 }, min);
      expect([minimal.status, minimal.body, minimal.headers.get('preference-applied')]).toEqual([
        204,
        '',
        'return=minimal',
      ]);
      const deleted = await api.del(`/http/${id}`, rep);
      expect([deleted.status, deleted.body.id, deleted.body.price]).toEqual([200, id, 4]);
      expect((await api.post(`/http/${id}/restore`, undefined, min)).status).toBe(204);
      const removed = await api.del(`/http/db_delete/${id}`, rep);
      expect([removed.status, removed.body.name]).toEqual([200, 'preferred']);
      expect(await env.knex('items').where({ id })).toEqual([]);
      // Without Prefer the answers stay as they were.
      const plain = await api.patch('/http/2', { price: 5 });
      expect([plain.status, plain.body, plain.headers.get('preference-applied')]).toEqual([200, null, null]);
    });

    it('writes under If-Match while the row has any of the tags listed, and answers 412 when it has none', async () => {
      const stale = (await api.get('/http/3')).headers.get('etag')!;
      await api.patch('/http/3', { price: 8 });
      const fresh = (await api.get('/http/3')).headers.get('etag')!;
      expect((await api.patch('/http/3', { price: 9 }, { 'if-match': `"x", ${stale}` })).status).toBe(412);
      expect((await api.patch('/http/3', { price: 9 }, { 'if-match': `${stale}, ${fresh}` })).status).toBe(200);
      expect((await api.get('/http/3')).body.price).toBe(9);
    });

    it('publishes merge-patch, Prefer and Preference-Applied in the OpenAPI description', () => {
      const routes = crudRouter(itemOptions(env.knex)).routes;
      const doc = (operation: string) => routes.find((route) => route.operation === operation)!.doc!;
      expect(doc('items_update').requestBodyContentTypes).toEqual(['application/json', 'application/merge-patch+json']);
      for (const operation of ['items_create', 'items_update', 'items_delete', 'items_restore']) {
        expect(doc(operation).parameters).toContainEqual(expect.objectContaining({ name: 'Prefer', in: 'header' }));
        expect(doc(operation).responses!['204'].headers).toHaveProperty('Preference-Applied');
      }
    });
  });

  describe('Idempotency-Key on create', () => {
    let api: Api;
    const count = async (name: string) => (await env.knex('items').where({ name })).length;

    beforeAll(async () => {
      if (!(await env.knex.schema.hasTable(IDEMPOTENCY_TABLE))) await idempotencyTableMigration().up(env.knex);
      api = await env.serve(crudRouter(itemOptions(env.knex, { path: '/idem', idempotency: true })));
    });

    it('answers a repeat with the first answer and writes once; another body with the key is a 422', async () => {
      const key = { 'idempotency-key': `repeat-${env.engine}` };
      const first = await api.post('/idem', { name: 'once', price: 1 }, key);
      const again = await api.post('/idem', { price: 1, name: 'once' }, key);
      expect(first.status).toBe(201);
      expect([again.status, again.body]).toEqual([201, first.body]);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await count('once')).toBe(1);
      const other = await api.post('/idem', { name: 'twice' }, key);
      expect(other.status).toBe(422);
      expect(other.body.detail[0].type).toBe('idempotency_key_reused');
      expect(await count('twice')).toBe(0);
      // The same body with another Prefer asks for another answer: a 422 too.
      expect((await api.post('/idem', { name: 'once', price: 1 }, { ...key, prefer: 'return=minimal' })).status).toBe(
        422,
      );
      // A first request that failed wrote nothing and left the key free.
      const failed = { 'idempotency-key': `failed-${env.engine}` };
      expect((await api.post('/idem', { name: 5 }, failed)).status).toBe(422);
      expect((await api.post('/idem', { name: 'fixed' }, failed)).status).toBe(201);
    });

    it('creates one row of two concurrent requests with one key; the other waits its answer or is a 409', async () => {
      const key = { 'idempotency-key': `race-${env.engine}` };
      const answers = await Promise.all([
        api.post('/idem', { name: 'raced' }, key),
        api.post('/idem', { name: 'raced' }, key),
      ]);
      expect(answers.map((answer) => answer.status)).toContain(201);
      for (const answer of answers) expect([201, 409]).toContain(answer.status);
      expect(await count('raced')).toBe(1);
    });

    it('publishes the key and its 409 and 422 in the OpenAPI description', () => {
      const routes = crudRouter(itemOptions(env.knex, { idempotency: true })).routes;
      const doc = routes.find((route) => route.operation === 'items_create')!.doc!;
      expect(doc.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
      expect(Object.keys(doc.responses!)).toEqual(expect.arrayContaining(['409', '422']));
    });
  });
}

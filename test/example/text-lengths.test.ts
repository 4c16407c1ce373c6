import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ITEM_DESCRIPTION_MAX, POST_TEXT_MAX } from '../../examples/app/src/text-limits';
import { ENGINES } from '../fixtures/db';
import { send, startExample, type ExampleServer } from './example-server';

// Every text field the example accepts has a bound, so no row (and no page of rows) can
// grow without one. Rows stored before the bound keep their text: no migration cuts data.
describe.each(ENGINES)('example text fields on %s', (engine) => {
  let ex: ExampleServer;

  beforeAll(async () => {
    ex = await startExample(engine, { users: ['tess'] });
  });
  afterAll(async () => {
    await ex?.close();
  });

  it('refuses an item description over its maximum length on create and update with 422', async () => {
    const c = ex.client();
    const longest = await c.request('POST', '/api/v1/items', {
      json: { name: 'Long', description: 'd'.repeat(ITEM_DESCRIPTION_MAX) },
    });
    expect(longest.status).toBe(201);
    const over = await c.request('POST', '/api/v1/items', {
      json: { name: 'Longer', description: 'd'.repeat(ITEM_DESCRIPTION_MAX + 1) },
    });
    expect(over.status).toBe(422);
    expect(over.body.detail[0].loc).toEqual(['body', 'description']);
    expect(
      (
        await c.request('PATCH', `/api/v1/items/${longest.body.id}`, {
          json: { description: 'd'.repeat(ITEM_DESCRIPTION_MAX + 1) },
        })
      ).status,
    ).toBe(422);
    const doc = (await c.get('/api/v1/openapi.json')).body;
    expect(JSON.stringify(doc)).toContain(`"maxLength":${ITEM_DESCRIPTION_MAX}`);
  });

  it('refuses a post text over its maximum length with 422', async () => {
    const tess = await ex.signedIn('tess');
    expect((await send(tess, 'POST', '/api/v1/posts/', { title: 'ok', text: 't'.repeat(POST_TEXT_MAX) })).status).toBe(
      201,
    );
    expect(
      (await send(tess, 'POST', '/api/v1/posts/', { title: 'no', text: 't'.repeat(POST_TEXT_MAX + 1) })).status,
    ).toBe(422);
  });
});

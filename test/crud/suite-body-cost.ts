// No request may hold the thread: validating a body costs time for every value in it, so a
// body within the byte limit but full of tiny objects or arrays held the event loop for a
// second or more. Such bodies are refused before validation, and real bodies still pass.
import { beforeAll, describe, expect, it } from 'vitest';
import { crudRouter } from '@crudsmith/core';
import { requestBudget, timeWithin } from '../fixtures/growth';
import { itemOptions, type Api, type CrudEnv } from './kit';

const many = <T>(count: number, make: (index: number) => T): T[] =>
  Array.from({ length: count }, (_, index) => make(index));
const tree = (depth: number): unknown => (depth === 0 ? [] : [tree(depth - 1), tree(depth - 1)]);

// Each just under the default 1 MiB body limit; before the cap, validating each held the
// thread for one to a few seconds.
const ADVERSARIAL: [string, unknown][] = [
  ['many tiny objects under an undeclared key', { name: 'x', junk: many(330_000, () => ({})) }],
  ['many tiny objects under a declared key', { name: 'x', description: many(330_000, () => ({})) }],
  ['a long array of small objects', { description: many(48_000, (i) => ({ a: i, b: 'x' })) }],
  ['many empty arrays', { description: many(330_000, () => []) }],
  ['wide objects', { junk: many(100, () => Object.fromEntries(many(1000, (i) => [`k${i}`, 0]))) }],
  ['deep-ish trees', { description: many(48, () => tree(12)) }],
];

export function describeBodyCost(env: CrudEnv): void {
  describe('a body full of small values cannot stall the process', () => {
    let api: Api;

    let budget = 0;
    beforeAll(async () => {
      await env.resetItems();
      api = await env.serve(crudRouter(itemOptions(env.knex)));
      budget = await requestBudget(async () => {
        const res = await fetch(`${api.url}/api/items`, {
          method: 'POST',
          body: JSON.stringify({ name: 1 }),
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status).toBe(422);
        await res.text();
      });
    });

    it.each(ADVERSARIAL)('%s is a 413 naming the cap, within 64 times a small refused body', async (_name, body) => {
      const text = JSON.stringify(body);
      expect(text.length).toBeLessThan(1024 * 1024);
      const elapsed = await timeWithin(budget, async () => {
        const res = await fetch(`${api.url}/api/items`, {
          method: 'POST',
          body: text,
          headers: { 'content-type': 'application/json' },
        });
        const answer = (await res.json()) as { detail: string };
        expect(res.status).toBe(413);
        expect(answer.detail).toMatch(/more than 10000 values/);
      });
      // Sending and parsing the megabyte included, about 10 small requests' time when idle;
      // before the cap, validating these bodies alone took 200 to 300 of them.
      expect(elapsed).toBeLessThan(budget);
    });

    it('a large real body is still created, and so is one holding values up to the cap', async () => {
      env.logged.length = 0;
      // As long as a MariaDB TEXT column holds.
      const long = await api.post('/items', { name: 'long', description: 'd'.repeat(65_000) });
      expect(long.status).toBe(201);
      expect(long.body.description).toHaveLength(65_000);
      // Exactly 10,000 values: 9,999 undeclared keys and `name`; answered with their 422, not a 413.
      const atCap = await api.post('/items', { name: 'x', ...Object.fromEntries(many(9_999, (i) => [`k${i}`, 0])) });
      expect(atCap.status).toBe(422);
      expect(env.logged).toEqual([]);
    });
  });
}

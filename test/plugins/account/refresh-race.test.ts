// Refresh-token reuse under concurrency: when several requests present one token at
// once, one rotates it and the others are reuse, which revokes the family. The winner's
// new token belongs to that family, so it must be dead too, whatever the interleaving.
// Before, on PostgreSQL the revocation could run between the winner's UPDATE and its
// INSERT of the successor, which then survived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { PASSWORD, startAccountApp, type AccountEnv } from './fixture';

for (const engine of ENGINES) {
  describe(`account: refresh-token reuse races on koa / ${engine}`, () => {
    let env: AccountEnv;
    beforeAll(async () => {
      env = await startAccountApp(koaHarness, engine, {
        session: false,
        hashing: { perClient: 1000, maxPending: 1000 },
      });
      await env.user('racer');
    });
    afterAll(async () => env?.close());

    const refresh = (refresh_token: string) =>
      env.client().request('POST', '/auth/refresh', { json: { refresh_token } });

    it('never leaves a successor alive once its family is revoked for reuse', async () => {
      for (let round = 0; round < 15; round++) {
        const first = await env
          .client()
          .request('POST', '/auth/token', { form: { username: 'racer', password: PASSWORD } });
        const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(first.body.refresh_token)));
        const winners = answers.filter((a) => a.status === 200);
        expect(winners.length).toBeLessThanOrEqual(1);
        expect(
          answers.filter((a) => a.status === 401).length,
          JSON.stringify(answers.map((a) => [a.status, a.body])),
        ).toBeGreaterThanOrEqual(5);
        for (const winner of winners) {
          const res = await refresh(winner.body.refresh_token);
          expect(res.status, `round ${round}: the successor outlived its revoked family`).toBe(401);
        }
      }
    });

    // The window made wide: the successor's INSERT is slowed by a trigger, so the other
    // uses of the token run their revocation while the winner is between its two writes.
    // Registered on the server engines only: SQLite runs one writer at a time, so there is
    // no window to widen (and no trigger that sleeps).
    if (engine !== 'sqlite')
      it('revokes the successor even when its INSERT is slow', async () => {
        const knex = env.db.knex;
        if (engine === 'postgres') {
          await knex.raw(
            'create function slow_refresh_insert() returns trigger as $$ begin perform pg_sleep(0.3); return new; end $$ language plpgsql',
          );
          await knex.raw(
            'create trigger slow_refresh before insert on account_refresh_tokens for each row execute function slow_refresh_insert()',
          );
        } else {
          await knex.raw(
            'create trigger slow_refresh before insert on account_refresh_tokens for each row set @slept = sleep(0.3)',
          );
        }
        try {
          for (let round = 0; round < 3; round++) {
            const first = await env
              .client()
              .request('POST', '/auth/token', { form: { username: 'racer', password: PASSWORD } });
            const answers = await Promise.all(Array.from({ length: 3 }, () => refresh(first.body.refresh_token)));
            const winners = answers.filter((a) => a.status === 200);
            expect(winners.length).toBeLessThanOrEqual(1);
            for (const winner of winners) {
              expect(
                (await refresh(winner.body.refresh_token)).status,
                `round ${round}: the successor outlived its revoked family`,
              ).toBe(401);
            }
          }
        } finally {
          await knex.raw(
            engine === 'postgres' ? 'drop trigger slow_refresh on account_refresh_tokens' : 'drop trigger slow_refresh',
          );
        }
      });
  });
}

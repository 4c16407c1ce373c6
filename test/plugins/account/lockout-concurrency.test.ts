// The sign-in lockout under concurrency: each attempt is counted before its password is
// checked, so a burst of wrong passwords gets at most `threshold` checks (the rest 429
// with Retry-After), and one burst locks the account for one period, not for a day.
// Before, 30 concurrent wrong passwords were all checked, and their failures doubled the
// lock once each: about 16 requests locked any account for 24 hours.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTER_RUNS } from './adapter-runs';
import { PASSWORD, clock, startAccountApp, type AccountEnv, type Answer } from './fixture';

const THRESHOLD = 5;
const BASE = 30;
const BURST = 30;

for (const [adapter, engine, harness] of ADAPTER_RUNS) {
  describe(`account: lockout under concurrent sign-ins on ${adapter} / ${engine}`, () => {
    let env: AccountEnv;
    beforeAll(async () => {
      // bcrypt cost 6: each check takes long enough for the burst to overlap, as in production.
      // The hashing bounds are opened wide: the lockout must hold by itself (a burst may come
      // from many addresses), so every request of the burst reaches it.
      env = await startAccountApp(harness, engine, {
        password: { bcryptRounds: 6 },
        lockout: { threshold: THRESHOLD, baseSeconds: BASE },
        hashing: { perClient: 1000, maxPending: 1000 },
      });
    });
    afterAll(async () => env?.close());
    beforeEach(() => {
      clock.skew = 0;
    });

    const burst = (path: string, username: string, password = 'a wrong password') =>
      Promise.all(
        Array.from({ length: BURST }, () => env.client().request('POST', path, { form: { username, password } })),
      );

    function tally(answers: Answer[]) {
      const checked = answers.filter((a) => a.status === 401).length;
      const refused = answers.filter((a) => a.status === 429);
      expect(checked + refused.length, JSON.stringify(answers.map((a) => a.status))).toBe(answers.length);
      for (const res of refused) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      return { checked, retryAfter: refused.map((res) => Number(res.headers.get('retry-after'))) };
    }

    async function lockRow(userId: number) {
      const row = await env.db
        .knex('account_login_failures')
        .where({ key: `user:${userId}` })
        .first();
      return { lockouts: Number(row.lockouts), lockedForMs: Number(row.locked_until) - clock.now() };
    }

    it(`checks at most ${THRESHOLD} of ${BURST} concurrent wrong passwords, and locks for one period`, async () => {
      const id = await env.user('burst');
      const { checked, retryAfter } = tally(await burst('/auth/login', 'burst'));
      expect(checked).toBeGreaterThanOrEqual(1);
      expect(checked).toBeLessThanOrEqual(THRESHOLD);
      expect(Math.max(...retryAfter)).toBeLessThanOrEqual(BASE);
      const lock = await lockRow(id);
      expect(lock.lockouts).toBe(1);
      expect(lock.lockedForMs).toBeGreaterThan(0);
      expect(lock.lockedForMs).toBeLessThanOrEqual(BASE * 1000);
      // Locked: even the right password is refused without a check.
      expect((await env.client().login('burst', PASSWORD)).status).toBe(429);

      // The lock expires: one more attempt, then the next period, twice as long.
      clock.skew = (BASE + 1) * 1000;
      const second = tally(await burst('/auth/token', 'BURST@example.com'));
      expect(second.checked).toBe(1);
      expect(Math.max(...second.retryAfter)).toBeLessThanOrEqual(2 * BASE);
      const longer = await lockRow(id);
      expect(longer.lockouts).toBe(2);
      expect(longer.lockedForMs).toBeGreaterThan(BASE * 1000);
      expect(longer.lockedForMs).toBeLessThanOrEqual(2 * BASE * 1000);

      clock.skew = (BASE + 1 + 2 * BASE + 1) * 1000;
      expect((await env.client().login('burst', PASSWORD)).status).toBe(200);
      // A success forgets the failures.
      expect(
        await env.db
          .knex('account_login_failures')
          .where({ key: `user:${id}` })
          .first(),
      ).toBeUndefined();
    });

    it('signs in every one of concurrent right passwords of an account with no failures (the first ones insert its row)', async () => {
      await env.user('tabs');
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(Array.from({ length: 4 }, () => env.client().login('tabs', PASSWORD)));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      }
    });

    it('counts a burst against an unknown name the same way', async () => {
      const { checked } = tally(await burst('/auth/login', 'nobody-by-this-name'));
      expect(checked).toBeGreaterThanOrEqual(1);
      expect(checked).toBeLessThanOrEqual(THRESHOLD);
    });

    it('counts a burst spread over /login and /token, and over spellings of the name, as one', async () => {
      await env.user('spread');
      const spellings = ['spread', 'SPREAD', 'spread@example.com', 'Spread@Example.com'];
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          env.client().request('POST', i % 2 ? '/auth/login' : '/auth/token', {
            form: { username: spellings[i % spellings.length], password: 'a wrong password' },
          }),
        ),
      );
      const { checked } = tally(answers);
      expect(checked).toBeLessThanOrEqual(THRESHOLD);
    });
  });
}

// Long adversarial client text must never hold the event loop: every account route that
// reads client text answers a 4xx within a budget, and a cheap request sent alongside is not
// delayed by seconds. The budget is relative, measured in the same run (a loaded machine
// slows both alike): 64 times a plain refused request, or the e-mail check's cost on a 64th
// of the text; quadratic work costs thousands of times more. The e-mail pattern this replaced backtracked in
// quadratic time (`a@` and 120,000 dots: about 25 s of one core, every request waiting).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeEmail } from '../../../plugins/account/src/registration';
import { ADAPTER_RUNS } from './adapter-runs';
import { growth, timeWithin } from '../../fixtures/growth';
import { PASSWORD, startAccountApp, type AccountEnv } from './fixture';

const KB120 = 120_000;

/** Strings of `n` repeated characters that make backtracking patterns blow up. */
const patterns: Record<string, (n: number) => string> = {
  dots: (n) => `a@${'.'.repeat(n)}@`,
  ats: (n) => '@'.repeat(n),
  spaces: (n) => `a@b${' '.repeat(n)}x`,
  localPart: (n) => `${'a'.repeat(n)}@@`,
  domain: (n) => `a@${'a.'.repeat(n / 2)}`,
  tabs: (n) => `a${'\t'.repeat(n)}`,
};
const adversarial = Object.fromEntries(Object.entries(patterns).map(([name, make]) => [name, make(KB120)]));

describe('account: the e-mail check is linear', () => {
  it('checks each 120 KB adversarial input at far less than quadratic cost against a 64th of it', async () => {
    for (const [name, make] of Object.entries(patterns)) {
      expect(await growth(make, looksLikeEmail, { small: KB120 / 64, large: KB120 }), name).toBeLessThan(1024);
    }
  });

  it('keeps the loose rule: one @, a dot inside the domain, no spaces', () => {
    for (const good of ['ada@example.com', 'a.b+c@x.y', 'ü@exämple.de', 'a@b.c.d'])
      expect(looksLikeEmail(good), good).toBe(true);
    for (const bad of [
      '',
      'ada',
      '@example.com',
      'ada@',
      'ada@example',
      'ada@.com',
      'ada@example.',
      'a@b@c.d',
      'a b@c.d',
      'a@b.c\u00a0',
      'a@b\n.c',
    ]) {
      expect(looksLikeEmail(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

for (const [adapter, engine, harness] of ADAPTER_RUNS) {
  describe(`account: long adversarial client text on ${adapter} / ${engine}`, () => {
    let env: AccountEnv;
    // The budget: 64 times the least time of a plain refused request here, in this run.
    let budget = 0;
    beforeAll(async () => {
      env = await startAccountApp(harness, engine);
      await env.user('victim');
      let least = Infinity;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await env.client().request('POST', '/auth/register', {
          json: { username: 'newcomer', email: 'not an address', password: 'a long enough passphrase' },
        });
        least = Math.min(least, performance.now() - started);
        expect(res.status).toBe(422);
      }
      budget = 64 * Math.max(least, 5);
    });
    afterAll(async () => env?.close());

    /** Sends `slow` and, once it is on its way, a cheap request; answers both with their times. */
    async function alongside(slow: () => Promise<{ status: number }>) {
      const started = performance.now();
      const slowDone = slow().then((res) => ({ res, ms: performance.now() - started }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cheapStarted = performance.now();
      const cheap = await env.client().get('/auth/me');
      const cheapMs = performance.now() - cheapStarted;
      const { res, ms } = await slowDone;
      return { res, ms, cheap, cheapMs };
    }

    const register = (body: Record<string, string>) => () =>
      env.client().request('POST', '/auth/register', { json: body });

    for (const [name, email] of Object.entries(adversarial)) {
      it(`/register answers 422 within the budget for a 120 KB e-mail (${name}), and does not delay another request`, async () => {
        const { res, ms, cheap, cheapMs } = await alongside(
          register({ username: 'newcomer', email, password: 'a long enough passphrase' }),
        );
        expect(res.status).toBe(422);
        expect(ms).toBeLessThan(budget);
        expect(cheap.status).toBe(401);
        expect(cheapMs).toBeLessThan(budget);
      });
    }

    it('/register refuses a 120 KB username, name and password for their length, within the budget', async () => {
      const bodies: Record<string, string>[] = [
        { username: ' '.repeat(KB120), email: 'x@example.com', password: 'a long enough passphrase' },
        { username: `a${'@'.repeat(KB120)}`, email: 'x@example.com', password: 'a long enough passphrase' },
        {
          username: 'newcomer',
          email: 'x@example.com',
          password: 'a long enough passphrase',
          name: '\u0000'.repeat(KB120),
        },
        { username: 'newcomer', email: 'x@example.com', password: 'ﬀ'.repeat(KB120) },
      ];
      for (const body of bodies) {
        const { res, ms, cheapMs } = await alongside(register(body));
        expect(res.status).toBe(422);
        expect(ms).toBeLessThan(budget);
        expect(cheapMs).toBeLessThan(budget);
      }
    });

    it('/login and /token answer 401 for a 120 KB identifier, within the budget', async () => {
      for (const path of ['/auth/login', '/auth/token']) {
        for (const username of [adversarial.dots, adversarial.spaces, 'ﬀ'.repeat(KB120)]) {
          // As JSON: form bodies have a smaller size limit, and the text must reach the route.
          const { res, ms, cheapMs } = await alongside(() =>
            env.client().request('POST', path, { json: { username, password: PASSWORD } }),
          );
          expect(res.status, path).toBe(401);
          expect(ms).toBeLessThan(budget);
          expect(cheapMs).toBeLessThan(budget);
        }
      }
      await env.db.knex('account_login_failures').delete();
    });

    it('answers 401 for a long adversarial Authorization header, within the budget', async () => {
      for (const value of [
        `Bearer ${' '.repeat(8000)}!`,
        `Bearer ${'a'.repeat(8000)}${' '.repeat(4000)}!`,
        `bearer ${'a.'.repeat(6000)}`,
      ]) {
        const elapsed = await timeWithin(budget, async () => {
          const res = await env.client().get('/auth/me', { authorization: value });
          expect(res.status).toBe(401);
        });
        expect(elapsed).toBeLessThan(budget);
      }
    });
  });
}

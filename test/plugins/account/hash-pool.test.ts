// bcrypt runs in worker threads, behind bounds: a burst of sign-ins does not stall other
// requests, and hashing beyond the bounds answers 429 (per client address) or 503
// (overall) at once instead of queueing without limit. Before, bcrypt ran on the event
// loop: 20 bogus sign-ins made a one-row read take 4 s.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '@crudsmith/core';
import { HashPool, PasswordHasher } from '@crudsmith/core/auth';
import { koaHarness } from '../../adapters/koa-harness';
import { HARNESSES } from './adapter-runs';
import { PASSWORD, startAccountApp, type AccountEnv, type Answer } from './fixture';

describe.each(HARNESSES)('account: password hashing off the event loop, with bounds, on $name', (harness) => {
  let env: AccountEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  const wrongSignIns = (count: number, username = 'hasher') =>
    Array.from({ length: count }, (_, i) =>
      env!.client().request('POST', i % 2 ? '/auth/login' : '/auth/token', {
        form: { username, password: `wrong password ${i}` },
      }),
    );

  it("answers cheap requests while sign-ins hash, within the pool's first rounds, not after every hash", async () => {
    // Cost 10 on two threads: 12 hashes are six rounds of about 170 ms here, and on a loaded
    // machine as much slower as the cheap requests are, so the order of the answers, not their
    // times, shows the hashing is off the event loop: on it, the cheap request waits for a
    // hash that was asked for first, and then one more each time.
    env = await startAccountApp(harness, 'sqlite', {
      password: { bcryptRounds: 10 },
      hashing: { threads: 2, perClient: 100, maxPending: 100 },
      lockout: { threshold: 10 },
    });
    await env.user('hasher');
    let signedIn = 0;
    const burst = Promise.all(
      [...wrongSignIns(6), ...wrongSignIns(6, 'someone-else')].map((answer) =>
        answer.then((res) => {
          signedIn += 1;
          return res;
        }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    // How many sign-ins had answered when each cheap request did.
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      expect((await env.client().get('/auth/me')).status).toBe(401);
      seen.push(signedIn);
    }
    const answers = await burst;
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(401));
    // Hashing on the event loop answers the cheap requests only after all 12 ([12,12,12,12,12]);
    // off it, at most the first round or two of the pool's hashes (a slow first request on a
    // busy machine may let one round finish) come before them.
    expect(seen[0], JSON.stringify(seen)).toBeLessThanOrEqual(2);
    expect(seen.at(-1), JSON.stringify(seen)).toBeLessThanOrEqual(4);
  });

  const statuses = (answers: Answer[]) => answers.map((a) => a.status).sort();

  it('answers 429 with Retry-After beyond the hashes one client may have in flight, and does not count them as attempts', async () => {
    env = await startAccountApp(harness, 'sqlite', {
      password: { bcryptRounds: 8 },
      hashing: { threads: 1, perClient: 2, maxPending: 100 },
      lockout: { threshold: 10 },
    });
    const id = await env.user('hasher');
    const answers = await Promise.all(wrongSignIns(8));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length, JSON.stringify(statuses(answers))).toBeGreaterThanOrEqual(4);
    for (const res of refused) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body.detail).toMatch(/in progress from this address/);
    }
    const checked = answers.filter((a) => a.status === 401).length;
    expect(checked + refused.length).toBe(8);
    // Only the checked ones count toward the lockout.
    const row = await env.db
      .knex('account_login_failures')
      .where({ key: `user:${id}` })
      .first();
    expect(Number(row.failures)).toBe(checked);
    // Once they are done, the client hashes again.
    expect((await env.client().login('hasher', PASSWORD)).status).toBe(200);
  });

  it('answers 503 with Retry-After beyond the hashes in flight overall, registration included', async () => {
    env = await startAccountApp(harness, 'sqlite', {
      password: { bcryptRounds: 8 },
      hashing: { threads: 1, perClient: 100, maxPending: 2 },
    });
    const answers = await Promise.all([
      ...wrongSignIns(4, 'nobody'),
      ...Array.from({ length: 4 }, (_, i) =>
        env!.client().request('POST', '/auth/register', {
          json: { username: `busy${i}`, email: `busy${i}@example.com`, password: PASSWORD },
        }),
      ),
    ]);
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length, JSON.stringify(statuses(answers))).toBeGreaterThanOrEqual(4);
    for (const res of busy) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body).toEqual({ detail: 'The server is busy checking passwords; try again shortly' });
    }
    for (const res of answers) expect([201, 401, 503]).toContain(res.status);
  });
});

// No HTTP here: createUser called by the app's own route, which passes the caller's address.
describe('account: createUser within the hashing bounds', () => {
  let env: AccountEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  const creations = (count: number, options?: { client?: string }) =>
    Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        env!.auth.createUser(
          {
            username: `made${options?.client ? 'c' : 'a'}${i}`,
            email: `made${options?.client ? 'c' : 'a'}${i}@example.com`,
            password: PASSWORD,
          },
          {},
          options,
        ),
      ),
    );

  it('bounds the hashing of creations a request asks for per client address: 429 beyond', async () => {
    env = await startAccountApp(koaHarness, 'sqlite', {
      password: { bcryptRounds: 8 },
      hashing: { threads: 1, perClient: 2, maxPending: 100 },
    });
    const outcomes = await creations(6, { client: '198.51.100.7' });
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const error of refused) expect(error).toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    for (const error of refused) expect(error).toBeInstanceOf(HttpError);
    // The app's own creations (no client) are bound only overall.
    expect((await creations(6)).map((outcome) => outcome.status)).toEqual(Array(6).fill('fulfilled'));
  });

  it('hashes in a pool the app shares (hashPool): its bounds hold across plugins, and closing the plugin leaves it running', async () => {
    const pool = new HashPool({ threads: 1, perClient: 4, maxPending: 1 });
    try {
      env = await startAccountApp(koaHarness, 'sqlite', { password: { bcryptRounds: 8 }, hashPool: pool });
      await env.user('shared');
      // The app (another plugin) holds the pool's only slot, and a newcomer address the one
      // fair admission adds: this plugin's sign-in is refused overall.
      const release = pool.acquire();
      const newcomer = pool.acquire('203.0.113.1');
      expect((await env.client().login('shared', PASSWORD)).status).toBe(503);
      release();
      newcomer();
      expect((await env.client().login('shared', PASSWORD)).status).toBe(200);
      const inFlight = pool.hash('still hashing', 10);
      await env.close();
      env = undefined;
      expect(await inFlight).toMatch(/^\$2[aby]\$10\$/);
    } finally {
      await pool.close();
    }
  });
});

// Admission in front of the pool: an address with nothing in flight gets in past the
// overall bound, turns go to the address served least recently, and failed checks are
// rationed per address while correct passwords cost nothing.
describe('account: fair admission to the hashing pool', () => {
  it('lets in an address with nothing in flight past maxPending, up to twice it', () => {
    const pool = new HashPool({ threads: 1, perClient: 2, maxPending: 2 });
    pool.acquire('a');
    pool.acquire('a');
    expect(() => pool.acquire('a')).toThrow(expect.objectContaining({ status: 429 }));
    pool.acquire('b');
    expect(() => pool.acquire('b')).toThrow(expect.objectContaining({ status: 503 }));
    pool.acquire('c');
    expect(() => pool.acquire('d')).toThrow(expect.objectContaining({ status: 503 }));
    expect(() => pool.acquire()).toThrow(expect.objectContaining({ status: 503 }));
  });

  it("serves a newcomer address before the rest of a busy address's queue", async () => {
    const pool = new HashPool({ threads: 1, perClient: 100, maxPending: 100 });
    try {
      const done: string[] = [];
      const busy = Array.from({ length: 6 }, (_, i) =>
        pool.admit('busy', async () => {
          await pool.hash(`busy ${i}`, 8);
          done.push(`busy ${i}`);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      const newcomer = pool.admit('new', async () => {
        await pool.hash('newcomer', 8);
        done.push('new');
      });
      await Promise.all([...busy, newcomer]);
      expect(done.indexOf('new'), done.join()).toBeLessThanOrEqual(2);
    } finally {
      await pool.close();
    }
  });

  it('rations failed password checks per address (429 with Retry-After), correct ones cost nothing', async () => {
    const pool = new HashPool({ threads: 1, failedChecks: { limit: 60, periodSeconds: 3600, burst: 3 } });
    const hasher = new PasswordHasher({ rounds: 4 }, pool);
    try {
      const hash = await hasher.hash('the right one');
      for (let i = 0; i < 5; i++)
        expect(await hasher.bounded('198.51.100.1', () => hasher.verify('the right one', hash))).toBe(true);
      for (let i = 0; i < 3; i++)
        expect(await hasher.bounded('198.51.100.1', () => hasher.verify('a wrong one', hash))).toBe(false);
      const refused = await hasher
        .bounded('198.51.100.1', () => hasher.verify('the right one', hash))
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({
        status: 429,
        detail: 'Too many failed password checks from this address; try again later',
      });
      // One failure back every minute at 60 an hour.
      expect(Number((refused as HttpError).headers?.['Retry-After'])).toBeGreaterThan(50);
      expect(Number((refused as HttpError).headers?.['Retry-After'])).toBeLessThanOrEqual(60);
      expect(await hasher.bounded('198.51.100.2', () => hasher.verify('the right one', hash))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('allows at least 500 failed checks an hour from one address by default (many users share one address)', async () => {
    const pool = new HashPool({ threads: 1 });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const start = Date.now();
      let admitted = 0;
      // An hour, one failed check tried every 6 s.
      for (let step = 0; step < 600; step++) {
        vi.setSystemTime(start + step * 6000);
        const outcome = await pool
          .admit('192.0.2.9', async () => pool.failed())
          .then(
            () => 'ok',
            (error: unknown) => error,
          );
        if (outcome === 'ok') admitted += 1;
        else expect(outcome).toMatchObject({ status: 429 });
      }
      expect(admitted).toBeGreaterThanOrEqual(500);
    } finally {
      vi.useRealTimers();
    }
  });
});

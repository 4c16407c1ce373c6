// Two-factor across two example-app processes sharing one PostgreSQL (enrollments, used
// steps, recovery codes) and one Redis (sessions and challenges, REDIS_URL): a challenge
// started on A is finished on B, a code used on one is refused on the other, and the wrong
// codes sent to either count toward one limit. A is Koa, B Express.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../plugins/account/src/mfa/totp';
import { ENGINES, type TestDatabase } from '../fixtures/db';
import { Client } from '../plugins/account/fixture';
import { describeRedis, REDIS, uniquePrefix } from '../plugins/rate-limit/redis-fixture';
import { startTwoApps, stopTwoApps, type AppProcess } from './spawn-app';

const PASSWORD = 'two processes, one second factor';
// spawnApp's first superuser.
const ADMIN_PASSWORD = 'admin-test-password-1';
const suite = ENGINES.includes('postgres') ? describeRedis : describe.skip;

/** The authenticator's code `steps` 30-second steps from now (one step ahead is accepted as drift). */
const code = (secret: string, steps = 0) => totpCode(secret, Math.floor(Date.now() / 1000) + 30 * steps);

suite('two-factor across two example-app processes', () => {
  let db: TestDatabase;
  let a: AppProcess;
  let b: AppProcess;

  /** Registers a user on A and enrolls an authenticator there: answers its secret and recovery codes. */
  const enrolled = async (username: string) => {
    const onA = new Client(a.url);
    expect(
      (
        await onA.request('POST', '/auth/register', {
          json: { username, email: `${username}@example.com`, password: PASSWORD },
        })
      ).status,
    ).toBe(201);
    expect((await onA.login(username, PASSWORD)).status).toBe(200);
    const setup = await onA.post('/auth/mfa/totp/setup', { password: PASSWORD });
    expect(setup.status).toBe(200);
    const confirm = await onA.post('/auth/mfa/totp/confirm', { code: await code(setup.body.secret) });
    expect(confirm.status).toBe(200);
    return { secret: setup.body.secret as string, recoveryCodes: confirm.body.recovery_codes as string[] };
  };
  const challengeOn = async (base: string, username: string, password = PASSWORD) => {
    const res = await new Client(base).login(username, password);
    expect(res.body).toMatchObject({ mfa_required: true, challenge: expect.any(String) });
    return res.body as { challenge: string; setup?: true };
  };
  const verifyOn = (client: Client, challenge: string, value: string) =>
    client.request('POST', '/auth/mfa/verify', { json: { challenge, code: value } });

  beforeAll(async () => {
    ({ db, a, b } = await startTwoApps((url) => ({
      DATABASE_URL: url,
      REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
      REDIS_SESSION_PREFIX: `${uniquePrefix()}session:`,
      MFA_REQUIRED_FOR_SUPERUSERS: 'true',
    })));
  }, 150_000);
  afterAll(() => stopTwoApps({ db, a, b }));

  it('a challenge from A is finished on B, and the session works on both', async () => {
    const { secret } = await enrolled('mfatwin');
    const { challenge } = await challengeOn(a.url, 'mfatwin');
    // In Redis, not in the database.
    expect(Number((await db.knex('account_mfa_challenges').count({ n: '*' }))[0].n)).toBe(0);
    const onB = new Client(b.url);
    const done = await verifyOn(onB, challenge, await code(secret, 1));
    expect(done.status).toBe(200);
    expect(done.body.csrf_token).toEqual(expect.any(String));
    expect((await onB.get('/auth/me')).status).toBe(200);
    expect((await new Client(a.url, onB.jar).get('/auth/me')).status).toBe(200);
    // Used up on B: A refuses it.
    expect((await verifyOn(new Client(a.url), challenge, await code(secret, 1))).status).toBe(400);
  });

  it('a code used on one process is refused on the other', async () => {
    const { secret } = await enrolled('mfareplay');
    const next = await code(secret, 1);
    expect((await verifyOn(new Client(b.url), (await challengeOn(b.url, 'mfareplay')).challenge, next)).status).toBe(
      200,
    );
    expect((await verifyOn(new Client(a.url), (await challengeOn(a.url, 'mfareplay')).challenge, next)).status).toBe(
      401,
    );
  });

  it('a recovery code used on A is refused on B', async () => {
    const { recoveryCodes } = await enrolled('mfarecovery');
    expect(
      (await verifyOn(new Client(a.url), (await challengeOn(a.url, 'mfarecovery')).challenge, recoveryCodes[0])).status,
    ).toBe(200);
    expect(
      (await verifyOn(new Client(b.url), (await challengeOn(b.url, 'mfarecovery')).challenge, recoveryCodes[0])).status,
    ).toBe(401);
  });

  it('wrong codes sent to A and B count toward one challenge: it dies after 5', async () => {
    const { recoveryCodes } = await enrolled('mfalimit');
    const { challenge } = await challengeOn(a.url, 'mfalimit');
    const wrong = 'zzzz-zzzz-zzzz';
    for (const base of [a.url, b.url, a.url, b.url, a.url])
      expect((await verifyOn(new Client(base), challenge, wrong)).status).toBe(401);
    expect((await verifyOn(new Client(b.url), challenge, recoveryCodes[0])).status).toBe(400);
  });

  it('a superuser must enroll (MFA_REQUIRED_FOR_SUPERUSERS): the setup challenge from A is read and finished on B', async () => {
    const started = await challengeOn(a.url, 'admin', ADMIN_PASSWORD);
    expect(started.setup).toBe(true);
    const onB = new Client(b.url);
    const details = await onB.request('POST', '/auth/mfa/challenge', { json: { challenge: started.challenge } });
    expect(details.status).toBe(200);
    const done = await verifyOn(onB, started.challenge, await code(details.body.setup.secret));
    expect(done.status).toBe(200);
    expect(done.body.recovery_codes).toHaveLength(10);
    expect((await new Client(a.url, onB.jar).get('/auth/mfa')).body).toEqual({
      enabled: true,
      required: true,
      recovery_codes_remaining: 10,
    });
  });
});

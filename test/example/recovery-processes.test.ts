// Two example-app processes sharing one PostgreSQL database (and Redis for sessions)
// behave as one for mailed tokens and OpenID Connect flows: a reset link mailed by A (to
// a real SMTP server) works on B, concurrent confirms across both let exactly one win,
// and a sign-in started on A finishes on B.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { Client } from '../plugins/account/fixture';
import { startProvider, type ProviderProcess } from '../plugins/account/oauth/provider-process';
import { PUBLIC } from '../plugins/account/oauth/sign-in-flow';
import { smtpMailbox, tokenOf, type Received } from '../plugins/account/recovery/mailboxes';
import { describeRedis, eventually, REDIS, uniquePrefix } from '../plugins/rate-limit/redis-fixture';
import { spawnApp, type AppProcess } from './spawn-app';

const PASSWORD = 'two processes, one mailbox';
const suite = ENGINES.includes('postgres') ? describeRedis : describe.skip;

suite('two example-app processes sharing mailed tokens and OpenID Connect flows', () => {
  let db: TestDatabase;
  let smtp: Awaited<ReturnType<typeof smtpMailbox>>;
  let provider: ProviderProcess;
  let a: AppProcess;
  let b: AppProcess;
  /** The newest mail to `address`, once it arrived (the processes deliver after answering). */
  const nextMail = async (address: string, count: number): Promise<Received> => {
    await eventually(async () => (await smtp.to(address)).length >= count, 10_000);
    return (await smtp.to(address))[count - 1];
  };

  beforeAll(async () => {
    db = await openDatabase('postgres');
    smtp = await smtpMailbox();
    provider = await startProvider();
    const env = {
      DATABASE_URL: db.url!,
      REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
      REDIS_SESSION_PREFIX: `${uniquePrefix()}session:`,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      PUBLIC_URL: PUBLIC,
      EMAIL_REQUEST_RATE_LIMIT: '50',
      OAUTH_OIDC_ISSUER: provider.issuer,
      OAUTH_OIDC_CLIENT_ID: 'twins',
      OAUTH_OIDC_CLIENT_SECRET: 'twins secret',
    };
    a = await spawnApp({ ...env, ADAPTER: 'koa' }, 60_000);
    b = await spawnApp({ ...env, ADAPTER: 'fastify' }, 60_000);
    for (const name of ['rhea', 'rory']) {
      const res = await new Client(a.url).request('POST', '/auth/register', {
        json: { username: name, email: `${name}@example.com`, password: PASSWORD },
      });
      expect(res.status).toBe(201);
    }
  }, 150_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await provider?.stop();
    await smtp?.close();
    await db?.destroy();
  });

  it('a reset link mailed by A works once, on B', async () => {
    expect(
      (await new Client(a.url).request('POST', '/auth/password/reset-request', { json: { email: 'rhea@example.com' } }))
        .status,
    ).toBe(202);
    const token = tokenOf(await nextMail('rhea@example.com', 1));
    const confirm = (base: string) =>
      new Client(base).request('POST', '/auth/password/reset-confirm', {
        json: { token, new_password: 'reset across processes' },
      });
    expect((await confirm(b.url)).status).toBe(200);
    expect((await confirm(a.url)).status).toBe(400);
    expect((await new Client(a.url).login('rhea', 'reset across processes')).status).toBe(200);
  });

  it('of concurrent confirms of one token on A and B, exactly one wins', async () => {
    expect(
      (await new Client(b.url).request('POST', '/auth/password/reset-request', { json: { email: 'rory@example.com' } }))
        .status,
    ).toBe(202);
    const token = tokenOf(await nextMail('rory@example.com', 1));
    const answers = await Promise.all(
      [a, b, a, b].map((app, i) =>
        new Client(app.url).request('POST', '/auth/password/reset-confirm', {
          json: { token, new_password: `concurrent passphrase ${i}` },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it('an OpenID Connect sign-in started on A finishes on B, and its session works on both', async () => {
    const onA = new Client(a.url);
    const onB = new Client(b.url, onA.jar);
    const start = await onA.request('GET', '/auth/oauth/oidc/authorize?redirect_to=/after', { redirect: 'manual' });
    expect(start.status).toBe(307);
    const url = new URL(start.headers.get('location')!);
    url.searchParams.set(
      'login_hint',
      JSON.stringify({ sub: 'twin-sub', email: 'oidc-twin@example.com', email_verified: true }),
    );
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    const done = await onB.request('GET', `${back.pathname}${back.search}`, { redirect: 'manual' });
    expect(done.status).toBe(307);
    expect(done.headers.get('location')).toBe('/after');
    expect((await onA.get('/auth/me')).status).toBe(200);
    expect((await onB.get('/auth/me')).status).toBe(200);
  });
});

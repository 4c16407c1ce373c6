// Three example-app processes (Koa, Express, Fastify) on one PostgreSQL and a real Redis
// Cluster (REDIS_CLUSTER_NODES, three masters and three replicas started here), behind a
// proxy that sends each request to the next process (round robin, never sticky): a user's
// whole journey works as on one process. Consecutive requests of each step land on
// different processes, so every step proves that what it needs is shared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../plugins/account/src/mfa/totp';
import { ENGINES, openDatabase, type TestDatabase } from '../fixtures/db';
import { startRedisCluster, type TestRedisCluster } from '../fixtures/redis-cluster';
import { RoundRobinProxy } from '../fixtures/round-robin-proxy';
import { Client } from '../plugins/account/fixture';
import { Client as AdminClient } from '../plugins/admin/fixture';
import { startProvider, type ProviderProcess } from '../plugins/account/oauth/provider-process';
import { PUBLIC, signIn } from '../plugins/account/oauth/sign-in-flow';
import { outboxMailbox, tokenOf, type Received } from '../plugins/account/recovery/mailboxes';
import { spawnApp, type AppProcess } from './spawn-app';

const PASSWORD = 'three processes, one deployment';
const ADMIN = { username: 'chief', password: 'chief admin passphrase' };
const LIMIT = 12;
const suite = ENGINES.includes('postgres') ? describe : describe.skip;

suite('three example processes on PostgreSQL and Redis Cluster behind a round-robin proxy', () => {
  let cluster: TestRedisCluster;
  let db: TestDatabase;
  let provider: ProviderProcess;
  let mailbox: Awaited<ReturnType<typeof outboxMailbox>>;
  const apps: AppProcess[] = [];
  let proxy: RoundRobinProxy;
  const client = () => new Client(proxy.url);
  let env: Record<string, string>;

  beforeAll(async () => {
    [cluster, db, provider, mailbox] = await Promise.all([
      startRedisCluster(),
      openDatabase('postgres'),
      startProvider(),
      outboxMailbox(),
    ]);
    env = {
      DATABASE_URL: db.url!,
      REDIS_CLUSTER_NODES: cluster.nodesSetting,
      REDIS_WAIT_REPLICAS: '1',
      DEFAULT_RATE_LIMIT_LIMIT: String(LIMIT),
      DEFAULT_RATE_LIMIT_PERIOD: String(30 * 24 * 3600),
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      // Three processes compiling TypeScript on a shared CI machine stall their loops: this
      // suite is about sharing state, not shedding (load-shedding.test.ts covers that).
      LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS: '0',
      // Two processes starting together on those stalled cores may take over 2 s to reach the cluster.
      REDIS_CONNECT_TIMEOUT_MS: '10000',
      // As behind a real balancer: a stopping process still accepts what was already on its
      // way to it (a connection in its backlog would otherwise be reset: a 502).
      SHUTDOWN_PRE_STOP_DELAY_MS: '500',
      // One outbox for all: a link is minted by whichever process takes the request.
      MAIL_OUTBOX_DIR: mailbox.dir,
      PUBLIC_URL: PUBLIC,
      OAUTH_OIDC_ISSUER: provider.issuer,
      OAUTH_OIDC_CLIENT_ID: 'example',
      OAUTH_OIDC_CLIENT_SECRET: 'example secret',
    };
    // The first alone (it migrates and keeps the generated secret key), then the others together.
    apps.push(await spawnApp({ ...env, ADAPTER: 'koa' }, 60_000));
    apps.push(
      ...(await Promise.all(['express', 'fastify'].map((adapter) => spawnApp({ ...env, ADAPTER: adapter }, 60_000)))),
    );
    proxy = await RoundRobinProxy.start(apps.map((app) => app.url));
    expect(
      (
        await client().request('POST', '/auth/register', {
          json: { username: 'rover', email: 'rover@example.com', password: PASSWORD },
        })
      ).status,
    ).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await Promise.all(apps.map((app) => app.stop()));
    await db?.destroy();
    await cluster?.stop();
    await provider?.stop();
    await mailbox?.close();
  });

  it('keeps nothing in the database that Redis holds: sessions and challenges are in the cluster', async () => {
    const c = client();
    expect((await c.login('rover', PASSWORD)).status).toBe(200);
    expect(Number((await db.knex('account_sessions').count({ n: '*' }))[0].n)).toBe(0);
  });

  it('a session cookie and its CSRF token work on every process, and sign-out ends it everywhere', async () => {
    const c = client();
    expect((await c.login('rover', PASSWORD)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await c.get('/auth/me')).body).toMatchObject({ transport: 'session' });
    for (let i = 0; i < 3; i++) expect((await c.post('/auth/csrf/refresh')).status).toBe(200);
    expect((await c.get('/auth/sessions')).status).toBe(200);
    expect((await c.post('/auth/logout')).status).toBeLessThan(300);
    for (let i = 0; i < 3; i++) expect((await c.get('/auth/me')).status).toBe(401);
  });

  it('bearer tokens and refresh rotation span processes; a reused refresh token is refused', async () => {
    const issued = await client().request('POST', '/auth/token', { form: { username: 'rover', password: PASSWORD } });
    expect(issued.status).toBe(200);
    const { access_token: access, refresh_token: refresh } = issued.body as {
      access_token: string;
      refresh_token: string;
    };
    for (let i = 0; i < 3; i++)
      expect((await client().get('/auth/me', { authorization: `Bearer ${access}` })).status).toBe(200);
    const rotated = await client().request('POST', '/auth/refresh', { json: { refresh_token: refresh } });
    expect(rotated.status).toBe(200);
    expect((await client().request('POST', '/auth/refresh', { json: { refresh_token: refresh } })).status).toBe(401);
  });

  it('e-mail links minted on one process are used on another: verification, then a password reset', async () => {
    expect(
      (
        await client().request('POST', '/auth/register', {
          json: { username: 'letters', email: 'letters@example.com', password: PASSWORD },
        })
      ).status,
    ).toBe(201);
    // The mail is written after the answer, by the process that took the request.
    const nextMail = async (count: number): Promise<Received> => {
      for (let i = 0; i < 200; i++) {
        const mails = await mailbox.to('letters@example.com');
        if (mails.length >= count) return mails[count - 1];
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no mail number ${count} for letters@example.com`);
    };
    const email = { json: { email: 'letters@example.com' } };
    expect((await client().request('POST', '/auth/email/verify-request', email)).status).toBe(202);
    const verify = { json: { token: tokenOf(await nextMail(1)) } };
    expect((await client().request('POST', '/auth/email/verify-confirm', verify)).status).toBe(200);
    expect((await client().request('POST', '/auth/email/verify-confirm', verify)).status).toBe(400);
    expect((await client().request('POST', '/auth/password/reset-request', email)).status).toBe(202);
    const reset = { json: { token: tokenOf(await nextMail(2)), new_password: 'a reset on another process' } };
    expect((await client().request('POST', '/auth/password/reset-confirm', reset)).status).toBe(200);
    expect((await client().login('letters', 'a reset on another process')).status).toBe(200);
    expect((await client().login('letters', PASSWORD)).status).toBe(401);
  });

  it('an OpenID Connect sign-in started on one process is finished by its callback on the next', async () => {
    const browser = client();
    const claims = { sub: 'rr-1', email: 'odile@example.com', email_verified: true, preferred_username: 'odile' };
    const { done, callback } = await signIn(browser, claims);
    expect(done.status).toBe(307);
    const me = await browser.get('/auth/me');
    expect(me.body).toMatchObject({ transport: 'session' });
    expect((await db.knex('users').where({ id: me.body.id }).first()).username).toBe('odile');
    // The state was used up where the callback landed: replayed on the next process, it is refused.
    const replay = await browser.request('GET', callback, { redirect: 'manual' });
    expect(replay.headers.get('location')).toBe('/?error=invalid_state');
  });

  it('a two-factor challenge started on one process is finished on the next; a used code is refused on the third', async () => {
    const c = client();
    expect(
      (
        await c.request('POST', '/auth/register', {
          json: { username: 'twofa', email: 'twofa@example.com', password: PASSWORD },
        })
      ).status,
    ).toBe(201);
    expect((await c.login('twofa', PASSWORD)).status).toBe(200);
    const setup = await c.post('/auth/mfa/totp/setup', { password: PASSWORD });
    expect(setup.status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    expect((await c.post('/auth/mfa/totp/confirm', { code: await totpCode(setup.body.secret, now) })).status).toBe(200);
    const started = await client().login('twofa', PASSWORD);
    expect(started.body).toMatchObject({ mfa_required: true, challenge: expect.any(String) });
    const next = await totpCode(setup.body.secret, now + 30);
    const done = await client().request('POST', '/auth/mfa/verify', {
      json: { challenge: started.body.challenge, code: next },
    });
    expect(done.status).toBe(200);
    expect(
      (await client().request('POST', '/auth/mfa/verify', { json: { challenge: started.body.challenge, code: next } }))
        .status,
    ).toBe(400);
  });

  it('counts a rate limit once for all processes, never once per process', async () => {
    const anonymous = { 'x-forwarded-for': '203.0.113.9' };
    // Three at a time (one per process, round robin): counted per process, all 36 would pass.
    const answers: Awaited<ReturnType<Client['get']>>[] = [];
    for (let i = 0; i < LIMIT; i++)
      answers.push(...(await Promise.all([0, 1, 2].map(() => client().get('/api/v1/items', anonymous)))));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(LIMIT * 2);
  });

  it('a cursor issued by one process pages on the next', async () => {
    const token = (await client().request('POST', '/auth/token', { form: { username: 'rover', password: PASSWORD } }))
      .body.access_token as string;
    const bearer = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 3; i++)
      expect(
        (
          await client().request('POST', '/api/v2/posts/', {
            json: { title: `post ${i}`, text: 'walk me' },
            headers: bearer,
          })
        ).status,
      ).toBe(201);
    const seen: number[] = [];
    let page = await client().get('/api/v2/posts/?cursor=&limit=1', bearer);
    while (page.status === 200) {
      seen.push(...(page.body.data as { id: number }[]).map((row) => row.id));
      if (!page.body.next_cursor) break;
      page = await client().get(`/api/v2/posts/?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, bearer);
    }
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
  });

  it('a rolling restart under mixed load answers nothing but 2xx, or 503 with Retry-After', async () => {
    const session = client();
    expect((await session.login('rover', PASSWORD)).status).toBe(200);
    const access = (await client().request('POST', '/auth/token', { form: { username: 'rover', password: PASSWORD } }))
      .body.access_token as string;
    // Sign-ins by another user: rover's sessions are capped per user, and the oldest would go.
    expect(
      (
        await client().request('POST', '/auth/register', {
          json: { username: 'roller', email: 'roller@example.com', password: PASSWORD },
        })
      ).status,
    ).toBe(201);
    const bad: string[] = [];
    let answered = 0;
    let running = true;
    const check = (what: string, res: { status: number; headers: Headers }) => {
      answered++;
      const ok = (res.status >= 200 && res.status < 300) || (res.status === 503 && res.headers.has('retry-after'));
      if (!ok) bad.push(`${what}: ${res.status}`);
    };
    const load = Promise.all(
      [
        async () => check('session', await session.get('/auth/me')),
        async () => check('csrf', await session.post('/auth/csrf/refresh')),
        async () => check('bearer', await client().get('/auth/me', { authorization: `Bearer ${access}` })),
        async () => check('sign-in', await client().login('roller', PASSWORD)),
      ].map(async (step) => {
        while (running) {
          await step().catch((error: unknown) => void bad.push(String(error)));
          // Steady, not flat out: the replacements start on the same two cores, and every
          // request the load makes is CPU a replacement's start-up waits for.
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }),
    );
    try {
      // One at a time: out of the balancer, drained and stopped (SIGTERM), replaced, back in.
      for (let i = 0; i < apps.length; i++) {
        const old = apps[i];
        proxy.set(proxy.targets.filter((url) => url !== old.url));
        await old.stop();
        apps[i] = await spawnApp({ ...env, ADAPTER: ['koa', 'express', 'fastify'][i] }, 120_000);
        proxy.set([...proxy.targets, apps[i].url]);
      }
    } finally {
      running = false;
      await load;
    }
    expect(bad).toEqual([]);
    expect(answered).toBeGreaterThan(20);
    // The user's session outlived every process it was served by.
    expect((await session.get('/auth/me')).status).toBe(200);
  }, 400_000);

  it('the admin session and its CSRF token work on every process; a lockout earned across them holds', async () => {
    const admin = new AdminClient(proxy.url);
    expect((await admin.login(ADMIN.username, ADMIN.password)).status).toBe(303);
    for (let i = 0; i < 3; i++) expect((await admin.get('/admin/')).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await admin.postForm('/admin/items/form_create', { name: `made ${i}` })).status).toBe(303);
    for (let i = 0; i < 5; i++)
      expect((await new AdminClient(proxy.url).login(ADMIN.username, 'not the passphrase')).status).toBe(401);
    expect((await new AdminClient(proxy.url).login(ADMIN.username, ADMIN.password)).status).toBe(429);
  });
});

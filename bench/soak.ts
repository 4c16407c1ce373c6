import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

// `npm run soak`: the example app on PostgreSQL and Redis, in a process of its own, under
// sustained load (autocannon, loopback only): mixed reads and writes of items and posts,
// signed in by bearer token. It fails (exit 1) on any error (a socket error, a timeout, an
// answer that is not 2xx) or when the server's resident memory grows by more than the
// allowed share between the end of the warm-up and the end of the run. Not part of CI: it
// holds a machine for a minute.

const root = resolve(__dirname, '..');
const setting = (name: string, fallback: number) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new Error(`${name}=${value} must be a non-negative number`);
  return number;
};
const SECONDS = setting('SOAK_SECONDS', 60);
const CONNECTIONS = setting('SOAK_CONNECTIONS', 64);
const WARMUP_SECONDS = setting('SOAK_WARMUP_SECONDS', Math.max(3, Math.round(SECONDS / 6)));
const MAX_GROWTH = setting('SOAK_MAX_GROWTH', 0.1);
const ADAPTER = process.env.SOAK_ADAPTER ?? 'koa';
const POSTGRES =
  process.env.SOAK_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** The resident set of a process, in bytes (Linux). */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line.split(/\s+/)[1]) * 1024;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** Starts the example (node with tsx's loader, so the pid is the server's own) and resolves with its URL. */
function startApp(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/app/src/main.ts'], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example did not listen within 60 s:\n${output}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1], output: () => output });
      }
    });
    child.once('exit', (code) => reject(new Error(`the example exited with ${code}:\n${output}`)));
  });
}

/** A database of its own on the PostgreSQL server, and the way to drop it. */
async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cs_soak_${process.pid}_${Date.now().toString(36)}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(url, init);
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A signed-in user's bearer header and a few items to read and update. */
async function prepare(base: string): Promise<{ auth: string; itemIds: number[] }> {
  const user = { name: 'soak', username: 'soak', email: 'soak@example.com', password: 'a soak passphrase long enough' };
  await json(`${base}/api/v1/users/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  const token = await json(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: user.username, password: user.password }).toString(),
  });
  const itemIds: number[] = [];
  for (let i = 0; i < 50; i++) {
    const item = await json(`${base}/api/v2/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `soak ${i}`, category: `c${i % 5}`, price: i + 0.5 }),
    });
    itemIds.push(item.id);
  }
  return { auth: `Bearer ${token.access_token}`, itemIds };
}

/** The mixed workload: about two reads for each write, over items, posts and the signed-in user. */
function workload(auth: string, itemIds: number[]) {
  let n = 0;
  const pick = () => itemIds[n++ % itemIds.length];
  const jsonHeaders = { 'content-type': 'application/json', authorization: auth };
  const kinds = [
    () => ({ method: 'GET', path: `/api/v2/items?category=c${n % 5}&sort=-price&limit=20` }),
    () => ({ method: 'GET', path: `/api/v2/items/${pick()}` }),
    () => ({ method: 'GET', path: '/api/v2/items?cursor=&limit=10' }),
    () => ({ method: 'GET', path: '/api/v2/posts/?limit=10', headers: { authorization: auth } }),
    () => ({ method: 'GET', path: '/api/v2/users/me', headers: { authorization: auth } }),
    () => ({ method: 'GET', path: '/auth/me', headers: { authorization: auth } }),
    () => ({
      method: 'POST',
      path: '/api/v2/items',
      headers: jsonHeaders,
      body: JSON.stringify({ name: `soak-${++n}`, category: 'soak', price: n % 100 }),
    }),
    () => ({
      method: 'PATCH',
      path: `/api/v2/items/${pick()}`,
      headers: jsonHeaders,
      body: JSON.stringify({ price: n++ % 1000 }),
    }),
    () => ({
      method: 'POST',
      path: '/api/v2/posts/',
      headers: jsonHeaders,
      body: JSON.stringify({ title: `soak ${++n}`, text: 'Written by the soak.' }),
    }),
  ];
  return [{ setupRequest: (req: any) => ({ ...req, ...kinds[n++ % kinds.length]() }) }];
}

function load(url: string, seconds: number, auth: string, itemIds: number[]): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests: workload(auth, itemIds) as any,
  });
}

async function main(): Promise<void> {
  const database = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'crudsmith-soak-'));
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  try {
    app = await startApp({
      DATABASE_URL: database.url,
      REDIS_URL: REDIS,
      REDIS_SESSION_PREFIX: `soak-${process.pid}:`,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      ADAPTER,
      ADMIN_PASSWORD: 'soak-admin-password-1',
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: 'warn',
      // The soak measures the service, not its limits: no request may be refused for quota.
      DEFAULT_RATE_LIMIT_LIMIT: '1000000000',
      REGISTER_RATE_LIMIT: '1000',
    });
    const pid = app.child.pid!;
    const { auth, itemIds } = await prepare(app.url);
    const booted = rssOf(pid);
    console.log(
      `soak: ${ADAPTER} on PostgreSQL and Redis, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${SECONDS} s; server RSS after start ${mb(booted)}`,
    );
    const warm = await load(app.url, WARMUP_SECONDS, auth, itemIds);
    const start = rssOf(pid);
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssOf(pid)), 5000);
    const result = await load(app.url, SECONDS, auth, itemIds);
    clearInterval(sampler);
    const end = rssOf(pid);
    const growth = (end - start) / start;
    const errors = result.errors + result.timeouts + result.non2xx + warm.errors + warm.timeouts + warm.non2xx;
    console.log(
      `requests: ${result.requests.total} in ${SECONDS} s (${Math.round(result.requests.average)}/s), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );
    console.log(
      `statuses: ${JSON.stringify(result.statusCodeStats)} (warm-up ${JSON.stringify(warm.statusCodeStats)})`,
    );
    console.log(
      `errors: ${result.errors} socket, ${result.timeouts} timeouts, ${result.non2xx} non-2xx (warm-up: ${warm.errors}, ${warm.timeouts}, ${warm.non2xx})`,
    );
    console.log(
      `server RSS: ${mb(start)} after warm-up, ${mb(end)} at the end (${(growth * 100).toFixed(1)}%; samples ${samples.map(mb).join(', ')})`,
    );
    const failures = [
      ...(errors > 0 ? [`${errors} errors`] : []),
      ...(growth > MAX_GROWTH ? [`memory grew ${(growth * 100).toFixed(1)}% (limit ${MAX_GROWTH * 100}%)`] : []),
    ];
    if (app.output().match(/\b(error|unhandled)\b/i)) console.log(`server output:\n${app.output().slice(-3000)}`);
    console.log(failures.length ? `SOAK FAILED: ${failures.join('; ')}` : 'soak passed');
    process.exitCode = failures.length ? 1 : 0;
  } finally {
    if (app && app.child.exitCode === null) {
      const exited = new Promise((done) => app!.child.once('exit', done));
      app.child.kill('SIGTERM');
      await Promise.race([exited, new Promise((done) => setTimeout(done, 15_000))]);
      if (app.child.exitCode === null) app.child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

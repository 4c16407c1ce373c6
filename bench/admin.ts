import type { Server } from 'node:http';
import { deepStrictEqual } from 'node:assert/strict';
import type { Knex } from 'knex';
import { bootstrap } from '@crudsmith/core';
import { admin } from '@crudsmith/admin';
import { itemRoutes } from './http/crudsmith-apps';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import { interleaved } from './lib/interleaved';
import { listen } from './lib/item-readers';
import { createItems, Item, seedItems } from './lib/items';
import { fromEnv, type Operation } from './lib/measure';
import type { ResultRow, Suite } from './lib/suite';

// What the admin's list page costs against the JSON list of the same rows: the items'
// page of the admin (20 rows found by a search, rendered as HTML by a signed-in admin)
// against `GET /items` of the generated API asking the same 20 rows, on the same Koa
// server and database, one request at a time, alternating. "crudsmith" is the admin page
// and "knex" the JSON list in the table. A list page must send at most 2 SQL queries for
// its list (its rows and their count, never one per row): the suite fails otherwise. The
// admin session's own lookup is counted apart and printed.

const ROWS = 1000;
/** The rows the search finds: a name prefix no seeded item has. */
const FOUND = 20;
const PREFIX = 'admin-bench-';
const ADMIN_USER = { username: 'bench', password: 'a bench admin password' };
const SECRET = 'the admin bench signs its tokens with this key';
const MAX_QUERIES = 2;

/** The admin page (a page of 25 shows the 20 found) and the JSON list asking the same rows. */
const ADMIN_PAGE = `/admin/items/?page=1&rows-per-page-select=25&column-to-search=name&search=${PREFIX}&sort=id`;
const JSON_LIST = `/items?name__startswith=${PREFIX}&sort=id&limit=${FOUND}`;

/** Signs in as the admin user through the login form; answers the session's cookie header. */
async function signIn(base: string): Promise<string> {
  const page = await fetch(`${base}/admin/login`);
  const token = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!token) throw new Error('the admin login page shows no CSRF token');
  const cookies = (res: Response) => res.headers.getSetCookie().map((line) => line.split(';')[0]);
  const body = new URLSearchParams({ csrf_token: token, ...ADMIN_USER });
  const posted = await fetch(`${base}/admin/login`, {
    method: 'POST',
    redirect: 'manual',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies(page).join('; ') },
  });
  if (posted.status !== 303) throw new Error(`admin sign-in answered ${posted.status}`);
  return [...cookies(page), ...cookies(posted)].join('; ');
}

/** A GET that must answer 200; answers its text. */
function getter(url: string, headers: Record<string, string> = {}): Operation {
  return async () => {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    return res.text();
  };
}

/** Counts the statements `knex` sends while `op` runs once: those reading the items (the list's), and the others. */
async function statementsOf(knex: Knex, op: Operation): Promise<{ list: number; other: number }> {
  const sent = { list: 0, other: 0 };
  const count = (query: { sql: string }) => void (query.sql.includes('items') ? sent.list++ : sent.other++);
  knex.on('query', count);
  try {
    await op();
  } finally {
    knex.off('query', count);
  }
  return sent;
}

/** The admin page ÷ the JSON list on one engine, after checking both show the same rows and the page's query count. */
async function measure(engine: Engine): Promise<ResultRow | undefined> {
  const db = await openDatabase(engine);
  if (!db) return undefined;
  let server: Server | undefined;
  const plugin = admin({
    knex: db.knex,
    secretKey: SECRET,
    bcryptRounds: 4,
    models: { items: { model: Item, allowedActions: ['view'], createSchema: ['name'], updateSchema: ['name'] } },
  });
  const app = bootstrap({ routers: [itemRoutes(db.knex)], plugins: [plugin] });
  try {
    await createItems(db.knex);
    await seedItems(db.knex, ROWS);
    const now = new Date();
    await db.knex('items').insert(
      Array.from({ length: FOUND }, (_, i) => ({
        name: `${PREFIX}${String(i).padStart(2, '0')}`,
        category: 'bench',
        price: i,
        created_at: now,
      })),
    );
    await app.start(db.knex);
    await plugin.createAdminUser(ADMIN_USER.username, ADMIN_USER.password);
    const served = await listen(app);
    server = served.server;
    const cookie = await signIn(served.url);
    const page = getter(`${served.url}${ADMIN_PAGE}`, { cookie });
    const list = getter(`${served.url}${JSON_LIST}`);

    // Both show the same rows: every name the JSON list answers is on the page, in its order.
    const names = (JSON.parse((await list()) as string) as { data: { name: string }[] }).data.map((row) => row.name);
    const html = (await page()) as string;
    deepStrictEqual(names.length, FOUND, 'the JSON list answers the rows the search finds');
    deepStrictEqual(
      names.map((name) => html.indexOf(`>${name}<`)).every((at, i, all) => at > 0 && (i === 0 || at > all[i - 1])),
      true,
      'the admin page shows the same rows in the same order',
    );

    const queries = await statementsOf(db.knex, page);
    const listQueries = await statementsOf(db.knex, list);
    console.log(
      `  ${engine}: SQL queries per request: admin list page ${queries.list} (and ${queries.other} for its session), JSON list ${listQueries.list + listQueries.other}`,
    );
    if (queries.list > MAX_QUERIES)
      throw new Error(`the admin list page sends ${queries.list} SQL queries for its list (at most ${MAX_QUERIES})`);

    const result = await interleaved(page, list, fromEnv('BENCH_ADMIN_REQUESTS', 2000));
    console.log(`  ${engine}: admin page ÷ JSON list ${result.ratio.toFixed(2)}`);
    return {
      suite: 'admin',
      engine,
      operation: `admin list page (${FOUND} rows, search; ${queries.list} + ${queries.other} queries) ÷ JSON list`,
      ...result,
    };
  } finally {
    if (server) await new Promise((resolve) => server!.close(resolve));
    await app.close();
    await db.close();
  }
}

export const adminSuite: Suite = {
  name: 'admin',
  async run() {
    const rows: ResultRow[] = [];
    for (const engine of ENGINES) {
      const row = await measure(engine);
      if (row) rows.push(row);
    }
    return rows;
  },
};

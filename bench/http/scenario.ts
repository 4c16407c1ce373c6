import type { Knex } from 'knex';
import { CrudRepository } from '@crudsmith/core';
import type { Engine } from '../lib/db';
import { CATEGORIES, createItems, Item, prng, seedItems, type ItemsIndex } from '../lib/items';
import { CURSOR_KEY } from './crudsmith-apps';
import { itemTag } from './item-tag';
import type { RequestKind } from './load';
import type { Command } from './protocol';
import { warmUp, type ServerProcess } from './server';

// What the HTTP and peers suites share: the table seeded for them, the four operations
// (each a factory of request sequences, the same sequence for every side), a traced
// request (the SQL a server sent for it) and the untimed warm-up.

export const ROWS = Number(process.env.BENCH_HTTP_ROWS) || 10_000;
const PAGE = '&price__gte=10&sort=-price&offset=40&limit=20';
/** The rows measured, by their first word (`BENCH_HTTP_OPERATIONS=create,update` to run fewer). */
export const OPERATIONS = (
  process.env.BENCH_HTTP_OPERATIONS ?? 'read,conditional,list,deep,cursor,export,create,bulk,update'
).split(',');
/** The rows one bulk create sends. */
export const BULK_ROWS = 50;
/** Where the deep offset pages start: nine tenths into the table, in price order. */
const DEEP = () => Math.floor(ROWS * 0.9);

/** An operation: its row's name, and a factory of its request sequence. */
export interface Operation {
  name: string;
  kind: () => RequestKind;
  /**
   * A keyset (cursor) page: served by crudsmith and the natural floor only (the same-SQL
   * floor and the peers have none), and compared by its rows and whether more follow.
   */
  keyset?: boolean;
  /** For a keyset page, the id the natural floor's `after` takes: the last row before the page (crudsmith's cursors are sealed). */
  after?: string;
  /** `false`: the same-SQL floor does not serve it (only crudsmith and the natural floor do). */
  sameSqlFloor?: false;
  /** `false`: the peers have no such route. */
  peers?: false;
}

/** The seeded table: the live rows' ids, and a cursor nine tenths into them in id order. */
export interface Seeded {
  ids: number[];
  deepCursor: string;
  /** The id of the row the deep cursor follows. */
  deepAfter: number;
}

/** The operations, each a factory of request sequences (the same sequence for each side). */
export function operations({ ids: activeIds, deepCursor, deepAfter }: Seeded): Operation[] {
  const randomId = (random: () => number, ids = activeIds) => ids[Math.floor(random() * ids.length)];
  // Conditional reads ask for rows no update touches, so the tag their client holds stays current.
  const unchanged = activeIds.filter((_, i) => i % 20 === 7);
  const updatable = activeIds.filter((_, i) => i % 20 !== 7);
  let created = 0;
  const newItem = () => ({
    name: `http-${++created}`,
    description: 'Made by the HTTP bench.',
    category: 'bench',
    price: 12.5,
  });
  return [
    {
      name: 'read one',
      kind: () => {
        const random = prng(11);
        return { method: 'GET', next: () => ({ path: `/items/${randomId(random)}` }) };
      },
    },
    {
      name: 'conditional read (304)',
      peers: false,
      // The tag a client holds from an earlier read of a row never updated since the seed.
      kind: () => {
        const random = prng(17);
        return {
          method: 'GET',
          status: 304,
          next: () => {
            const id = randomId(random, unchanged);
            return { path: `/items/${id}`, headers: { 'if-none-match': itemTag(id, null) } };
          },
        };
      },
    },
    {
      name: `list ${20} + filter + sort`,
      kind: () => {
        let n = 0;
        return { method: 'GET', next: () => ({ path: `/items?category=c${n++ % CATEGORIES}${PAGE}` }) };
      },
    },
    {
      name: 'deep offset page of 20',
      // The whole table by price: an offset page costs what it skips, on every side.
      kind: () => {
        let n = 0;
        return {
          method: 'GET',
          next: () => ({ path: `/items?sort=-price&offset=${DEEP() + (n++ % 10) * 20}&limit=20` }),
        };
      },
    },
    {
      name: 'cursor page 1',
      keyset: true,
      after: '',
      kind: () => ({ method: 'GET', next: () => ({ path: '/items?cursor=&limit=20' }) }),
    },
    {
      name: 'cursor page deep',
      keyset: true,
      after: String(deepAfter),
      kind: () => ({ method: 'GET', next: () => ({ path: `/items?cursor=${deepCursor}&limit=20` }) }),
    },
    {
      name: 'export ndjson (category)',
      sameSqlFloor: false,
      peers: false,
      // Every live row of one category (a twentieth of the table), streamed.
      kind: () => {
        let n = 0;
        return {
          method: 'GET',
          next: () => ({ path: `/items/export?format=ndjson&category=c${n++ % CATEGORIES}` }),
        };
      },
    },
    {
      name: 'create',
      // Category `bench`: created rows never show in the listed categories.
      kind: () => ({ method: 'POST', next: () => ({ path: '/items', body: newItem() }) }),
    },
    {
      name: `bulk create of ${BULK_ROWS}`,
      sameSqlFloor: false,
      peers: false,
      kind: () => ({
        method: 'POST',
        next: () => ({ path: '/items/bulk', body: Array.from({ length: BULK_ROWS }, newItem) }),
      }),
    },
    {
      name: 'update',
      kind: () => {
        const random = prng(13);
        return {
          method: 'PATCH',
          next: () => ({
            path: `/items/${randomId(random, updatable)}`,
            body: { price: Math.round(random() * 100000) / 100, description: 'Updated by the HTTP bench.' },
          }),
        };
      },
    },
  ];
}

/**
 * Answers the SQL (and the count of Redis commands) a server sent while serving one
 * request, and the request's answer: its status, its ETag, and its body (parsed when
 * JSON, the text otherwise, null when empty).
 */
export async function traced(
  server: ServerProcess,
  request: { method: string; path: string; body?: unknown; headers?: Record<string, string> },
): Promise<{ status: number; json: unknown; etag: string | null; sql: string[]; redis: number }> {
  server.child.send({ type: 'trace', on: true } satisfies Command);
  const response = await fetch(`http://127.0.0.1:${server.port}${request.path}`, {
    method: request.method,
    headers: { ...request.headers, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const text = await response.text();
  const json =
    text === '' ? null : response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text;
  const { sql, redis } = await server.ask({ type: 'trace', on: false }, 'traced');
  return { status: response.status, json, etag: response.headers.get('etag'), sql: sql.sort(), redis };
}

/** Every operation in turn on one server, untimed (but those answering other than a 2xx). */
export function warmUpAll(server: ServerProcess, ops: { kind: () => RequestKind }[]): Promise<void> {
  const kinds = ops.map((op) => op.kind()).filter((kind) => kind.status === undefined);
  let n = 0;
  const mixed: RequestKind = {
    method: 'GET',
    next: () => {
      const kind = kinds[n++ % kinds.length];
      return { method: kind.method, ...kind.next() };
    },
  };
  return warmUp(server, mixed);
}

/** Creates and seeds `items` (ROWS rows and the shaped index unless told), and answers what the operations need. */
export async function prepare(
  knex: Knex,
  engine: Engine,
  { rows = ROWS, index = 'shaped' }: { rows?: number; index?: ItemsIndex } = {},
): Promise<Seeded> {
  const started = Date.now();
  // What a deployment on SQLite would use; each server process opens the file on its own.
  if (engine === 'sqlite') await knex.raw('PRAGMA journal_mode = WAL');
  await createItems(knex, index);
  await seedItems(knex, rows);
  await knex.raw(engine === 'postgres' ? 'VACUUM ANALYZE items' : 'ANALYZE');
  const ids = ((await knex('items').where('is_deleted', false).pluck('id')) as number[]).sort((a, b) => a - b);
  // The cursor a client holds after paging nine tenths of the way through, made as
  // crudsmith makes it: the next_cursor of a one-row page ending on that row.
  const deepAfter = ids[Math.floor(ids.length * 0.9)];
  const deep = await new CrudRepository(Item, { cursorKey: CURSOR_KEY }).getMultiByCursor(knex, {
    filters: { id__gte: deepAfter },
    limit: 1,
  });
  console.log(
    `  ${engine}: ${rows.toLocaleString('en-US')} rows seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return { ids, deepCursor: deep.next_cursor!, deepAfter };
}

import { deepStrictEqual } from 'node:assert/strict';
import { READ_FIELDS } from './crudsmith-apps';
import type { RequestKind } from './load';
import type { Peer } from './protocol';
import { traced } from './scenario';
import type { ServerProcess } from './server';

// How the http-taught suite checks that every side answers what the natural Koa floor
// answers before it measures: crudsmith and the hand-written floors byte for byte (but a
// created row's own values), the peers once their own wire format is read back into
// crudsmith's (see peerAnswer for each difference).

/** One side of the check: its server, its request sequence, and the peer it is, if one. */
export interface CheckedSide {
  server: ServerProcess;
  kind: RequestKind;
  peer?: Peer;
}

type Json = Record<string, unknown>;
type Item = { id: number; price: number | null };
/** The operation's first word: read, list, create or update. */
type Kind = string;

const DATES = ['last_sold', 'created_at', 'updated_at'];

/**
 * A peer's row as crudsmith answers it: crudsmith's read fields only (both peers add
 * `is_deleted` and `deleted_at`), PostgreSQL's decimal price as a number (both answer pg's
 * string), and SQLite's timestamps, stored as epoch milliseconds, as ISO strings (both
 * answer the stored number).
 */
function peerRow(row: Json): Json {
  const out: Json = {};
  for (const field of READ_FIELDS) {
    const value = row[field];
    if (field === 'price' && typeof value === 'string') out[field] = Number(value);
    else if (DATES.includes(field) && typeof value === 'number') out[field] = new Date(value).toISOString();
    else out[field] = value;
  }
  return out;
}

/**
 * A peer's answer in crudsmith's shape. A list: Feathers answers `{ total, limit, skip,
 * data }`, @dataui/crud `{ data, count, total, page, pageCount }`, both read as `{ data,
 * total_count: total }`. An update: both answer the patched row where crudsmith answers no
 * body, so the row must carry the values sent, and is then dropped. A create: Nest's
 * row has `updated_at` stamped at creation on SQLite (TypeORM's update-date column), read as null.
 */
function peerAnswer(
  { peer, kind, label }: { peer: Peer; kind: Kind; label: string },
  json: unknown,
  body: unknown,
): unknown {
  if (json === null || typeof json !== 'object') return json;
  const answer = json as Json;
  if (kind === 'list' && Array.isArray(answer.data))
    return { data: (answer.data as Json[]).map(peerRow), total_count: answer.total };
  if (answer.detail !== undefined || answer.message !== undefined) return answer;
  const row = peerRow(answer);
  if (kind === 'update') {
    const sent = Object.fromEntries(Object.keys(body as Json).map((key) => [key, row[key]]));
    deepStrictEqual(sent, body, `${label}: ${peer}'s updated row does not carry the values sent`);
    return null;
  }
  if (kind === 'create' && peer === 'nest') row.updated_at = null;
  return row;
}

/**
 * A list answer with rows of equal price in id order: the floor orders by the price alone,
 * so its ties come in any order. A tie across the page's first or last row may even put
 * different rows on the page: those are compared by their price alone.
 */
function unordered(json: unknown): unknown {
  const data = (json as Json | null)?.data as Item[] | undefined;
  if (!data) return json;
  const edges = new Set([data[0]?.price, data[data.length - 1]?.price]);
  const rows = [...data].sort((a, b) => (b.price ?? -Infinity) - (a.price ?? -Infinity) || a.id - b.id);
  return { ...(json as Json), data: rows.map((row) => (edges.has(row.price) ? { price: row.price } : row)) };
}

/**
 * Fails unless every side answers what `reference` answers, request by request (each side
 * its own sequence: the same requests, but a create's names, and so rows, of its own).
 * Answers the statements each side sent per request. A read's ETag is compared between
 * crudsmith and the floors only: Feathers sends none, Nest Express's hash of the body.
 */
export async function checkAnswers<S extends string>(
  sides: Record<S, CheckedSide>,
  reference: S,
  kind: Kind,
  label: string,
): Promise<Record<S, number>> {
  const names = Object.keys(sides) as S[];
  const statements = Object.fromEntries(names.map((name) => [name, 0])) as Record<S, number>;
  const TRIES = 5;
  for (let i = 0; i < TRIES; i++) {
    const answers = {} as Record<S, unknown>;
    for (const name of names) {
      const { server, kind: requests, peer } = sides[name];
      const request = { method: requests.method, ...requests.next() };
      const answer = await traced(server, request);
      statements[name] += answer.sql.length / TRIES;
      // BENCH_SHOW_SQL=1 prints what each side sent for its first request, to compare plans.
      if (process.env.BENCH_SHOW_SQL && i === 0)
        console.log(`  ${label} ${name} sent:\n    ${answer.sql.join('\n    ')}`);
      let json = peer ? peerAnswer({ peer, kind, label: `${label} ${name}` }, answer.json, request.body) : answer.json;
      if (kind === 'create' && json && typeof json === 'object') {
        json = { ...(json as Json) };
        for (const key of ['id', 'name', 'created_at']) delete (json as Json)[key];
      }
      answers[name] = {
        status: answer.status,
        json: kind === 'list' ? unordered(json) : json,
        etag: kind === 'read' && !peer ? answer.etag : null,
      };
    }
    for (const name of names) {
      const expected = answers[reference] as { etag: string | null };
      const actual = { ...(answers[name] as object), ...(sides[name].peer ? { etag: expected.etag } : {}) };
      deepStrictEqual(actual, answers[reference], `${label}: ${name} answers differently from ${reference}`);
    }
  }
  return statements;
}

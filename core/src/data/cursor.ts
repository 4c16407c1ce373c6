import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { BadRequestError } from '../errors/http-error';
import { coerceValue } from './coerce';
import type { ModelInfo } from './model-info';
import type { SortSpec } from './sort';

// A keyset cursor is opaque to clients: the sort values of the last row, signed together
// with the query's shape (table and sort), so a malformed, hand-made or foreign cursor is
// a 400 rather than a silently wrong page.
const processKey = randomBytes(32);

/** Bytes (or text) that sign cursors. */
export type CursorKeyValue = string | Buffer;

/**
 * The cursor's signing key, or a function answering it when the app's secret is only
 * known later (read from a file or the database): it is called when the first cursor is
 * signed or read, and its answer kept.
 */
export type CursorKey = CursorKeyValue | (() => CursorKeyValue | Promise<CursorKeyValue>);

const provided = new WeakMap<() => unknown, Promise<CursorKeyValue>>();

/**
 * The key to sign with: the given one, a provider's answer (asked once; asked again
 * after a failure), or without a key the process's random one, which no other process
 * and no restart shares.
 */
export function cursorKeyOf(key: CursorKey | undefined): CursorKeyValue | Promise<CursorKeyValue> {
  if (typeof key !== 'function') return key ?? processKey;
  let answer = provided.get(key);
  if (!answer) {
    answer = Promise.resolve().then(key).then((value) => {
      // An empty key would sign with nothing secret: anyone could make a valid cursor.
      if (!(typeof value === 'string' || Buffer.isBuffer(value)) || value.length === 0) throw new Error('cursorKey: the provider answered no key');
      return value;
    });
    provided.set(key, answer);
    answer.catch(() => provided.delete(key));
  }
  return answer;
}

function shapeOf(info: ModelInfo, specs: SortSpec[]): string {
  return `${info.table}|${specs.map((s) => `${s.column}:${s.order}`).join(',')}`;
}

function sign(key: CursorKeyValue, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest().subarray(0, 16);
}

/** Encodes the sort values of the last row of a page. */
export function encodeCursor(row: Record<string, unknown>, ctx: { info: ModelInfo; specs: SortSpec[]; key: CursorKeyValue }): string {
  const values = ctx.specs.map((s) => {
    const v = row[s.column];
    return v instanceof Date ? v.toISOString() : (v ?? null);
  });
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${sign(ctx.key, `${shapeOf(ctx.info, ctx.specs)}|${payload}`).toString('base64url')}`;
}

/** Decodes a cursor this query issued, or throws 400 `Invalid cursor`. */
export function decodeCursor(token: string, ctx: { info: ModelInfo; specs: SortSpec[]; key: CursorKeyValue }): unknown[] {
  const invalid = () => new BadRequestError('Invalid cursor');
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined) throw invalid();
  const expected = sign(ctx.key, `${shapeOf(ctx.info, ctx.specs)}|${payload}`);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(values) || values.length !== ctx.specs.length) throw invalid();
  return values.map((v, i) => coerceValue(v, ctx.info.columns.get(ctx.specs[i].column)!, ['query', 'cursor']));
}

/**
 * Restricts the query to rows strictly after the cursor row in the sort order:
 * (a after va) OR (a = va AND b after vb) OR ..., with NULLs first ascending and last
 * descending, as orderSql sorts them. One raw condition with bound values (identifiers
 * as `??`), rather than nested callbacks: its SQL is the same for every page of a query,
 * so the compiled-SQL cache keeps it and a deep page costs what page 1 costs.
 */
export function applyKeyset(qb: Knex.QueryBuilder, values: unknown[], ctx: { info: ModelInfo; specs: SortSpec[]; alias: string }): void {
  const branches: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  ctx.specs.forEach((spec, i) => {
    const v = values[i];
    if (spec.order === 'desc' && v === null) return; // nothing sorts after NULL descending
    const terms: string[] = [];
    for (let j = 0; j < i; j++) {
      if (values[j] === null) {
        terms.push('?? is null');
        bindings.push(ref(ctx, j));
      } else {
        terms.push('?? = ?');
        bindings.push(ref(ctx, j), values[j] as Knex.Value);
      }
    }
    if (spec.order === 'asc') {
      if (v === null) {
        terms.push('?? is not null');
        bindings.push(ref(ctx, i));
      } else {
        terms.push('?? > ?');
        bindings.push(ref(ctx, i), v as Knex.Value);
      }
    } else if (ctx.info.columns.get(spec.column)?.nullable ?? true) {
      terms.push('(?? < ? or ?? is null)');
      bindings.push(ref(ctx, i), v as Knex.Value, ref(ctx, i));
    } else {
      terms.push('?? < ?');
      bindings.push(ref(ctx, i), v as Knex.Value);
    }
    branches.push(`(${terms.join(' and ')})`);
  });
  if (branches.length > 0) qb.whereRaw(`(${branches.join(' or ')})`, bindings);
}

function ref(ctx: { specs: SortSpec[]; alias: string }, i: number): string {
  return `${ctx.alias}.${ctx.specs[i].column}`;
}

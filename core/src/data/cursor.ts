import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { BadRequestError } from '../errors/http-error';
import { coerceValue } from './coerce';
import type { ModelInfo } from '../model/model-info';
import type { SortSpec } from './sort';

// A keyset cursor is opaque to clients: the sort values of the last row, encrypted and
// authenticated (AES-256-GCM) with the query's shape (table and sort) as associated data.
// Encrypted, not only signed: the values are the last row's, and a client must learn
// nothing from them it was not answered; authenticated with the shape, so a malformed,
// hand-made or foreign cursor is a 400 rather than a silently wrong page.
const processKey = randomBytes(32);

/** Bytes (or text) that cursors are encrypted with (a 256-bit key is derived from them). */
export type CursorKeyValue = string | Buffer;

/**
 * The cursor's key, or a function answering it when the app's secret is only
 * known later (read from a file or the database): it is called when the first cursor is
 * made or read, and its answer kept.
 */
export type CursorKey = CursorKeyValue | (() => CursorKeyValue | Promise<CursorKeyValue>);

const provided = new WeakMap<() => unknown, Promise<CursorKeyValue>>();

/**
 * The key to encrypt with: the given one, a provider's answer (asked once; asked again
 * after a failure), or without a key the process's random one, which no other process
 * and no restart shares.
 */
export function cursorKeyOf(key: CursorKey | undefined): CursorKeyValue | Promise<CursorKeyValue> {
  if (typeof key !== 'function') return key ?? processKey;
  let answer = provided.get(key);
  if (!answer) {
    answer = Promise.resolve()
      .then(key)
      .then((value) => {
        // An empty key would hide nothing: anyone could read or make a cursor.
        if (!(typeof value === 'string' || Buffer.isBuffer(value)) || value.length === 0)
          throw new Error('cursorKey: the provider answered no key');
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

// Keys derived once per cursor key: a 256-bit AES key bound to its use, whatever the
// length of the app's secret.
const derived = new Map<CursorKeyValue, Buffer>();

function aesKey(key: CursorKeyValue): Buffer {
  let aes = derived.get(key);
  if (!aes) {
    aes = createHmac('sha256', key).update('crudsmith keyset cursor v2').digest();
    if (derived.size >= 64) derived.clear();
    derived.set(key, aes);
  }
  return aes;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Encodes the sort values of the last row of a page, encrypted for this query's shape. */
export function encodeCursor(
  row: Record<string, unknown>,
  ctx: { info: ModelInfo; specs: SortSpec[]; key: CursorKeyValue },
): string {
  const values = ctx.specs.map((s) => {
    const v = row[s.column];
    return v instanceof Date ? v.toISOString() : (v ?? null);
  });
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', aesKey(ctx.key), iv);
  cipher.setAAD(Buffer.from(shapeOf(ctx.info, ctx.specs)));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** Decodes a cursor this query issued, or throws 400 `Invalid cursor`. */
export function decodeCursor(
  token: string,
  ctx: { info: ModelInfo; specs: SortSpec[]; key: CursorKeyValue },
): unknown[] {
  const invalid = () => new BadRequestError('Invalid cursor');
  // Longer than any URL a server takes (a cursor carries a few sort values, text ones
  // included): refused before any work.
  if (token.length > 65_536 || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) throw invalid();
  let values: unknown;
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey(ctx.key), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(shapeOf(ctx.info, ctx.specs)));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
    values = JSON.parse(text);
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
export function applyKeyset(
  qb: Knex.QueryBuilder,
  values: unknown[],
  ctx: { info: ModelInfo; specs: SortSpec[]; alias: string },
): void {
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

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { BadRequestError } from '../errors/http-error';
import { coerceValue } from './coerce';
import type { ModelInfo } from './model-info';
import type { SortSpec } from './sort';

// A keyset cursor is opaque to clients: the sort values of the last row, signed together
// with the query's shape (table and sort), so a malformed, hand-made or foreign cursor is
// a 400 rather than a silently wrong page (DESIGN §8).
const processKey = randomBytes(32);

/** The cursor's signing key: the app's secret, or a per-process random one. */
export type CursorKey = string | Buffer;

function shapeOf(info: ModelInfo, specs: SortSpec[]): string {
  return `${info.table}|${specs.map((s) => `${s.column}:${s.order}`).join(',')}`;
}

function sign(key: CursorKey | undefined, text: string): Buffer {
  return createHmac('sha256', key ?? processKey).update(text).digest().subarray(0, 16);
}

/** Encodes the sort values of the last row of a page. */
export function encodeCursor(row: Record<string, unknown>, ctx: { info: ModelInfo; specs: SortSpec[]; key?: CursorKey }): string {
  const values = ctx.specs.map((s) => {
    const v = row[s.column];
    return v instanceof Date ? v.toISOString() : (v ?? null);
  });
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${sign(ctx.key, `${shapeOf(ctx.info, ctx.specs)}|${payload}`).toString('base64url')}`;
}

/** Decodes a cursor this query issued, or throws 400 `Invalid cursor`. */
export function decodeCursor(token: string, ctx: { info: ModelInfo; specs: SortSpec[]; key?: CursorKey }): unknown[] {
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
 * descending, as orderSql sorts them.
 */
export function applyKeyset(qb: Knex.QueryBuilder, values: unknown[], ctx: { info: ModelInfo; specs: SortSpec[]; alias: string }): void {
  const ref = (i: number) => `${ctx.alias}.${ctx.specs[i].column}`;
  qb.where((any) => {
    ctx.specs.forEach((spec, i) => {
      const v = values[i];
      if (spec.order === 'desc' && v === null) return; // nothing sorts after NULL descending
      any.orWhere((branch) => {
        for (let j = 0; j < i; j++) {
          if (values[j] === null) branch.whereNull(ref(j));
          else branch.where(ref(j), values[j] as Knex.Value);
        }
        if (spec.order === 'asc') {
          if (v === null) branch.whereNotNull(ref(i));
          else branch.where(ref(i), '>', v as Knex.Value);
        } else {
          const nullable = ctx.info.columns.get(spec.column)?.nullable ?? true;
          if (nullable) branch.where((w) => w.where(ref(i), '<', v as Knex.Value).orWhereNull(ref(i)));
          else branch.where(ref(i), '<', v as Knex.Value);
        }
      });
    });
  });
}

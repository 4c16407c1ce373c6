import type { Knex } from 'knex';
import { ValidationError } from '../errors/http-error';
import type { Dialect } from './dialect';

// LIKE must mean the same on every engine: case-sensitive for like, folding
// Unicode case for ilike, with `\` as the escape character. SQLite's LIKE folds ASCII
// case, so case-sensitive patterns run as GLOB there; MariaDB's default collation folds
// case and accents, so comparisons run in utf8mb4_bin.

/** Escapes `\`, `%` and `_` so a value matches literally inside a LIKE pattern. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Refuses a pattern that ends in a lone escape character with a 422: PostgreSQL rejects it
 * (a driver error), while MariaDB and the GLOB rewrite would read it as a literal `\`.
 * `\\` at the end matches a backslash everywhere.
 */
export function checkLikePattern(pattern: string, loc: (string | number)[]): string {
  let escapes = 0;
  for (let i = pattern.length - 1; i >= 0 && pattern[i] === '\\'; i--) escapes++;
  if (escapes % 2 === 1) {
    throw ValidationError.of(
      loc,
      "A LIKE pattern may not end with the escape character '\\'; write '\\\\' to match a backslash",
      'like_pattern',
    );
  }
  return pattern;
}

/** Rewrites a LIKE pattern (with `\` escapes) as the equivalent SQLite GLOB pattern. */
export function likeToGlob(pattern: string): string {
  let glob = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) glob += literalGlob(pattern[++i]);
    else if (c === '%') glob += '*';
    else if (c === '_') glob += '?';
    else glob += literalGlob(c);
  }
  return glob;
}

function literalGlob(c: string): string {
  return c === '*' || c === '?' || c === '[' ? `[${c}]` : c;
}

const registered = new WeakSet<object>();

/** The name of the Unicode-aware lower() crudsmith registers on better-sqlite3 connections. */
export const SQLITE_LOWER = 'crudsmith_lower';

/**
 * SQLite's lower() folds ASCII only. On better-sqlite3 connections we register a
 * Unicode-aware one; the connection is acquired through knex so a transaction's own
 * connection is the one that gets it. Returns false when the driver cannot take a
 * function (then ASCII-only lower() is used).
 */
export async function ensureSqliteLower(db: Knex): Promise<boolean> {
  const client = db.client as any;
  if (client.driverName !== 'better-sqlite3') return false;
  const connection = await client.acquireConnection();
  try {
    if (!registered.has(connection)) {
      connection.function(SQLITE_LOWER, { deterministic: true }, (s: unknown) =>
        s == null ? null : String(s).toLowerCase(),
      );
      registered.add(connection);
    }
  } finally {
    await client.releaseConnection(connection);
  }
  return true;
}

/** Options of one LIKE comparison. */
export interface LikeOptions {
  dialect: Dialect;
  insensitive: boolean;
  negate: boolean;
  /** SQLite only: whether crudsmith_lower is available on the connection. */
  unicodeLower: boolean;
}

/** Adds `column [NOT] LIKE pattern` with the same meaning on every engine. */
export function whereLike(qb: Knex.QueryBuilder, column: string, pattern: string, options: LikeOptions): void {
  const not = options.negate ? 'NOT ' : '';
  const nonNull = (sql: string, bindings: string[]) =>
    // NOT LIKE is false for NULL on every engine; keep that explicit and identical.
    qb.whereRaw(
      options.negate ? `(?? IS NOT NULL AND ${sql})` : sql,
      options.negate ? [column, ...bindings] : bindings,
    );
  switch (options.dialect) {
    case 'pg':
      nonNull(`?? ${not}${options.insensitive ? 'ILIKE' : 'LIKE'} ? ESCAPE '\\'`, [column, pattern]);
      return;
    case 'mysql':
      if (options.insensitive)
        nonNull(`LOWER(??) COLLATE utf8mb4_bin ${not}LIKE LOWER(?) ESCAPE '\\\\'`, [column, pattern]);
      else nonNull(`?? COLLATE utf8mb4_bin ${not}LIKE ? ESCAPE '\\\\'`, [column, pattern]);
      return;
    case 'sqlite':
      if (options.insensitive) {
        const lower = options.unicodeLower ? SQLITE_LOWER : 'lower';
        nonNull(`${lower}(??) ${not}GLOB ?`, [column, likeToGlob(pattern.toLowerCase())]);
      } else {
        nonNull(`?? ${not}GLOB ?`, [column, likeToGlob(pattern)]);
      }
  }
}

import { KnexTimeoutError } from 'knex';
import type { ErrorCode } from './codes';
import {
  BadRequestError,
  ConflictError,
  DuplicateValueError,
  HttpError,
  ServiceUnavailableError,
  ValidationError,
} from './http-error';

// The one place where driver errors become HTTP errors. Each engine reports the same
// failure differently (objection wraps some as db-errors classes, better-sqlite3 throws
// a raw SqliteError), so we read the codes; a message only to name the column of a NOT
// NULL violation where the driver gives it nowhere else.
const UNIQUE = { pg: '23505', mysql: 1062, sqlite: ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'] };
const FOREIGN_KEY = { pg: '23503', mysql: [1451, 1452, 1216, 1217], sqlite: ['SQLITE_CONSTRAINT_FOREIGNKEY'] };
const NOT_NULL = { pg: '23502', mysql: [1048, 1364], sqlite: ['SQLITE_CONSTRAINT_NOTNULL'] };
// MATCH ... AGAINST over a column with no FULLTEXT index of its own (bootstrap refuses such a
// `match` filter at startup; a router mounted without bootstrap, or a repository called
// directly, still gets here).
const NO_FULLTEXT_INDEX = { mysql: 1191 };
// The engine rolled the transaction back to end a deadlock with a concurrent one (two bulk
// upserts locking the same absent values, say), or a serializable snapshot failed: the
// request was fine and may succeed when sent again, so a 409 rather than a 500.
const CONCURRENT = { pg: ['40P01', '40001'], mysql: [1213] };
// PostgreSQL's cardinality violation raised by an INSERT … ON CONFLICT DO UPDATE whose rows
// name one stored row twice (a bulk upsert refuses such items before; this is its safety
// net). Told apart by the server routine that raised it, which no locale translates: the
// same code from a subquery answering two rows stays a 500.
const ROW_TWICE = { pg: '21000', routine: 'ExecOnConflictUpdate' };
const BAD_VALUE = { pg: ['22001', '22003', '22007', '22008', '22P02'], mysql: [1264, 1265, 1292, 1366, 1406] };
// The database cannot be reached or did not answer in time: the client's request was fine,
// so a 503 it may retry, never a 500. Socket errors as Node reports them; PostgreSQL's
// connection exceptions (class 08), shutdown, too many connections and statement timeout;
// MySQL/MariaDB's lost connections, too many connections and statement timeouts; mysql2's
// own codes for a lost connection or a timed-out command.
const UNREACHABLE = {
  socket: [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ECONNABORTED',
  ],
  pg: ['57014', '57P01', '57P02', '57P03', '53300'],
  pgClass: '08',
  mysql: [1040, 1053, 1927, 1969, 2002, 2003, 2006, 2013, 3024],
  mysql2: ['PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR'],
};

function rootOf(error: any): any {
  // objection's db-errors keep the driver error as `nativeError`.
  return error?.nativeError ?? error;
}

function pgCode(error: any): string | undefined {
  return typeof error?.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) ? error.code : undefined;
}

/**
 * 503 with `Retry-After`: the database is unreachable, refused or dropped the connection,
 * or did not answer within its timeouts. What every connection-level failure becomes.
 */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  override readonly code: ErrorCode = 'database_unavailable';

  constructor(
    detail = 'The database is unavailable; try again shortly',
    options: { cause?: unknown; retryAfter?: number } = {},
  ) {
    super(detail, options);
  }
}

/** Whether a driver error says the database could not be reached or did not answer in time. */
export function isDatabaseUnreachable(error: unknown): boolean {
  const root = rootOf(error);
  if (error instanceof KnexTimeoutError || root instanceof KnexTimeoutError || root instanceof DatabaseUnavailableError)
    return true;
  const code = root?.code;
  const pg = pgCode(root);
  return (
    UNREACHABLE.socket.includes(code) ||
    UNREACHABLE.mysql2.includes(code) ||
    (pg !== undefined && (UNREACHABLE.pg.includes(pg) || pg.startsWith(UNREACHABLE.pgClass))) ||
    UNREACHABLE.mysql.includes(root?.errno)
  );
}

/**
 * Throws `error` as its HttpError when it maps to one, else as it is: the one way the
 * repository's reads and writes let a driver error out.
 */
export function rethrowMapped(error: unknown): never {
  throw mapDatabaseError(error) ?? error;
}

/** Maps a driver error to an HttpError, or returns undefined when it is not the client's fault. */
export function mapDatabaseError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  const root = rootOf(error);
  if (root instanceof HttpError) return root;
  if (isDatabaseUnreachable(error)) return new DatabaseUnavailableError(undefined, { cause: error });
  const code = root?.code;
  const errno: number | undefined = root?.errno;
  const pg = pgCode(root);

  if (pg === UNIQUE.pg || errno === UNIQUE.mysql || UNIQUE.sqlite.includes(code)) {
    return new DuplicateValueError(duplicateMessage(error), { cause: error });
  }
  if (pg === FOREIGN_KEY.pg || FOREIGN_KEY.mysql.includes(errno as number) || FOREIGN_KEY.sqlite.includes(code)) {
    return new ConflictError('The record references, or is referenced by, a record that does not allow this change', {
      cause: error,
    });
  }
  if (pg === NOT_NULL.pg || NOT_NULL.mysql.includes(errno as number) || NOT_NULL.sqlite.includes(code)) {
    const column = root?.column ?? (error as any)?.column ?? notNullColumn(root?.message);
    return new ValidationError(
      [{ loc: ['body', ...(column ? [column] : [])], msg: 'A required value is missing', type: 'missing' }],
      { cause: error },
    );
  }
  if (errno === NO_FULLTEXT_INDEX.mysql) {
    return new BadRequestError(
      "The 'match' filter needs a full-text index on its column, which this database lacks; use 'contains' or 'ilike' there",
      { cause: error },
    );
  }
  if ((pg && CONCURRENT.pg.includes(pg)) || CONCURRENT.mysql.includes(errno as number)) {
    return new ConflictError('The write met a concurrent one and was rolled back: send it again', { cause: error });
  }
  if (pg === ROW_TWICE.pg && (root as { routine?: unknown })?.routine === ROW_TWICE.routine) {
    return new ValidationError(
      [
        {
          loc: ['body'],
          msg: 'Two items name the same row: a request writes each row once',
          type: 'duplicate_in_request',
        },
      ],
      { cause: error },
    );
  }
  if ((pg && BAD_VALUE.pg.includes(pg)) || BAD_VALUE.mysql.includes(errno as number)) {
    return new ValidationError([{ loc: ['body'], msg: 'A value does not fit its column', type: 'value_error' }], {
      cause: error,
    });
  }
  return undefined;
}

// PostgreSQL's driver reports the column of a NOT NULL violation as a field; SQLite
// (`NOT NULL constraint failed: items.name`) and MySQL/MariaDB (`Column 'name' cannot be
// null`, `Field 'name' doesn't have a default value`) only in the message, whose wording
// has been stable for years (knex puts the SQL before it). Found by plain string search:
// the message may carry a long statement.
function notNullColumn(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined;
  const sqlite = message.lastIndexOf('NOT NULL constraint failed: ');
  if (sqlite >= 0)
    return (
      message
        .slice(sqlite + 28)
        .trim()
        .split('.')
        .pop() || undefined
    );
  for (const [before, after] of [
    ["Column '", "' cannot be null"],
    ["Field '", "' doesn't have a default value"],
  ]) {
    const end = message.lastIndexOf(after);
    const start = end < 0 ? -1 : message.lastIndexOf(before, end);
    if (start >= 0) return message.slice(start + before.length, end) || undefined;
  }
  return undefined;
}

/** What a unique violation answers when its error names no column (knex's, as the bulk writes get, name none). */
export const DUPLICATE_DETAIL = 'Duplicate value: a record with this value already exists';

function duplicateMessage(error: any): string {
  const columns: string[] | undefined = error?.columns;
  if (Array.isArray(columns) && columns.length > 0) return `Duplicate value for ${columns.join(', ')}`;
  return DUPLICATE_DETAIL;
}

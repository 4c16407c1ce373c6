import { ConflictError, DuplicateValueError, HttpError, ValidationError } from './http-error';

// The one place where driver errors become HTTP errors. Each engine reports the same
// failure differently (objection wraps some as db-errors classes, better-sqlite3 throws
// a raw SqliteError), so we read the codes, never the messages.
const UNIQUE = { pg: '23505', mysql: 1062, sqlite: ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'] };
const FOREIGN_KEY = { pg: '23503', mysql: [1451, 1452, 1216, 1217], sqlite: ['SQLITE_CONSTRAINT_FOREIGNKEY'] };
const NOT_NULL = { pg: '23502', mysql: [1048, 1364], sqlite: ['SQLITE_CONSTRAINT_NOTNULL'] };
const BAD_VALUE = { pg: ['22001', '22003', '22007', '22008', '22P02'], mysql: [1264, 1265, 1292, 1366, 1406] };

function rootOf(error: any): any {
  // objection's db-errors keep the driver error as `nativeError`.
  return error?.nativeError ?? error;
}

function pgCode(error: any): string | undefined {
  return typeof error?.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) ? error.code : undefined;
}

/** Maps a driver error to an HttpError, or returns undefined when it is not the client's fault. */
export function mapDatabaseError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  const root = rootOf(error);
  const code = root?.code;
  const errno: number | undefined = root?.errno;
  const pg = pgCode(root);

  if (pg === UNIQUE.pg || errno === UNIQUE.mysql || UNIQUE.sqlite.includes(code)) {
    return new DuplicateValueError(duplicateMessage(error), { cause: error });
  }
  if (pg === FOREIGN_KEY.pg || FOREIGN_KEY.mysql.includes(errno as number) || FOREIGN_KEY.sqlite.includes(code)) {
    return new ConflictError('The record references, or is referenced by, a record that does not allow this change', { cause: error });
  }
  if (pg === NOT_NULL.pg || NOT_NULL.mysql.includes(errno as number) || NOT_NULL.sqlite.includes(code)) {
    const column = root?.column ?? (error as any)?.column;
    return new ValidationError([{ loc: ['body', ...(column ? [column] : [])], msg: 'A required value is missing', type: 'missing' }], { cause: error });
  }
  if ((pg && BAD_VALUE.pg.includes(pg)) || BAD_VALUE.mysql.includes(errno as number)) {
    return new ValidationError([{ loc: ['body'], msg: 'A value does not fit its column', type: 'value_error' }], { cause: error });
  }
  return undefined;
}

function duplicateMessage(error: any): string {
  const columns: string[] | undefined = error?.columns;
  if (Array.isArray(columns) && columns.length > 0) return `Duplicate value for ${columns.join(', ')}`;
  return 'Duplicate value: a record with this value already exists';
}

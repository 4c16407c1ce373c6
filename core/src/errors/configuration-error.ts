import type { ErrorCode } from './codes';

/**
 * A mistake in how the library was configured (an unknown column, conflicting options).
 * Thrown at startup or from code, never rendered as a client error: it is a 500 if it
 * ever reaches a request.
 */
export class ConfigurationError extends Error {
  /** A stable name for this kind of error (see ERROR_CODES), for logs and tests. */
  readonly code: ErrorCode = 'configuration_error';

  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

/**
 * A `match` filter is allowed on a column that MySQL/MariaDB cannot search: `MATCH ...
 * AGAINST` needs a FULLTEXT index over exactly that column, and without one every such
 * request would fail. Thrown at startup, naming the model and the column.
 */
export class MissingFulltextIndexError extends ConfigurationError {
  override readonly code: ErrorCode = 'missing_fulltext_index';

  constructor(
    readonly model: string,
    readonly table: string,
    readonly column: string,
  ) {
    super(
      `Model ${model} allows the 'match' filter on column '${column}', but table ${table} has no FULLTEXT index on it, ` +
        `which MySQL/MariaDB need for full-text search: add one in a migration (ALTER TABLE ${table} ADD FULLTEXT INDEX (${column})) or drop the filter`,
    );
    this.name = 'MissingFulltextIndexError';
  }
}

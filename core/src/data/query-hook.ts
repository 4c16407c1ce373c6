// The repository's fixed-SQL queries (those the compiled-SQL cache answers) run through a
// client `_query` of crudsmith's on some drivers: kept statements on better-sqlite3, named
// ones on PostgreSQL. The mark such a query carries; the hooks themselves go in through
// `hookKnexQuery` (knex-internals.ts).

/** Marks (on its prototype) a query whose SQL is fixed for its shape and whose statement options are none. */
export const FIXED_SQL = Symbol('crudsmith.fixedSql');

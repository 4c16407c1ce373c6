import { BadRequestError, ValidationError, type ValidationIssue } from '../errors/http-error';
import { TooManyItemsError } from '../errors/bulk-errors';
import type { Filters } from '../data/filters';
import type { NeutralRequest } from '../http/neutral';
import type { SchemaLike } from '../schema/fields';
import { validateBody } from '../schema/validate-body';
import type { CrudContext } from './crud-context';
import { requestFilters } from './filter-config';

// Reading a bulk request: the array of items, the `filter` and `set` objects, and the
// `Prefer: max-affected` bound. Every problem of every item is reported in one 422 whose
// locations name the item (`["body", 3, "price"]`), so a client can fix them all at once.

type Row = Record<string, unknown>;

/** The items of a bulk body: a JSON array of at most `max` objects (413 beyond). */
export function itemsOf(body: unknown, max: number): unknown[] {
  if (!Array.isArray(body)) throw ValidationError.of(['body'], 'Input should be a valid array', 'list_type');
  if (body.length > max) throw new TooManyItemsError(max);
  return body;
}

/** Moves issues located at `["body", ...rest]` under `["body", ...at, ...rest]`. */
export function nestIssues(error: unknown, at: (string | number)[]): ValidationIssue[] {
  if (!(error instanceof ValidationError) || !Array.isArray(error.detail)) throw error;
  return error.detail.map((issue) => ({
    ...issue,
    loc: issue.loc[0] === 'body' ? ['body', ...at, ...issue.loc.slice(1)] : issue.loc,
  }));
}

/**
 * Runs `check` on every item and answers the results; when any item fails, one 422 lists
 * the problems of all of them, each located under its index.
 */
export async function eachItem<I, T>(items: I[], check: (item: I, index: number) => Promise<T> | T): Promise<T[]> {
  const results: T[] = [];
  const issues: ValidationIssue[] = [];
  for (let index = 0; index < items.length; index++) {
    try {
      results.push(await check(items[index], index));
    } catch (error) {
      issues.push(...nestIssues(error, [index]));
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return results;
}

/** Validates one item with a schema, refusing the fields the server sets. */
export function validItem(schema: SchemaLike, item: unknown, forbidden: string[]): Promise<Row> {
  return validateBody(schema, item, { forbidden });
}

/** The JSON object at `body[key]`, or a 422 located there. */
export function objectAt(body: unknown, key: string, required = true): Row | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw ValidationError.of(['body'], 'Input should be a valid object', 'model_attributes_type');
  const value = (body as Row)[key];
  if (value === undefined && !required) return undefined;
  if (value === undefined) throw ValidationError.of(['body', key], 'Field required', 'missing');
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw ValidationError.of(['body', key], 'Input should be a valid object', 'model_attributes_type');
  return value as Row;
}

/**
 * The repository filters of a bulk body's `filter`: the keys the list takes in its query,
 * with the row-level scope. A key the list would ignore (unknown, or paging) is a 422
 * rather than a filter silently dropped, which would widen the write.
 */
export async function bodyFilters(ctx: CrudContext, req: NeutralRequest, filter: Row): Promise<Filters> {
  const keys = Object.keys(filter);
  if (keys.length === 0) throw ValidationError.of(['body', 'filter'], 'Give at least one condition', 'too_short');
  const query: Record<string, string | string[]> = {};
  for (const key of keys) {
    const value = filter[key];
    if (key.includes('.') || key === '_or')
      throw ValidationError.of(
        ['body', 'filter', key],
        "A bulk write filters on the model's own columns",
        'value_error',
      );
    query[key] = Array.isArray(value) ? value.map(String) : value === null ? 'null' : String(value);
  }
  // The list's own reader, on a request whose query is the filter (dependencies see the real request).
  const filters = await inBody(
    requestFilters(ctx.filters, Object.assign(Object.create(req) as NeutralRequest, { query })),
    ctx.info.idColumn,
  );
  for (const key of keys) {
    if (!(key in filters))
      throw ValidationError.of(['body', 'filter', key], 'Not a filter of this list', 'extra_forbidden');
  }
  return filters;
}

/** The bound `Prefer: max-affected=N` sets, lowered to the router's own; undefined when neither. */
export function maxAffectedOf(req: NeutralRequest, configured: number | undefined): number | undefined {
  const match = /(?:^|[,;\s])max-affected\s*=\s*"?([^",;\s]*)"?/i.exec(req.headers['prefer'] ?? '');
  if (!match) return configured;
  if (!/^\d{1,15}$/.test(match[1])) throw new BadRequestError('Prefer: max-affected takes a non-negative integer');
  const asked = Number(match[1]);
  return configured === undefined ? asked : Math.min(asked, configured);
}

/**
 * Runs `work`, locating a 422 about a filter value where the bulk body gave it
 * (`["body", "filter", key]`, or `["body", "ids"]`) rather than in a query it never had.
 */
export async function inBody<T>(work: Promise<T>, idColumn: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof ValidationError) || !Array.isArray(error.detail)) throw error;
    throw new ValidationError(
      error.detail.map((issue) => {
        if (issue.loc[0] !== 'query') return issue;
        const [, key, ...rest] = issue.loc;
        const at = key === `${idColumn}__in` ? ['body', 'ids'] : ['body', 'filter', key];
        return { ...issue, loc: [...at, ...rest] };
      }),
    );
  }
}

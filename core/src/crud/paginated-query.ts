import { validate } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { ValidationError } from '../errors/http-error';
import type { Dependency, NeutralRequest } from '../http/neutral';
import { parseSortParam } from '../data/sort';
import { schemaToJsonSchema } from '../schema/json-schema';
import type { SchemaClass } from '../schema/fields';
import { integer, single, within, type Query } from './query-values';

const dependencies = new WeakMap<Function, Dependency<unknown>>();
// Back from a dependency to its query class, so a custom route can publish its parameters.
const classes = new WeakMap<Dependency<unknown>, { parameters(): QueryParameter[] }>();

/** An OpenAPI query parameter object. */
export type QueryParameter = Record<string, unknown>;

/** The OpenAPI query parameters a query class's dependency reads; none for any other dependency. */
export function queryParametersOf(dependency: Dependency<unknown>): QueryParameter[] {
  return classes.get(dependency)?.parameters() ?? [];
}

const param = (name: string, schema: Record<string, unknown>, description?: string): QueryParameter => ({
  name,
  in: 'query',
  required: false,
  schema,
  ...(description ? { description } : {}),
});

// The base parameters, then each class-validator field a subclass adds, typed from its decorators.
function parametersOf(cls: Function, base: QueryParameter[]): QueryParameter[] {
  const known = new Set(base.map((p) => p.name));
  const own = schemaToJsonSchema(cls as SchemaClass).properties ?? {};
  return [
    ...base,
    ...Object.entries<Record<string, unknown>>(own)
      .filter(([name]) => !known.has(name))
      .map(([name, schema]) => param(name, schema)),
  ];
}

/** Reads the query into an instance of `cls`; extra fields of a subclass are validated by class-validator. */
async function readInto<T extends object>(
  cls: new () => T,
  req: NeutralRequest,
  known: Record<string, unknown>,
): Promise<T> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(req.query))
    if (!(key in known) && key !== 'itemsPerPage') rest[key] = value;
  const instance = plainToInstance(cls, rest);
  const errors = await validate(instance, { whitelist: true, forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ValidationError(
      errors.flatMap((e) =>
        Object.entries(e.constraints ?? {}).map(([type, msg]) => ({ loc: ['query', e.property], msg, type })),
      ),
    );
  }
  // `whitelist` also strips the undecorated defaults (cursor limit 100, sort_column id, …): put them back.
  for (const [key, value] of Object.entries(new cls()))
    if ((instance as any)[key] === undefined) (instance as any)[key] = value;
  for (const [key, value] of Object.entries(known)) if (value !== undefined) (instance as any)[key] = value;
  return instance;
}

function dependencyOf<T extends object>(cls: new () => T, read: (req: NeutralRequest) => Promise<T>): Dependency<T> {
  let dependency = dependencies.get(cls) as Dependency<T> | undefined;
  if (!dependency) {
    dependency = read;
    dependencies.set(cls, dependency);
    classes.set(dependency, cls as unknown as { parameters(): QueryParameter[] });
  }
  return dependency;
}

/**
 * Pagination parameters for custom GET routes. Use
 * `req.resolve(MyQuery.dependency())`; subclass to add class-validator-checked fields.
 */
export class PaginatedRequestQuery {
  offset?: number;
  limit?: number;
  page?: number;
  /** Query alias `itemsPerPage`. */
  items_per_page?: number;
  sort?: string;

  /** The dependency that reads this class (or a subclass) from the request. */
  static dependency<T extends PaginatedRequestQuery>(this: new () => T): Dependency<T> {
    const cls = this as new () => T; // the arrow below runs later, for this very class
    return dependencyOf(cls, (req) => {
      const q = req.query as Query;
      const key = q.itemsPerPage !== undefined ? 'itemsPerPage' : 'items_per_page';
      return readInto(cls, req, {
        offset: within(integer(q, 'offset'), 'offset', { min: 0 }),
        limit: within(integer(q, 'limit'), 'limit', { min: 1 }),
        page: within(integer(q, 'page'), 'page', { min: 1 }),
        items_per_page: within(integer(q, key), key, { min: 1 }),
        sort: single(q, 'sort'),
      });
    });
  }

  /** The OpenAPI query parameters this class (or a subclass) reads, its own fields included. */
  static parameters(): QueryParameter[] {
    const int = (minimum: number) => ({ type: 'integer', minimum });
    return parametersOf(this, [
      param('offset', int(0)),
      param('limit', int(1)),
      param('page', int(1)),
      param('itemsPerPage', int(1)),
      param('items_per_page', int(1), 'Alias of itemsPerPage'),
      param('sort', { type: 'string' }, 'Comma-separated columns; a leading - sorts descending'),
    ]);
  }

  /** Offset and limit: from page and items_per_page when both are set, else as given. */
  window(): { offset?: number; limit?: number } {
    if (this.page !== undefined && this.items_per_page !== undefined) {
      return { offset: (this.page - 1) * this.items_per_page, limit: this.items_per_page };
    }
    return { offset: this.offset, limit: this.limit };
  }

  /** The sort parameter as repository sort columns and orders. */
  sorting(): { sortColumns: string[]; sortOrders: ('asc' | 'desc')[] } {
    return parseSortParam(this.sort ?? '');
  }
}

/** Keyset parameters for custom GET routes. */
export class CursorPaginatedRequestQuery {
  cursor?: string;
  /** Default 100, at most 1000. */
  limit = 100;
  sort_column = 'id';
  sort_order: 'asc' | 'desc' = 'asc';

  /** The OpenAPI query parameters this class (or a subclass) reads, its own fields included. */
  static parameters(): QueryParameter[] {
    return parametersOf(this, [
      param('cursor', { type: 'string' }, 'Keyset pagination: empty for the first page, then next_cursor'),
      param('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
      param('sort_column', { type: 'string', default: 'id' }),
      param('sort_order', { type: 'string', enum: ['asc', 'desc'], default: 'asc' }),
    ]);
  }

  /** The dependency that reads this class (or a subclass) from the request. */
  static dependency<T extends CursorPaginatedRequestQuery>(this: new () => T): Dependency<T> {
    const cls = this as new () => T; // the arrow below runs later, for this very class
    return dependencyOf(cls, (req) => {
      const q = req.query as Query;
      const order = single(q, 'sort_order');
      if (order !== undefined && order !== 'asc' && order !== 'desc') {
        throw ValidationError.of(['query', 'sort_order'], "Input should be 'asc' or 'desc'", 'literal_error');
      }
      return readInto(cls, req, {
        cursor: single(q, 'cursor') || undefined,
        limit: within(integer(q, 'limit'), 'limit', { min: 1, max: 1000 }),
        sort_column: single(q, 'sort_column'),
        sort_order: order,
      });
    });
  }
}

import { validate } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { ValidationError } from '../errors/http-error';
import type { Dependency, NeutralRequest } from '../http/neutral';
import { parseSortParam } from '../data/sort';
import { integer, single, within, type Query } from './query-values';

const dependencies = new WeakMap<Function, Dependency<unknown>>();

/** Reads the query into an instance of `cls`; extra fields of a subclass are validated by class-validator. */
async function readInto<T extends object>(cls: new () => T, req: NeutralRequest, known: Record<string, unknown>): Promise<T> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(req.query)) if (!(key in known) && key !== 'itemsPerPage') rest[key] = value;
  const instance = plainToInstance(cls, rest);
  const errors = await validate(instance, { whitelist: true, forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ValidationError(errors.flatMap((e) => Object.entries(e.constraints ?? {}).map(([type, msg]) => ({ loc: ['query', e.property], msg, type }))));
  }
  // `whitelist` also strips the undecorated defaults (cursor limit 100, sort_column id, …): put them back.
  for (const [key, value] of Object.entries(new cls())) if ((instance as any)[key] === undefined) (instance as any)[key] = value;
  for (const [key, value] of Object.entries(known)) if (value !== undefined) (instance as any)[key] = value;
  return instance;
}

function dependencyOf<T extends object>(cls: new () => T, read: (req: NeutralRequest) => Promise<T>): Dependency<T> {
  let dependency = dependencies.get(cls) as Dependency<T> | undefined;
  if (!dependency) {
    dependency = read;
    dependencies.set(cls, dependency);
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

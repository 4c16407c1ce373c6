import type { CallOptions, HttpClient } from './http';
import { fillPath as fill, writeHeaders } from './operation';
import { listQuery } from './query';
import type {
  CreateOptions,
  CursorQuery,
  ExportQuery,
  KeysetPage,
  ListPage,
  NumberedPage,
  OffsetQuery,
  PageQuery,
  PaginateQuery,
  ResourceSpec,
  WriteOptions,
} from './types';

/** Every operation of a generated resource; a generated module picks the ones its document has. */
export interface ResourceMethods<S extends ResourceSpec> {
  create(body: S['create'], options?: CallOptions & CreateOptions): Promise<S['created']>;
  get(id: S['id'], options?: CallOptions): Promise<S['row']>;
  list(query: PageQuery<S>, options?: CallOptions): Promise<NumberedPage<S['row']>>;
  list(query: CursorQuery<S>, options?: CallOptions): Promise<KeysetPage<S['row']>>;
  list(query?: OffsetQuery<S>, options?: CallOptions): Promise<ListPage<S['row']>>;
  /** Every keyset page in turn, from the first until `next_cursor` is null. */
  paginate(query?: PaginateQuery<S>, options?: CallOptions): AsyncIterableIterator<KeysetPage<S['row']>>;
  update(id: S['id'], body: S['update'], options?: CallOptions & WriteOptions): Promise<S['updated']>;
  delete(id: S['id'], options?: CallOptions & WriteOptions): Promise<S['deleted']>;
  restore(id: S['id'], options?: CallOptions & WriteOptions): Promise<S['row']>;
  hardDelete(id: S['id'], options?: CallOptions & WriteOptions): Promise<S['deleted']>;
  /** The export's `Response`, unread: `.text()` for the whole file, `.body` for the stream. */
  export(query?: ExportQuery<S>, options?: CallOptions): Promise<Response>;
}

/** The paths of a resource's operations, `{name}` for path parameters. */
export interface ResourcePaths {
  create?: string;
  list?: string;
  get?: string;
  update?: string;
  delete?: string;
  restore?: string;
  hardDelete?: string;
  export?: string;
}

/** A resource's client: the methods of `paths`, typed by `S`, the others absent. */
export function resource<S extends ResourceSpec, K extends keyof ResourcePaths>(
  http: HttpClient,
  paths: Required<Pick<ResourcePaths, K>>,
): Pick<ResourceMethods<S>, K | (K extends 'list' ? 'paginate' : never)> {
  const at = paths as ResourcePaths;
  const list = (query: Parameters<typeof listQuery>[0] = {}, options?: CallOptions) =>
    http.request({ method: 'GET', path: at.list!, query: listQuery(query), ...options });
  const methods: ResourceMethods<S> = {
    create: (body, options) => http.request({ method: 'POST', path: at.create!, json: body, ...writeHeaders(options) }),
    get: (id, options) => http.request({ method: 'GET', path: fill(at.get!, id), ...options }),
    list: list as ResourceMethods<S>['list'],
    async *paginate(query, options) {
      let cursor: string | null = null;
      do {
        const page = (await list({ ...query, cursor }, options)) as KeysetPage<S['row']>;
        yield page;
        cursor = page.next_cursor;
      } while (cursor !== null);
    },
    update: (id, body, options) =>
      http.request({ method: 'PATCH', path: fill(at.update!, id), json: body, ...writeHeaders(options) }),
    delete: (id, options) => http.request({ method: 'DELETE', path: fill(at.delete!, id), ...writeHeaders(options) }),
    restore: (id, options) => http.request({ method: 'POST', path: fill(at.restore!, id), ...writeHeaders(options) }),
    hardDelete: (id, options) =>
      http.request({ method: 'DELETE', path: fill(at.hardDelete!, id), ...writeHeaders(options) }),
    export: (query = {}, options) => {
      const { format, ...list } = query;
      const search = listQuery(list);
      if (format !== undefined) search.set('format', format);
      return http.response({ method: 'GET', path: at.export!, query: search, ...options });
    },
  };
  const picked = Object.fromEntries(
    Object.entries(methods).filter(([name]) => name in at || (name === 'paginate' && 'list' in at)),
  );
  return picked as Pick<ResourceMethods<S>, K | (K extends 'list' ? 'paginate' : never)>;
}

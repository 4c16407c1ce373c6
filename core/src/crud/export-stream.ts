import type { Principal } from '../http/principal';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Filters } from '../data/filters';
import type { CrudRepository } from '../data/repository';
import type { ReadOptions } from '../data/repository-options';
import type { NeutralResult } from '../http/neutral';
import type { ExportEncoder } from './export-format';
import { ConfigurationError } from '../errors/configuration-error';

type Row = Record<string, unknown>;

/** Rows read per keyset page of an export when the router names no other size. */
export const DEFAULT_EXPORT_PAGE_SIZE = 500;

/** What an export reads: the rows of a list, with its filters and sort, through one repository. */
export interface ExportSource {
  repo: CrudRepository;
  db: Knex;
  filters: Filters;
  sortColumns: string[];
  sortOrders: ('asc' | 'desc')[];
  /** How rows are read (answered columns, joins, counts), as the list reads them. */
  read: ReadOptions;
  /** Rows per keyset page, 1 to 1000. */
  pageSize: number;
  /** The header columns when no row is found (the answered ones). */
  columns: string[];
  /** The caller, when the model has an access policy: its list rule scopes the rows and fields. */
  principal?: Principal | null;
}

/**
 * Answers every row of `source` as a streamed attachment: the first page is read before
 * answering (so a failing query is still a proper error status), each next one only when
 * the client has taken the previous one (the stream holds one page at a time), through
 * keyset pages, never an offset. A client that goes away destroys the stream, and no
 * page is read after that.
 */
export async function exportAnswer(
  source: ExportSource,
  encoder: ExportEncoder,
  filename: string,
): Promise<NeutralResult> {
  const page = (cursor: string | null) =>
    source.repo.getMultiByCursor(source.db, {
      ...source.read,
      filters: source.filters,
      sortColumns: source.sortColumns,
      sortOrders: source.sortOrders,
      cursor,
      limit: source.pageSize,
      principal: source.principal,
    });
  const first = await page(null);
  // The header follows the rows (joins and counts add keys), then any answered column the
  // first row leaves out (a field its access rule shows on other rows only).
  const keys = first.data.length > 0 ? Object.keys(first.data[0]) : [];
  const columns = [...keys, ...source.columns.filter((column) => !keys.includes(column))];
  let written = 0;
  const encode = (rows: Row[]) => rows.map((row) => encoder.row(row, columns, written++ === 0)).join('');
  let next = first.next_cursor;
  let pending: string | null = encoder.head(columns) + encode(first.data);
  const body = new PagedStream(async () => {
    if (pending !== null) {
      const chunk = pending;
      pending = null;
      return chunk;
    }
    if (next === null) return null;
    const more = await page(next);
    next = more.next_cursor;
    const chunk = encode(more.data);
    return next === null ? chunk + encoder.tail : chunk;
  });
  if (first.next_cursor === null) pending += encoder.tail;
  return {
    status: 200,
    headers: {
      'Content-Type': encoder.contentType,
      'Content-Disposition': `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}.${encoder.extension}"`,
      'Cache-Control': 'no-store',
    },
    body,
  };
}

/**
 * A byte stream pulled one chunk at a time: `_read` asks for the next chunk only once
 * the previous one was taken, and nothing more once the stream is destroyed (a client
 * that disconnected), so no page is read that no one will receive.
 */
class PagedStream extends Readable {
  constructor(private readonly next: () => Promise<string | null>) {
    // One byte of buffer: each page waits until the one before it left for the socket.
    super({ highWaterMark: 1 });
  }

  override _read(): void {
    if (this.destroyed) return;
    this.next().then(
      (chunk) => {
        if (this.destroyed) return;
        if (chunk === null) this.push(null);
        else if (chunk === '') this._read();
        else this.push(chunk, 'utf8');
      },
      (error: unknown) => this.destroy(error as Error),
    );
  }
}

/** The page size of an `export` option, checked at startup. */
export function exportPageSize(option: boolean | { pageSize?: number } | undefined): number {
  const size = (typeof option === 'object' ? option.pageSize : undefined) ?? DEFAULT_EXPORT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > 1000)
    throw new ConfigurationError(`export.pageSize must be an integer from 1 to 1000, got ${size}`);
  return size;
}

import type { Readable } from 'node:stream';
import { itemTag, tagMatches } from './item-tag';

// What both hand-written floors (floor.ts, natural.ts) share: the answer they give, and
// the body, id and window checks a person writes for this one table.

/**
 * What a floor handler answers: a status and a JSON value (none for a 304), or a stream
 * of another type; a read names its row's entity tag.
 */
export interface Answer {
  status: number;
  json?: unknown;
  etag?: string;
  stream?: { type: string; filename: string; body: Readable };
}

export type Row = Record<string, any>;

/** The four endpoints of a floor, as each framework's app (floor-apps.ts) calls them. */
export interface FloorHandlers {
  /** The item with its ETag; 304 without a body when `ifNoneMatch` lists the tag. */
  read(idText: string, ifNoneMatch?: string): Promise<Answer>;
  /** `?category=&price__gte=&sort=-price&offset=&limit=`: a page and the total count. */
  list(query: Record<string, unknown>): Promise<Answer>;
  create(body: unknown): Promise<Answer>;
  update(idText: string, body: unknown): Promise<Answer>;
  /** `POST /items/bulk`: every item of the array in one transaction (natural floor only). */
  bulkCreate?(body: unknown): Promise<Answer>;
  /** `GET /items/export?format=ndjson&category=`: every matching row, streamed (natural floor only). */
  export?(query: Record<string, unknown>): Promise<Answer>;
}
type Issue = { loc: string[]; msg: string; type: string };

/** A read's answer: the row with its tag, or 304 without a body when the client holds that tag. */
export function readAnswer(row: Row, ifNoneMatch: string | undefined): Answer {
  const etag = itemTag(row.id as number, row.updated_at as Date | null);
  return tagMatches(ifNoneMatch, etag) ? { status: 304, etag } : { status: 200, json: row, etag };
}

export const notFound: Answer = { status: 404, json: { detail: 'Item not found' } };
export const invalid = (issues: Issue[]): Answer => ({ status: 422, json: { detail: issues } });
export const issue = (loc: string[], msg: string): Issue => ({ loc, msg, type: 'value_error' });

/** Fields a client may write, with their type and longest length. */
const WRITABLE: Record<string, { type: 'string' | 'number' | 'datetime'; max?: number }> = {
  name: { type: 'string', max: 100 },
  description: { type: 'string' },
  category: { type: 'string', max: 50 },
  price: { type: 'number' },
  last_sold: { type: 'datetime' },
};

/** The body's values, or the problems with it (unknown fields, wrong types, too long). */
export function itemValues(body: unknown): Row | Issue[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return [issue(['body'], 'Input should be a valid object')];
  const values: Row = {};
  const issues: Issue[] = [];
  for (const [key, value] of Object.entries(body)) {
    const field = WRITABLE[key];
    if (!field) issues.push(issue(['body', key], 'Extra inputs are not permitted'));
    else if (value === null) values[key] = null;
    else if (field.type === 'number' ? !Number.isFinite(value) : typeof value !== 'string')
      issues.push(issue(['body', key], `Input should be a valid ${field.type}`));
    else if (field.max !== undefined && (value as string).length > field.max)
      issues.push(issue(['body', key], `At most ${field.max} characters`));
    else if (field.type === 'datetime') {
      const date = new Date(value as string);
      if (Number.isNaN(date.getTime())) issues.push(issue(['body', key], 'Input should be a valid datetime'));
      else values[key] = date;
    } else values[key] = value;
  }
  return issues.length > 0 ? issues : values;
}

/** A path id: digits within the column's range, else undefined. */
export function idOf(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= 2147483647 ? id : undefined;
}

/** A non-negative integer query value (or its default), else undefined. */
function count(text: unknown, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  return typeof text === 'string' && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** What a list request asks for, checked. */
export interface ListQuery {
  category?: string;
  min?: number;
  sort?: 'price' | '-price';
  offset: number;
  limit: number;
}

/** The list query's keys read and checked by hand, or the answer refusing them. */
export function listQuery(query: Record<string, unknown>): ListQuery | Answer {
  const { category, price__gte: minPrice, sort } = query;
  const offset = count(query.offset, 0);
  const limit = count(query.limit, 100);
  if (offset === undefined || limit === undefined || limit < 1 || limit > 1000)
    return invalid([issue(['query'], 'Bad offset or limit')]);
  if (sort !== undefined && sort !== '-price' && sort !== 'price')
    return { status: 400, json: { detail: `Invalid sort column '${sort}'` } };
  const min = minPrice === undefined ? undefined : Number(minPrice);
  if (min !== undefined && !Number.isFinite(min))
    return invalid([issue(['query', 'price__gte'], 'Input should be a valid number')]);
  if (category !== undefined && typeof category !== 'string')
    return invalid([issue(['query', 'category'], 'Expected a single value')]);
  return { category, min, sort, offset, limit };
}

import { hash as oneShot } from 'node:crypto';
import { withJsonText } from '../http/json-text';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import type { CrudContext } from './crud-context';

// Entity tags of the read answers. A row's tag is strong and follows its stored state:
// its `version` column when the model has one, else its update time with its key, else
// a hash of the answer itself (a row never updated, or whose answer leaves those columns
// out). A list's tag is weak: a hash of its body, which says nothing of any row.

type Row = Record<string, unknown>;

// The one-shot form: a tag per answer, and a Hash object each costs several times the digest.
const digest = (text: string): string => oneShot('sha1', text, 'base64url');

const hash = (value: unknown): string => digest(JSON.stringify(value) ?? '');

const stamp = (value: unknown): string | undefined => {
  if (value instanceof Date) return String(value.getTime());
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string' && value !== '') return value.replace(/[^A-Za-z0-9.:_-]/g, '_');
  return undefined;
};

/** The part of a row's tag that names its key (the key's values as text). */
export function keyHash(ctx: CrudContext, row: Row): string {
  return hash(ctx.info.idColumns.map((column) => String(row[column])));
}

/** The strong ETag of one row as answered. */
export function rowTag(ctx: CrudContext, row: Row): string {
  const key = keyHash(ctx, row);
  if (ctx.info.columns.get('version')?.kind === 'integer' && 'version' in row) {
    const version = stamp(row.version);
    if (version !== undefined) return `"v.${key}.${version}"`;
  }
  const updatedAt = ctx.updatedAtColumn;
  // A row never updated has no update time yet: its tag says so ("n"), which a write's
  // WHERE can check as well as a time.
  if (updatedAt in row && ctx.info.columns.get(updatedAt)?.kind === 'datetime') {
    const at = row[updatedAt] === null ? 'n' : stamp(new Date(row[updatedAt] as string | Date));
    if (at !== undefined && at !== 'NaN') return `"t.${key}.${at}"`;
  }
  return `"h.${hash(row)}"`;
}

/**
 * A list answer with the weak ETag of its body, the body's text made once for the tag and
 * the wire. A keyset page's `next_cursor` is sealed with a fresh nonce each time, so its
 * tag takes only whether there is one: the cursor itself follows from the rows and the
 * request.
 */
export function listAnswer(req: NeutralRequest, body: Row): NeutralResult {
  const text = JSON.stringify(body);
  const stable = typeof body.next_cursor === 'string' ? JSON.stringify({ ...body, next_cursor: true }) : text;
  const tag = `W/"${digest(stable)}"`;
  const answer = conditionalAnswer(req, body, tag);
  return answer.status === 200 ? withJsonText(answer, text) : answer;
}

/** The tags an `If-None-Match`/`If-Match` header lists, without their weak prefix; `*` as itself. */
export function listedTags(header: string | undefined): string[] {
  if (header === undefined) return [];
  // A header of at most a few tags; anything longer is not a client's conditional read.
  if (header.length > 4096) return [];
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .filter((tag) => tag !== '');
}

/**
 * The answer of a conditional read: 304 without a body when `If-None-Match` lists the
 * tag (weak comparison, `*` matches any), else 200 with the body; both carry the tag.
 */
export function conditionalAnswer(req: NeutralRequest, json: unknown, tag: string): NeutralResult {
  const tags = listedTags(req.headers['if-none-match']);
  const bare = tag.replace(/^W\//, '');
  if (tags.includes('*') || tags.includes(bare)) return { status: 304, headers: { etag: tag } };
  return { status: 200, json, headers: { etag: tag } };
}

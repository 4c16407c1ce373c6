import { createHash } from 'node:crypto';

// The entity tag of an item as a person writes it for this one table: its key and its
// update time (`n` while never updated), each side of the tag written out by hand. The
// same tag crudsmith answers for a row of a model without a version column; the suite
// checks that by a conditional read answered 304 on every side.

/** The strong ETag of the item with this id and update time. */
export function itemTag(id: number, updatedAt: Date | null): string {
  const key = createHash('sha1')
    .update(JSON.stringify([String(id)]))
    .digest('base64url');
  return `"t.${key}.${updatedAt === null ? 'n' : updatedAt.getTime()}"`;
}

/** Whether an `If-None-Match` header lists `tag` (weak comparison; `*` matches any). */
export function tagMatches(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((listed) => {
    const bare = listed.trim().replace(/^W\//, '');
    return bare === '*' || bare === tag;
  });
}

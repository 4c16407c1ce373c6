import { Model } from 'objection';
import { IsBoolean, IsDateString, IsInt, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { Access, type FieldSet, type Principal, type RowFieldRule, type RowRule } from '@crudsmith/core';
import { NOTE_BODY_MAX } from '../text-limits';

/** Whether the caller holds a permission (an API key holds only its scopes of its owner's). */
export const holds = (p: Principal, permission: string): boolean => p.permissions?.includes(permission) ?? false;

/** Editors review every note: they read and change any, and alone write `reviewer_comment`. */
export const isEditor = (p: Principal): boolean => holds(p, 'notes:review');

// A key reads with `notes:read` and writes with `notes:write`; a person signed in needs no role.
const canRead = (p: Principal) => p.transport !== 'api-key' || holds(p, 'notes:read');
const canWrite = (p: Principal) => p.transport !== 'api-key' || holds(p, 'notes:write');
const mine = { owner_id: (p: Principal) => p.id };
// An editor reaches every note; anyone else their own and the shared ones.
const mineOrShared: RowRule = (qb, p, table) => {
  if (!isEditor(p)) void qb.where((q) => q.where(`${table}.shared`, true).orWhere(`${table}.owner_id`, p.id));
};
// An editor changes every note; anyone else only their own.
const editable: RowRule = (qb, p, table) => {
  if (!isEditor(p)) void qb.where(`${table}.owner_id`, p.id);
};
// Reads and lists show the comment to editors on every note, to anyone else on their own notes
// only (so only editors filter or sort on it).
const commentShown: RowFieldRule = (p) => isEditor(p) || ((note) => note.owner_id === p.id);
const shown = { reviewer_comment: commentShown };
// owner_id is the caller's at creation (an auto field; a body naming it is refused) and never changes.
const created = (p: Principal): FieldSet => (isEditor(p) ? { except: [] } : { except: ['reviewer_comment'] });
const updated = (p: Principal): FieldSet =>
  isEditor(p) ? { except: ['owner_id'] } : { except: ['owner_id', 'reviewer_comment'] };

/** `POST /api/v1/notes/` body: `owner_id` is the caller, never sent. */
export class NoteCreate {
  @IsString() @MinLength(1) @MaxLength(100) title!: string;
  @IsString() @MaxLength(NOTE_BODY_MAX) body!: string;
  @IsOptional() @IsBoolean() shared?: boolean;
  @IsOptional() @IsString() @MaxLength(1000) reviewer_comment?: string | null;
}

/** `PATCH` body: the same fields, each optional. */
export class NoteUpdate {
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) title?: string;
  @IsOptional() @IsString() @MaxLength(NOTE_BODY_MAX) body?: string;
  @IsOptional() @IsBoolean() shared?: boolean;
  @IsOptional() @IsString() @MaxLength(1000) reviewer_comment?: string | null;
}

/** The hard-delete schema has no fields; giving it enables `db_delete` (admins only). */
export class NoteDelete {}

/** What the notes routes answer (`reviewer_comment` only to the note's owner and editors). */
export class NoteRead {
  @IsInt() id!: number;
  @IsString() title!: string;
  @IsString() body!: string;
  @IsBoolean() shared!: boolean;
  @IsInt() owner_id!: number;
  @IsOptional() @IsString() reviewer_comment?: string | null;
  @IsDateString() created_at!: string;
}

const datetime = { type: ['string', 'null'], format: 'date-time' };

/**
 * A user's note. Signed in to use at all; each person reads their own and the shared ones
 * and changes, deletes and restores only their own; editors read and update every note;
 * only admins delete one for good.
 */
@Access({
  default: { when: canRead },
  list: { when: canRead, rows: mineOrShared, rowFields: shown },
  read: { when: canRead, rows: mineOrShared, rowFields: shown },
  create: { when: canWrite, fields: created },
  update: { when: canWrite, rows: editable, fields: updated },
  delete: { when: canWrite, rows: mine },
  restore: { when: canWrite, rows: mine },
  hardDelete: { roles: ['admin'] },
})
export class Note extends Model {
  static override tableName = 'notes';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      title: { type: 'string', maxLength: 100 },
      body: { type: 'string', maxLength: NOTE_BODY_MAX },
      shared: { type: 'boolean' },
      owner_id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      reviewer_comment: { type: ['string', 'null'], maxLength: 1000 },
      created_at: { type: 'string', format: 'date-time' },
      is_deleted: { type: 'boolean' },
      deleted_at: datetime,
    },
  };
}

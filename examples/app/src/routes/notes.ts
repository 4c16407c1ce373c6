import type { Knex } from 'knex';
import { CreateConfig, crudRouter, type CrudOptions, type Dependency, type RouteDescriptor } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import { Note, NoteCreate, NoteDelete, NoteRead, NoteUpdate } from '../models/note';

/**
 * `/notes/`: the generated CRUD routes under the notes' access policy (models/note.ts).
 * `owner_id` is an auto field (the caller); reads and lists show `reviewer_comment` to the
 * note's owner and to editors only.
 */
export function noteRoutes(knex: Knex, auth: AccountPlugin, cursorKey?: CrudOptions['cursorKey']): RouteDescriptor[] {
  const signedIn = auth.currentUser();
  const ownerId: Dependency<number> = async (req) => Number((await req.resolve(signedIn))!.id);
  const router = crudRouter({
    session: knex,
    model: Note,
    path: '/',
    tags: ['notes'],
    createSchema: NoteCreate,
    updateSchema: NoteUpdate,
    deleteSchema: NoteDelete,
    selectSchema: NoteRead,
    createConfig: new CreateConfig({ autoFields: { owner_id: ownerId } }),
    filterConfig: { shared: null, owner_id: null, title__ilike: null, reviewer_comment: null },
    isDeletedColumn: 'is_deleted',
    deletedAtColumn: 'deleted_at',
    cursorKey,
  });
  return router.routes.map((route) => ({
    ...route,
    // The list and create are at `/notes/` (as the API writes them), the rest under it.
    path: route.path.startsWith('/') ? `/notes${route.path}` : `/notes/${route.path}`,
  }));
}

import type { Knex } from 'knex';
import { CreateConfig, crudRouter, type CrudOptions, type Dependency, type RouteDescriptor } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import { Note, NoteCreate, NoteDelete, NoteRead, NoteUpdate, isEditor } from '../models/note';

/**
 * `/notes/`: the generated CRUD routes under the notes' access policy (models/note.ts).
 * `owner_id` is an auto field (the caller); a read by id shows `reviewer_comment` to the
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
    ...(route.operation.endsWith('_read') ? hideForeignComment(route, auth) : route),
    // The list and create are at `/notes/` (as the API writes them), the rest under it.
    path: route.path.startsWith('/') ? `/notes${route.path}` : `/notes/${route.path}`,
  }));
}

/** The read by id, without `reviewer_comment` for a caller neither owning the note nor editing. */
function hideForeignComment(route: RouteDescriptor, auth: AccountPlugin): RouteDescriptor {
  return {
    ...route,
    async handler(req) {
      const result = await route.handler(req);
      const note = result.json as Partial<NoteRead> | undefined;
      const caller = await req.resolve(auth.principal);
      if (result.status !== 200 || !note || !caller || isEditor(caller) || note.owner_id === caller.id) return result;
      const { reviewer_comment: _hidden, ...shown } = note;
      return { ...result, json: shown };
    },
  };
}

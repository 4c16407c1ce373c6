import type { Knex } from 'knex';
import {
  DuplicateValueError,
  NotFoundError,
  ValidationError,
  mapDatabaseError,
  validateBody,
  type NeutralRequest,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import { layoutLocals, translate, type AdminContext } from '../context';
import { childLists, type ChildList } from '../child-rows';
import { diff, scrub } from '../event-log';
import { fieldMessages, formFields, formValues } from '../form-fields';
import { guarded } from '../guard';
import { inSentence } from '../i18n/translate';
import { idFilters, parseId, recordIdOf } from '../ids';
import { autoValues } from '../model-declaration';
import { signOutAll, type ResolvedView } from '../model-view';
import { html, seeOther } from '../page';
import { amongInputs, readOnlyFields } from '../readonly-fields';
import { requiredOnCreate } from '../required-fields';
import { referenceChoices } from './lookup';
import { formLinks } from './form-links';
import { afterCommit, writeAtomically, type Written } from './form-write';
import type { RowCounts } from '../row-counts';
import { render } from '../templates';
import { formBodyLimit, storeUploads, type StoredUploads } from '../uploads';
import { conflictsOf, rowState, stateColumn, type Conflict } from '../row-state';
import { maskedOn, requireCreate, requireMay, restricted, scopeOf, seenBy, unreadableOn } from '../view-access';

type Mode = 'create' | 'update';

/** What a form page shows: its mode, the values, the messages by field (`_form` for the form), the row's id. */
interface FormState {
  mode: Mode;
  values: Record<string, unknown>;
  errors?: Record<string, string>;
  id?: string;
  /** The row's display value (its displayField), naming it in the title. */
  label?: string;
  /** The rows of other views that refer to this one (update pages only). */
  children?: ChildList[];
  /** The row as stored (update pages): its many-to-many fields show its links, and its state rides along. */
  row?: Record<string, unknown>;
  /** Fields someone else saved since this editor opened the row: theirs beside these. */
  conflicts?: Conflict[];
}

/** Someone else saved the row after this editor opened it. */
class RowChangedError extends Error {}

/** The create and update forms of a view and their submissions (`create` and `update` actions). */
export function formRoutes(ctx: AdminContext, view: ResolvedView, counts: RowCounts): RouteDescriptor[] {
  const base = `${ctx.mount}/${view.name}`;
  const routes: RouteDescriptor[] = [];
  // A many-to-many field is offered (and written) only when the admin user may list the other view's rows.
  const links = formLinks(ctx, view, base);

  // The fields a form offers: those the create or update rule lets the admin user set, on an
  // update page less those the read rule hides on the row (a forced value of one is ignored).
  const offered = (principal: AdminPrincipal, mode: Mode, row: Record<string, unknown> | undefined) => {
    const seen = seenBy(view, principal);
    if (mode === 'create') return seen.createFields;
    const masked = maskedOn(view, principal, row);
    return seen.updateFields.filter((field) => !masked.has(field));
  };

  const page = async (req: NeutralRequest, principal: AdminPrincipal, status: number, form: FormState) => {
    const { mode, errors = {}, id } = form;
    // Fields the policy withholds: not shown (read rule, on this row) and not offered (create or update rule).
    const unread = unreadableOn(view, principal, mode === 'update' ? form.row : undefined);
    const values = Object.fromEntries(Object.entries(form.values).filter(([field]) => !unread.has(field)));
    const required = mode === 'create' ? await requiredOnCreate(ctx.knex, view) : undefined;
    const t = translate(ctx, req);
    const inputs = formFields(view, offered(principal, mode, form.row), values, {
      choices: await referenceChoices(ctx, view, values, principal),
      required,
    }).map((f) => (view.view.references?.[f.name] ? { ...f, lookup: `${base}/lookup/${f.name}` } : f));
    // What the admin user reads on the row but may not write: shown as text where its input would be.
    const fields = amongInputs(
      view,
      inputs,
      mode === 'update' && form.row
        ? await readOnlyFields(ctx, view, principal, { row: form.row, locale: t('language.tag') })
        : [],
    );
    // A many-to-many field: the rows linked now, chosen, then the first others by label; its search asks for more.
    fields.push(...(await links.fields(principal, form.row)));
    const action = mode === 'create' ? `${base}/form_create` : `${base}/form_update/${encodeURIComponent(id!)}`;
    const one = inSentence(view.labels.singular, t);
    const named = form.label ?? id;
    const title =
      mode === 'create' ? t('form.create', { model: one }) : t('form.update', { model: one, id: String(named) });
    const multipart = fields.some((f) => f.input === 'file');
    const unlockAction =
      mode === 'update' && view.view.unlock && !restricted(principal) && (await lockedOut(view, id!))
        ? `${base}/unlock/${encodeURIComponent(id!)}`
        : null;
    const signOutAction =
      mode === 'update' && view.view.signOutEverywhere && !restricted(principal)
        ? `${base}/sign-out/${encodeURIComponent(id!)}`
        : null;
    return html(
      status,
      render('form', {
        ...layoutLocals(ctx, req, principal, title),
        view: { name: view.name, base },
        mode,
        action,
        fields,
        errors,
        formError: errors._form ?? null,
        multipart,
        unlockAction,
        signOutAction,
        children: form.children ?? [],
        state: mode === 'update' && form.row ? rowState(form.row) : null,
        conflicts: form.conflicts ?? [],
      }),
    );
  };

  // Validates the posted fields, hashes a password, and writes; a 422 or 409 re-renders the form.
  const submit = async (
    req: NeutralRequest,
    principal: AdminPrincipal,
    target: { mode: Mode; id?: string; row?: Record<string, unknown> },
    write: (db: Knex.Transaction, values: Record<string, unknown>, uploads: StoredUploads) => Promise<Written>,
  ) => {
    const { mode, id, row } = target;
    const t = translate(ctx, req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const fields = offered(principal, mode, row);
    const echo = Object.fromEntries(
      fields.filter((f) => f !== view.password?.field && typeof body[f] === 'string').map((f) => [f, body[f]]),
    );
    let uploads: StoredUploads | undefined;
    let written = false;
    try {
      let values = formValues(view, fields, body, t);
      const schema = mode === 'create' ? view.view.createSchema : view.view.updateSchema;
      if (!Array.isArray(schema)) values = await validateBody(schema, values);
      const password = view.password;
      if (password && typeof values[password.field] === 'string') {
        const plain = values[password.field] as string;
        delete values[password.field];
        values[password.column] = await ctx.auth.passwords.bounded(req.clientAddress, () =>
          password.hash ? password.hash(plain) : ctx.auth.passwords.hash(plain),
        );
      }
      const stored = await storeUploads(view, req);
      uploads = stored;
      Object.assign(values, stored.values, await autoValues(req, view.declaration.autoFields[mode]));
      if (view.view.beforeWrite) values = await view.view.beforeWrite(values, mode);
      // Many-to-many choices are checked before the write, and written in its transaction with its event.
      const sets = links.sent(principal, body, t);
      const submission = { req, principal, mode, t, sets };
      const done = await writeAtomically(ctx, view, submission, (trx) => write(trx, values, stored));
      written = true;
      await afterCommit(view, counts, mode, done);
      return seeOther(req, `${base}/`);
    } catch (error) {
      // No row refers to the files of a write that failed.
      if (!written) await uploads?.discard();
      if (error instanceof ValidationError)
        return page(req, principal, 422, { mode, values: echo, errors: fieldMessages(error), id, row });
      // Their change stays: the form comes back with this editor's values, theirs beside
      // them, and the row's new state, so saving again overwrites knowingly.
      if (mode === 'update' && (error instanceof RowChangedError || error instanceof NotFoundError)) {
        const saved = await view.repository.get(ctx.knex, idFilters(view, parseId(view, id)!), scopeOf(principal));
        if (!saved) throw new NotFoundError('Item not found');
        const conflicts = conflictsOf(view, fields, echo, saved);
        const message = translate(ctx, req)('form.conflict');
        return page(req, principal, 409, { mode, values: echo, errors: { _form: message }, id, row: saved, conflicts });
      }
      const mapped = mapDatabaseError(error);
      if (mapped instanceof DuplicateValueError)
        return page(req, principal, 409, { mode, values: echo, errors: { _form: mapped.message }, id, row });
      throw error;
    }
  };

  if (view.allowed.has('create')) {
    routes.push(
      guarded(
        ctx,
        { method: 'GET', path: `${base}/create_page`, operation: `admin_${view.name}_create_page` },
        async (req, principal) => {
          await requireCreate(ctx.knex, view, principal);
          return page(req, principal, 200, { mode: 'create', values: {} });
        },
      ),
      guarded(
        ctx,
        {
          method: 'POST',
          path: `${base}/form_create`,
          operation: `admin_${view.name}_form_create`,
          bodyLimit: formBodyLimit(view),
        },
        async (req, principal) => {
          await requireCreate(ctx.knex, view, principal);
          return submit(req, principal, { mode: 'create' }, async (db, values) => {
            const created = await view.repository.create(db, values, scopeOf(principal));
            return {
              row: created,
              logged: { recordId: recordIdOf(view, created)!, details: { record: scrub(created, view.hidden) } },
            };
          });
        },
      ),
    );
  }
  if (view.allowed.has('update')) {
    // A row outside the admin user's read rule is a 404, as through the API.
    const load = async (req: NeutralRequest, principal: AdminPrincipal) => {
      requireMay(view, 'update', principal);
      const id = parseId(view, req.params.id);
      const row =
        id === undefined ? null : await view.repository.get(ctx.knex, idFilters(view, id), scopeOf(principal));
      if (!row) throw new NotFoundError('Item not found');
      return { id: id!, row };
    };
    routes.push(
      guarded(
        ctx,
        { method: 'GET', path: `${base}/update/:id`, operation: `admin_${view.name}_update_page` },
        async (req, principal) => {
          const { row } = await load(req, principal);
          return page(req, principal, 200, {
            mode: 'update',
            values: row,
            id: req.params.id,
            label: String(row[view.displayField] ?? req.params.id),
            children: await childLists(ctx, view, row, principal),
            row,
          });
        },
      ),
      guarded(
        ctx,
        {
          method: 'POST',
          path: `${base}/form_update/:id`,
          operation: `admin_${view.name}_form_update`,
          bodyLimit: formBodyLimit(view),
        },
        async (req, principal) => {
          const { id, row: before } = await load(req, principal);
          const target = { mode: 'update' as const, id: req.params.id, row: before };
          const sent = (req.body as Record<string, unknown> | undefined)?._state;
          return submit(req, principal, target, async (db, values, uploads) => {
            if (typeof sent === 'string' && sent !== rowState(before)) throw new RowChangedError();
            if (Object.keys(values).length === 0) return { row: before };
            // A new address is not proven yet, whoever typed it: its flag goes in the same write.
            const proof = view.view.verifiedEmail;
            if (proof && values[proof.column] !== undefined && values[proof.column] !== before[proof.column])
              values[proof.flag] = false;
            // The row read above must still be the one written: a change in between is a conflict.
            const column = stateColumn(view);
            const unchanged = column && column in before ? { [column]: before[column] } : undefined;
            await view.repository.update(db, values, {
              filters: idFilters(view, id),
              unchanged,
              ...scopeOf(principal),
            });
            const after = (await view.repository.get(db, idFilters(view, id))) ?? {};
            // A field the read rule hides on this row was not read above: its stored value is no change.
            const unlogged = new Set([...view.hidden, ...maskedOn(view, principal, before)]);
            const passwordSet = view.password !== undefined && values[view.password.column] !== undefined;
            return {
              row: before,
              logged: { recordId: recordIdOf(view, before)!, details: { changes: diff(before, after, unlogged) } },
              committed: async () => {
                await uploads.dropReplaced(before);
                // A password the admin set replaces every sign-in made with the old one.
                if (passwordSet) await signOutAll(view, [id]);
              },
            };
          });
        },
      ),
    );
  }
  return routes;
}

// Whether the row's account is locked, as the view's `isLocked` says (without one: always, so the button shows).
async function lockedOut(view: ResolvedView, idText: string): Promise<boolean> {
  const isLocked = view.view.isLocked;
  if (!isLocked) return true;
  const id = parseId(view, idText);
  // An account's key is one column; a composite key names no account.
  return (typeof id === 'string' || typeof id === 'number') && (await isLocked(id));
}

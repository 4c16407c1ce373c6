import {
  ForbiddenError,
  UnauthorizedError,
  crudRouter,
  idempotencyInSession,
  setPrincipalResolver,
  type Dependency,
  type NeutralRequest,
  type NeutralResult,
  type OperationKey,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { Knex } from 'knex';
import type { AdminPrincipal } from '../admin-auth';
import type { AdminContext } from '../context';
import { setAdminUser } from '../admin-user-of';
import { diff, scrub } from '../event-log';
import { adminFilters, autoValues } from '../model-declaration';
import { idFilters, parseId, recordIdOf } from '../ids';
import { signOutAll, type ResolvedView } from '../model-view';
import type { AdminAction } from '../options';
import type { RowCounts } from '../row-counts';

const OPERATIONS: Record<AdminAction, OperationKey[]> = {
  view: ['read', 'readMulti'],
  create: ['create'],
  update: ['update'],
  delete: ['delete'],
};

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const replayed = (result: NeutralResult) => result.headers?.['idempotent-replayed'] !== undefined;

/**
 * Without a select schema, every column but the hidden ones (the password hash): so the
 * answers, and the columns a client may sort or page by, never include them.
 */
function shownColumns(view: ResolvedView): string[] | undefined {
  if (view.hidden.size === 0) return undefined;
  return [...view.info.columns.keys()].filter((column) => !view.hidden.has(column));
}

/**
 * `{mount}/crud/{model}`: the model's generated REST endpoints (the API's routes and wire
 * format) under the admin session and its CSRF header, limited to the view's allowed
 * actions. A view that hashes a password or adjusts values before writing (passwordTransformer,
 * beforeWrite) offers no create or update here: the generated routes would skip that step.
 * Nor does one with `verifiedEmail` offer an update: a changed address would keep its proof.
 * Its writes are in the event log as the form writes are: a create with the record, an
 * update with its before/after diff, a delete with the row as it was. Each write and its
 * event are one transaction, so both commit or neither does; with the model's
 * `Idempotency-Key` kept in a table of the admin's database, so does the key's claim and
 * answer. Keys kept elsewhere (Redis, another database) are the exception: stored there at
 * once, they would replay a create whose event rolled back, so a keyed request is written
 * on its own and its event follows the write's commit.
 */
export function crudApiRoutes(ctx: AdminContext, view: ResolvedView, counts: RowCounts): RouteDescriptor[] {
  const transforms = Boolean(view.password || view.view.beforeWrite);
  const actions = [...view.allowed].filter(
    (a) => !(transforms && (a === 'create' || a === 'update')) && !(view.view.verifiedEmail && a === 'update'),
  );
  const { options: declared, autoFields } = view.declaration;
  // Keys stored apart from the admin's database cannot share the write's transaction.
  const keysApart = Boolean(declared?.idempotency) && !idempotencyInSession(declared?.idempotency);
  // The transaction of an unsafe request: the generated handler's session, so the write,
  // the reads around it and its event all go through it (on SQLite it holds the only
  // connection). Safe requests read through the admin's knex.
  const transactions = new WeakMap<NeutralRequest, Knex.Transaction>();
  const session: Dependency<Knex> = (req) => transactions.get(req) ?? ctx.knex;
  // The model's own declaration (filters, sorting limits, joins, cursor key) as the API
  // serves it; its dependencies guard the API's callers, the admin session guards these.
  const router = crudRouter({
    ...declared,
    createDeps: undefined,
    readDeps: undefined,
    readMultiDeps: undefined,
    updateDeps: undefined,
    deleteDeps: undefined,
    dbDeleteDeps: undefined,
    restoreDeps: undefined,
    deletedMethods: undefined,
    endpointNames: undefined,
    endpointCreator: undefined,
    deleteSchema: undefined,
    session,
    model: view.view.model,
    createSchema: actions.includes('create') ? view.view.createSchema : undefined,
    updateSchema: actions.includes('update') ? view.view.updateSchema : undefined,
    selectSchema: view.view.selectSchema ?? declared?.selectSchema ?? shownColumns(view),
    filterConfig: adminFilters(declared),
    createConfig: { autoFields: autoFields.create },
    updateConfig: { autoFields: autoFields.update },
    deleteConfig: { autoFields: autoFields.delete },
    path: `${ctx.mount}/crud/${view.name}`,
    includedMethods: actions.flatMap((a) => OPERATIONS[a]),
  });
  // The admitted request's admin user, for its event records.
  const principals = new WeakMap<NeutralRequest, AdminPrincipal>();
  // The generated routes name a row by `:id`, or by one parameter per column of a composite key.
  const rowOf = async (req: NeutralRequest, db: Knex) => {
    const id =
      view.info.idColumns.length === 1
        ? parseId(view, req.params.id)
        : parseId(
            view,
            view.info.idColumns.map((column) => req.params[column]),
          );
    return id === undefined ? null : view.repository.get(db, idFilters(view, id));
  };
  return router.routes.map((route) => {
    const unsafe = !SAFE.has(route.method);
    const action: Exclude<AdminAction, 'view'> =
      route.method === 'DELETE' ? 'delete' : route.method === 'POST' ? 'create' : 'update';
    // First of the route's dependencies, so nothing of the request is read before it passes.
    const admitted: Dependency = async (req) => {
      const principal = await ctx.auth.current(req);
      if (!principal) throw new UnauthorizedError('Not authenticated');
      if (unsafe && !ctx.auth.csrfValid(req, principal))
        throw new ForbiddenError('Missing or wrong X-CSRF-Token header');
      principals.set(req, principal);
      setAdminUser(req, principal.user);
      // The model's policy sees the admin user (never an API caller the app's own principal would find).
      const acting = await ctx.roles.principalOf(principal.user);
      setPrincipalResolver(req, async () => acting);
    };
    // Runs the write and answers its event: the row before it (update, delete) and after it.
    const logged = async (
      req: NeutralRequest,
      trx: Knex,
    ): Promise<{ result: NeutralResult; entry: { recordId?: string | number; details: unknown } }> => {
      const before = action === 'create' ? null : await rowOf(req, trx);
      const result = await route.handler(req);
      if (action === 'delete')
        return {
          result,
          entry: {
            recordId: recordIdOf(view, before),
            details: { record: before ? scrub(before, view.hidden) : null },
          },
        };
      if (action === 'update')
        return {
          result,
          entry: {
            recordId: recordIdOf(view, before),
            details: { changes: diff(before ?? {}, (await rowOf(req, trx)) ?? {}, view.hidden) },
          },
        };
      // Without a select schema the create answers null: its record is then what was sent.
      const answered = result.json && typeof result.json === 'object' ? (result.json as Record<string, unknown>) : null;
      const record = answered ?? ((req.body ?? {}) as Record<string, unknown>);
      return {
        result,
        entry: { recordId: recordIdOf(view, answered), details: { record: scrub(record, view.hidden) } },
      };
    };
    return {
      ...route,
      operation: `admin_api_${route.operation}`,
      dependencies: [admitted, ...route.dependencies],
      doc: undefined,
      // The startup checks read the admin's database: the session dependency names none.
      checkDatabase: route.checkDatabase && (() => route.checkDatabase!(ctx.knex)),
      adviseIndexes: route.adviseIndexes && (() => route.adviseIndexes!(ctx.knex)),
      async handler(req) {
        if (!unsafe) return route.handler(req);
        // Resolved before the transaction, as the forms do: an auto field reading the database
        // through another connection would wait for SQLite's only one, which it holds.
        await autoValues(req, autoFields[action]);
        let done: Awaited<ReturnType<typeof logged>> | undefined;
        if (keysApart && req.headers['idempotency-key'] !== undefined) {
          done = await logged(req, ctx.knex);
          // A replayed answer wrote nothing this time: its event is the first request's.
          if (done.result.status < 400 && !replayed(done.result))
            await ctx.events.record(req, principals.get(req) ?? null, [
              { type: action, model: view.name, ...done.entry },
            ]);
        } else
          await ctx.knex.transaction(async (trx) => {
            transactions.set(req, trx);
            done = await logged(req, trx);
            // A refusal answered rather than thrown keeps nothing either.
            if (done.result.status >= 400) return trx.rollback();
            // A replayed answer wrote nothing this time: its event is the first request's.
            if (replayed(done.result)) return;
            const event = { type: action, model: view.name, ...done.entry };
            await ctx.events.on(trx).record(req, principals.get(req) ?? null, [event]);
          });
        const { result, entry } = done!;
        if (result.status < 400) {
          // After the commit: sessions may live elsewhere (Redis), and the app's hook must see the write.
          counts.forget(view.name);
          if (action === 'delete' && entry.recordId !== undefined) await signOutAll(view, [entry.recordId]);
          await view.view.afterWrite?.(action);
        }
        return result;
      },
    };
  });
}

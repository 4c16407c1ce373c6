import { NotFoundError } from '../errors/http-error';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import { validateBody } from '../schema/validate-body';
import { rowFilters, sessionOf, type CrudContext } from './crud-context';
import { requestFilters } from './filter-config';
import { checkSortable, parseListQuery } from './list-query';
import type { Query } from './query-values';
import { checkPageSize } from './response-size';
import { conditionalAnswer, listAnswer, rowTag } from './etag';
import { writeIfMatch } from './if-match';
import { bodyMediaType, CREATE_TYPES, MERGE_PATCH, UPDATE_TYPES } from './media-type';
import { mergeUpdate } from './merge-patch';
import { answerAsPreferred, returnPreference } from './prefer';
import { idempotent } from './idempotency';
import { keyFilters, keyOf } from '../data/row-key';
import { callerOf, refuseHiddenKeys } from './access-guard';
import { createAnswersRow } from './answer-schema';

// One handler per generated operation. Each reads the neutral request, calls the
// repository, and answers the wire format docs/wire-format.md gives.

type Handler = (req: NeutralRequest) => Promise<NeutralResult>;

const ok = (json: unknown, status = 200): NeutralResult => ({ status, json });

/** The read options of the routes: the answer schema, joins and relationship counts. */
export function readOptions(ctx: CrudContext) {
  return {
    schemaToSelect: ctx.selectSchema,
    joinsConfig: ctx.joins,
    nestJoins: ctx.nestJoins,
    relationshipCounts: ctx.relationshipCounts,
  };
}

/**
 * POST: validates, injects auto fields, inserts; answers 201 with the item or null (the
 * row with `Prefer: return=representation`, 204 with `return=minimal`).
 */
export function createHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const principal = await callerOf(ctx, req, 'create');
    bodyMediaType(req, CREATE_TYPES);
    const prefer = returnPreference(req);
    const body = await validateBody(ctx.createSchema!, req.body, { forbidden: ctx.createConfig.forbidden });
    const auto = await ctx.createConfig.values(req);
    const answersItem = prefer === 'representation' || (prefer !== 'minimal' && createAnswersRow(ctx));
    const answersRow = answersItem || (prefer !== 'minimal' && Object.keys(ctx.createConfig.autoFields).length > 0);
    // An answer of null needs no stored row read back (MariaDB then sends the INSERT alone).
    const options = answersItem ? readOptions(ctx) : { returnRow: answersRow };
    const db = await sessionOf(ctx, req);
    const perform = async () => {
      const stored = await ctx.repo.create(db, { ...body, ...auto }, { ...options, principal });
      return answerAsPreferred(ok(answersRow ? stored : null, 201), prefer);
    };
    return ctx.idempotency ? idempotent(ctx.idempotency, req, db, perform) : perform();
  };
}

/** GET /:id: the item, or 404. */
export function readHandler(ctx: CrudContext): Handler {
  const options = readOptions(ctx);
  return async (req) => {
    // Awaited only when pending: the common read (no scope, a fixed session) takes no extra turn.
    const found = rowFilters(ctx, req);
    const filters = found instanceof Promise ? await found : found;
    const session = sessionOf(ctx, req);
    const db = session instanceof Promise ? await session : session;
    const row = await ctx.repo.get(
      db,
      filters,
      ctx.guarded ? { ...options, principal: await callerOf(ctx, req, 'read') } : options,
    );
    if (!row) throw new NotFoundError('Item not found');
    return conditionalAnswer(req, row, rowTag(ctx, row));
  };
}

/** GET: a list envelope, a page envelope, or a keyset page. */
export function readMultiHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const list = parseListQuery(req.query as Query, ctx.limits);
    const principal = await callerOf(ctx, req, 'list');
    if (principal !== undefined) refuseHiddenKeys(ctx, principal, { query: req.query as Query, ...list });
    checkSortable(list.sortColumns, ctx.sortable);
    const filters = await requestFilters(ctx.filters, req, ctx.info);
    const db = await sessionOf(ctx, req);
    const sort = { sortColumns: list.sortColumns, sortOrders: list.sortOrders, principal };
    const max = ctx.limits.maxResponseBytes;
    if (list.mode === 'cursor') {
      const keyset = await ctx.repo.getMultiByCursor(db, {
        ...readOptions(ctx),
        filters,
        cursor: list.cursor,
        limit: list.limit,
        ...sort,
      });
      checkPageSize(keyset, keyset.data.length, max, 'limit');
      return listAnswer(req, keyset);
    }
    const page = await ctx.repo.getMulti(db, {
      ...readOptions(ctx),
      filters,
      offset: list.offset,
      limit: list.limit,
      ...sort,
    });
    if (list.mode === 'offset') {
      checkPageSize(page, page.data.length, max, 'limit');
      return listAnswer(req, page);
    }
    const total = page.total_count ?? 0;
    const paged = {
      ...page,
      has_more: list.page * list.itemsPerPage < total,
      page: list.page,
      items_per_page: list.itemsPerPage,
    };
    checkPageSize(paged, page.data.length, max, 'itemsPerPage');
    return listAnswer(req, paged);
  };
}

/** Every column, for a representation the model gives no select schema for. */
const allColumns = (ctx: CrudContext) => ctx.selectSchema ?? [...ctx.info.columns.keys()];

/**
 * PATCH /:id: validates and updates; 200 null (the joined row with relationships; the row
 * with `Prefer: return=representation`, 204 with `return=minimal`). Takes JSON or a JSON
 * merge patch, whose objects merge into JSON columns.
 */
export function updateHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const principal = await callerOf(ctx, req, 'update');
    const mergePatch = bodyMediaType(req, UPDATE_TYPES) === MERGE_PATCH;
    const prefer = returnPreference(req);
    const filters = await rowFilters(ctx, req);
    const body = await validateBody(ctx.updateSchema!, req.body, { forbidden: ctx.updateConfig.forbidden });
    const auto = await ctx.updateConfig.values(req);
    const db = await sessionOf(ctx, req);
    const required = ctx.requireIfMatch;
    // With relationships the joined row is read after the write, as without a preference.
    const returning = prefer === 'representation' && !ctx.joins;
    const row = await writeIfMatch(ctx, req, { db, filters, required, principal }, (where, unchanged) => {
      const values = { ...body, ...auto };
      const selected = returning ? { schemaToSelect: allColumns(ctx) } : {};
      const options = { filters: where, unchanged, principal, ...selected };
      return mergePatch ? mergeUpdate(ctx, db, values, options) : ctx.repo.update(db, values, options);
    });
    if (returning) return answerAsPreferred(ok(row), prefer);
    if (!ctx.joins || prefer === 'minimal') return answerAsPreferred(ok(null), prefer);
    const key = keyFilters(ctx.info, keyOf(ctx.info, filters));
    const joined = await ctx.repo.get(db, key, { ...readOptions(ctx), principal });
    return answerAsPreferred(ok(joined), prefer);
  };
}

/**
 * DELETE /:id: soft delete when the model has the flag, else hard; 200 null (the row with
 * `Prefer: return=representation`, from the write itself; 204 with `return=minimal`).
 */
export function deleteHandler(ctx: CrudContext): Handler {
  return removeHandler(ctx, false);
}

/** DELETE /db_delete/:id: removes the row for good, soft-deleted or not; answered as delete is. */
export function dbDeleteHandler(ctx: CrudContext): Handler {
  return removeHandler(ctx, true);
}

function removeHandler(ctx: CrudContext, hard: boolean): Handler {
  return async (req) => {
    const principal = await callerOf(ctx, req, hard ? 'hardDelete' : 'delete');
    const prefer = returnPreference(req);
    const filters = await rowFilters(ctx, req);
    const db = await sessionOf(ctx, req);
    const includeDeleted = hard;
    const wanted = prefer === 'representation' || (prefer !== 'minimal' && Boolean(ctx.joins));
    const before =
      wanted && ctx.joins ? await ctx.repo.get(db, filters, { ...readOptions(ctx), includeDeleted, principal }) : null;
    const values = hard ? undefined : await ctx.deleteConfig.values(req);
    const target = { db, filters, includeDeleted, required: ctx.requireIfMatch, principal };
    const row = await writeIfMatch(ctx, req, target, async (where, unchanged) => {
      if (wanted && !ctx.joins)
        return ctx.repo.deleteReturning(db, where, { ...readOptions(ctx), values, unchanged, hard, principal });
      if (hard) await ctx.repo.dbDelete(db, where, { unchanged, principal });
      else await ctx.repo.delete(db, where, { values, unchanged, principal });
      return before;
    });
    return answerAsPreferred(ok(row), prefer);
  };
}

/** POST /:id/restore: clears a soft-deleted row's deletion; 200 with the row, 404 when none is deleted. */
export function restoreHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const principal = await callerOf(ctx, req, 'restore');
    const prefer = returnPreference(req);
    const filters = await rowFilters(ctx, req);
    const db = await sessionOf(ctx, req);
    const target = { db, filters, includeDeleted: true, required: ctx.requireIfMatch, principal };
    const row = await writeIfMatch(ctx, req, target, (where, unchanged) =>
      ctx.repo.restore(db, where, { ...readOptions(ctx), unchanged, principal }),
    );
    return answerAsPreferred(ok(row), prefer);
  };
}

import { NotFoundError } from '../errors/http-error';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import { validateBody } from '../schema/validate-body';
import { rowFilters, sessionOf, type CrudContext } from './crud-context';
import { requestFilters } from './filter-config';
import { checkSortable, parseListQuery } from './list-query';
import type { Query } from './query-values';
import { checkPageSize } from './response-size';
import { conditionalAnswer, listTag, rowTag } from './etag';
import { writeIfMatch } from './if-match';
import { keyFilters, keyOf } from '../data/row-key';

// One handler per generated operation. Each reads the neutral request, calls the
// repository, and answers the wire format docs/wire-format.md gives.

type Handler = (req: NeutralRequest) => Promise<NeutralResult>;

const ok = (json: unknown, status = 200): NeutralResult => ({ status, json });

/** How the generated reads read rows: answered columns, joins and relationship counts. */
export function readOptions(ctx: CrudContext) {
  return {
    schemaToSelect: ctx.selectSchema,
    joinsConfig: ctx.joins,
    nestJoins: ctx.nestJoins,
    relationshipCounts: ctx.relationshipCounts,
  };
}

/** POST: validates, injects auto fields, inserts; answers 201 with the item or null. */
export function createHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const body = await validateBody(ctx.createSchema!, req.body, { forbidden: ctx.createConfig.forbidden });
    const auto = await ctx.createConfig.values(req);
    const answersItem = Boolean(ctx.selectSchema || ctx.joins || ctx.relationshipCounts);
    const answersRow = answersItem || Object.keys(ctx.createConfig.autoFields).length > 0;
    // An answer of null needs no stored row read back (MariaDB then sends the INSERT alone).
    const options = answersItem ? readOptions(ctx) : { returnRow: answersRow };
    const stored = await ctx.repo.create(await sessionOf(ctx, req), { ...body, ...auto }, options);
    return ok(answersRow ? stored : null, 201);
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
    const row = await ctx.repo.get(session instanceof Promise ? await session : session, filters, options);
    if (!row) throw new NotFoundError('Item not found');
    return conditionalAnswer(req, row, rowTag(ctx, row));
  };
}

const listAnswer = (req: NeutralRequest, body: Record<string, unknown>) => conditionalAnswer(req, body, listTag(body));

/** GET: a list envelope, a page envelope, or a keyset page. */
export function readMultiHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const list = parseListQuery(req.query as Query, ctx.limits);
    checkSortable(list.sortColumns, ctx.sortable);
    const filters = await requestFilters(ctx.filters, req, ctx.info);
    const db = await sessionOf(ctx, req);
    const sort = { sortColumns: list.sortColumns, sortOrders: list.sortOrders };
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

/** PATCH /:id: validates and updates; 200 null (the joined row with relationships). */
export function updateHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const filters = await rowFilters(ctx, req);
    const body = await validateBody(ctx.updateSchema!, req.body, { forbidden: ctx.updateConfig.forbidden });
    const auto = await ctx.updateConfig.values(req);
    const db = await sessionOf(ctx, req);
    const required = ctx.requireIfMatch;
    await writeIfMatch(ctx, req, { db, filters, required }, (where, unchanged) =>
      ctx.repo.update(db, { ...body, ...auto }, { filters: where, unchanged }),
    );
    if (!ctx.joins) return ok(null);
    return ok(await ctx.repo.get(db, keyFilters(ctx.info, keyOf(ctx.info, filters)), readOptions(ctx)));
  };
}

/** DELETE /:id: soft delete when the model has the flag, else hard; 200 null. */
export function deleteHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const filters = await rowFilters(ctx, req);
    const db = await sessionOf(ctx, req);
    const before = ctx.joins ? await ctx.repo.get(db, filters, readOptions(ctx)) : null;
    const values = await ctx.deleteConfig.values(req);
    await writeIfMatch(ctx, req, { db, filters, required: ctx.requireIfMatch }, (where, unchanged) =>
      ctx.repo.delete(db, where, { values, unchanged }),
    );
    return ok(before);
  };
}

/** DELETE /db_delete/:id: removes the row for good, soft-deleted or not; 200 null. */
export function dbDeleteHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const filters = await rowFilters(ctx, req);
    const db = await sessionOf(ctx, req);
    const before = ctx.joins ? await ctx.repo.get(db, filters, { ...readOptions(ctx), includeDeleted: true }) : null;
    await writeIfMatch(
      ctx,
      req,
      { db, filters, includeDeleted: true, required: ctx.requireIfMatch },
      (where, unchanged) => ctx.repo.dbDelete(db, where, { unchanged }),
    );
    return ok(before);
  };
}

/** POST /:id/restore: clears a soft-deleted row's deletion; 200 with the row, 404 when none is deleted. */
export function restoreHandler(ctx: CrudContext): Handler {
  return async (req) => {
    const filters = await rowFilters(ctx, req);
    const db = await sessionOf(ctx, req);
    const target = { db, filters, includeDeleted: true, required: ctx.requireIfMatch };
    return ok(await writeIfMatch(ctx, req, target, (where) => ctx.repo.restore(db, where, readOptions(ctx))));
  };
}

import type { Knex } from 'knex';
import { insertMany, insertValues, writeWhere } from '../data/bulk-writes';
import { lockStored, upsertMany } from '../data/upsert-writes';
import { collatedKey, conflictKey } from '../data/conflict-keys';
import { returnsRows, updateReturning, updateWhere } from '../data/conditional-writes';
import { selectedFields } from '../data/read-query';
import { ConflictError, BadRequestError, ValidationError } from '../errors/http-error';
import { TooManyAffectedError } from '../errors/bulk-errors';
import type { Dependency, NeutralRequest, NeutralResult } from '../http/neutral';
import type { BulkConfig } from './bulk-options';
import { bodyFilters, eachItem, inBody, itemsOf, maxAffectedOf, nestIssues, objectAt, validItem } from './bulk-body';
import { sessionOf, type CrudContext } from './crud-context';
import { scopeFilters } from './filter-config';
import { readOptions } from './operations';
import { pathKeyFilters } from './path-key';
import { createAnswersRow } from './answer-schema';
import {
  answeredRows,
  bulkAccess,
  changeScope,
  createdScope,
  refuseBodyFields,
  refuseFilterKeys,
  requireInScope,
  requireUpdatable,
  requireUpdatableRows,
  type BulkAccess,
} from './bulk-access';
import { ForbiddenError } from '../errors/http-error';
import { refuseRepeated, refuseShared, requireOwnIds } from './upsert-items';

// The bulk handlers: each validates the whole request before any statement, then writes in
// one transaction, so a request either changes every row it names or none.

type Handler = (req: NeutralRequest) => Promise<NeutralResult>;
type Row = Record<string, unknown>;

/** What a create answers: the row (with a select schema, joins or auto fields) or null. */
function answerShape(ctx: CrudContext) {
  const item = createAnswersRow(ctx);
  const row = item || Object.keys(ctx.createConfig.autoFields).length > 0;
  // Joins and counts are read with the row; otherwise the write's RETURNING answers it.
  return {
    row,
    returning: row && !ctx.joins && !ctx.relationshipCounts ? selectedFields(ctx.info, ctx.selectSchema) : undefined,
  };
}

/** The stored rows whose `column` holds these values, in their order, read as the routes read. */
async function readBack(ctx: CrudContext, trx: Knex, column: string, values: unknown[]): Promise<Row[]> {
  const fields = selectedFields(ctx.info, ctx.selectSchema);
  // The column matches each row to its value, so it is read even where the answer leaves it out.
  const extra = !fields.includes(column);
  const read = {
    ...readOptions(ctx),
    schemaToSelect: extra ? [...fields, column] : ctx.selectSchema,
    includeDeleted: true,
  };
  const stored: [unknown, Row][] = [];
  for (let start = 0; start < values.length; start += 1000) {
    const filters = { [`${column}__in`]: values.slice(start, start + 1000) };
    for (const row of await ctx.repo.select(trx, filters, read)) {
      stored.push([row[column], row]);
      if (extra) delete row[column];
    }
  }
  // A value sent may differ from the stored one it matched ('Abc' and 'abc' on MariaDB).
  const key = await collatedKey(trx, ctx.info, column, { given: values, stored: stored.map(([value]) => value) });
  const found = new Map(stored.map(([value, row]) => [key(value), row]));
  return values.map((value) => found.get(key(value)) as Row);
}

/** The column `?on_conflict=` names, when given: one the router declares unique (400 otherwise). */
function conflictOf(req: NeutralRequest, bulk: BulkConfig): string | undefined {
  const raw = (req.query as Record<string, unknown>).on_conflict;
  if (raw === undefined) return undefined;
  if (!bulk.operations.has('upsert')) throw new BadRequestError('This route does not upsert: on_conflict is not taken');
  if (typeof raw !== 'string' || !bulk.conflictColumns.has(raw))
    throw new BadRequestError(
      `on_conflict must name one of the unique columns: ${[...bulk.conflictColumns].join(', ')}`,
    );
  return raw;
}

/** The values an upsert writes: the create's, the update's auto fields and stamp; and the columns it merges. */
async function upsertValues(ctx: CrudContext, req: NeutralRequest, db: Knex, updateDeps: Dependency[]) {
  for (const dependency of updateDeps) await req.resolve(dependency);
  const updateAuto = await ctx.updateConfig.values(req);
  const auto = { ...(await ctx.createConfig.values(req)), ...updateAuto };
  const stamp = ctx.repo.updateValues(db, updateAuto);
  const merge = (body: Row) => new Set([...Object.keys(body), ...Object.keys(stamp)]);
  return { auto, stamp, merge };
}

/** POST /bulk: creates every item in one transaction (or upserts them with `?on_conflict=`); 201 with the rows. */
export function bulkCreateHandler(ctx: CrudContext, bulk: BulkConfig, updateDeps: Dependency[]): Handler {
  const shape = answerShape(ctx);
  const forbidden = ctx.createConfig.forbidden;
  return async (req) => {
    const conflict = conflictOf(req, bulk);
    const ops = conflict ? (['create', 'update'] as const) : (['create'] as const);
    const access = await bulkAccess(ctx, req, [...ops]);
    const items = itemsOf(req.body, bulk.maxItems);
    const bodies = await eachItem(items, (item) => validItem(ctx.createSchema!, item, forbidden));
    if (conflict) await eachItem(bodies, (body) => requireField(body, conflict));
    const db = await sessionOf(ctx, req);
    const upsert = conflict ? await upsertValues(ctx, req, db, updateDeps) : undefined;
    const auto = upsert?.auto ?? (await ctx.createConfig.values(req));
    await eachItem(bodies, (body) => refuseBodyFields(access, [...ops], { ...body, ...auto }));
    const values = await insertValues(
      ctx.info,
      await eachItem(bodies, (body) => ({ ...ctx.repo.createValues(db, { ...body, ...auto }), ...upsert?.stamp })),
    );
    if (values.length === 0) return { status: 201, json: [] };
    if (conflict) refuseRepeated(ctx.info, conflict, values);
    const rows = await ctx.repo.guard(db, () =>
      db.transaction(async (trx) => {
        if (conflict) {
          const merge = new Set(bodies.flatMap((body) => [...upsert!.merge(body)]));
          const given = values.map((row) => row[conflict]);
          // A row the caller may not see is refused (404) before its id is compared.
          const checked = await checkStored(access, trx, conflict, given);
          await requireOwnIds(trx, ctx.info, conflict, values);
          const upserted = await upsertMany(trx, ctx.info, values, {
            conflict,
            merge,
            columns: shape.returning,
            only: checked?.stored,
          });
          refuseShared(ctx.info, conflict, values, upserted.met);
          if (upserted.skipped.length > 0) await refuseSkipped(access, trx, conflict, upserted.skipped);
          await requireInScope(access, trx, createdScope(access), { column: conflict, values: checked?.made ?? [] });
          if (!shape.row) return values.map(() => null);
          return upserted.rows ?? readBack(ctx, trx, conflict, given);
        }
        const written = await insertMany(trx, ctx.info, values, shape.returning);
        await requireInScope(access, trx, createdScope(access), { column: ctx.info.idColumn, values: written.keys });
        if (!shape.row) return values.map(() => null);
        return written.rows ?? readBack(ctx, trx, ctx.info.idColumn, written.keys);
      }),
    );
    return { status: 201, json: answeredRows(access, rows) };
  };
}

/**
 * Under a policy with a row rule for update or create, before an upsert by `conflict`:
 * locks the stored rows it would reach, 404 when the caller may not read one of them, 403
 * when it may not update one; answers their values (the only rows the statement may then
 * update) and the values no row holds (the rows it creates). No such rule: undefined.
 */
async function checkStored(access: BulkAccess, trx: Knex, conflict: string, given: unknown[]) {
  const scope = changeScope(access, 'update');
  if (!scope && !createdScope(access)) return undefined;
  const stored = await lockStored(trx, access.ctx.info, conflict, given);
  const key = conflictKey(access.ctx.info, conflict);
  await requireUpdatableRows(access, trx, { column: conflict, values: given.filter((v) => stored.has(key(v))) });
  return { stored: scope ? stored : undefined, made: given.filter((value) => !stored.has(key(value))) };
}

/**
 * The upsert left rows alone that no check passed: ones another client inserted since,
 * or (MariaDB) another row an item met first by another unique value. 404 or 403 as for a
 * stored row the caller may not update, else 409 (sent again, the request meets the row
 * checked). Throwing rolls the whole request back.
 */
async function refuseSkipped(access: BulkAccess, trx: Knex, conflict: string, skipped: unknown[]): Promise<never> {
  await requireUpdatableRows(access, trx, { column: conflict, values: skipped });
  throw new ConflictError(
    `An item meets a stored row by another unique value than ${conflict}, or one created meanwhile`,
  );
}

function requireField(body: Row, column: string): void {
  if (body[column] === undefined || body[column] === null)
    throw ValidationError.of(['body', column], 'Field required: on_conflict matches rows by it', 'missing');
}

/**
 * PUT /{id}: creates the row with this id (201), or sets the fields the body gives on the
 * stored one (200). The row is read first, in the transaction: an upsert statement would
 * let MariaDB's ON DUPLICATE KEY match another unique column than the id.
 */
export function upsertHandler(ctx: CrudContext, updateDeps: Dependency[]): Handler {
  const shape = answerShape(ctx);
  const forbidden = ctx.createConfig.forbidden;
  const id = ctx.info.idColumn;
  const { deletedFlag } = ctx.repo.readContext;
  const probe = [id, ...(deletedFlag ? [deletedFlag] : [])];
  return async (req) => {
    const access = await bulkAccess(ctx, req, ['create', 'update']);
    const key = pathKeyFilters(ctx.info, req);
    const body = await validItem(ctx.createSchema!, req.body, forbidden);
    if (body[id] !== undefined && String(body[id]) !== String(key[id]))
      throw ValidationError.of(['body', id], 'The body names another row than the path', 'value_error');
    const db = await sessionOf(ctx, req);
    const upsert = await upsertValues(ctx, req, db, updateDeps);
    const [values] = await insertValues(ctx.info, [
      { ...ctx.repo.createValues(db, { ...body, ...upsert.auto, ...key }), ...upsert.stamp },
    ]);
    refuseBodyFields(access, ['create', 'update'], { ...body, ...upsert.auto });
    const merge = upsert.merge(body);
    const scope = changeScope(access, 'update');
    const [status, row] = await ctx.repo.guard(db, () =>
      db.transaction(async (trx) => {
        const [stored] = await ctx.repo.select(trx, key, { schemaToSelect: probe, includeDeleted: true });
        if (stored && deletedFlag && stored[deletedFlag])
          throw new ConflictError('The item is deleted: restore it before replacing it');
        let rows: Row[] | undefined;
        if (stored) {
          await requireUpdatable(access, trx, key);
          const set = Object.fromEntries(
            Object.entries(values).filter(([column]) => column !== id && merge.has(column)),
          );
          // The row rules are in the UPDATE's WHERE too: the row cannot leave the scope after the check.
          const target = { db: trx, ctx: ctx.repo.readContext, filters: scope ? scope(key) : key };
          if (shape.returning && returnsRows(trx)) rows = await updateReturning(target, set, shape.returning);
          else if ((await updateWhere(target, set, true)) === 0) throw new ForbiddenError();
          if (rows?.length === 0) throw new ForbiddenError();
        } else {
          rows = (await insertMany(trx, ctx.info, [values], shape.returning)).rows;
          await requireInScope(access, trx, createdScope(access), { column: id, values: [key[id]] });
        }
        const answer = !shape.row ? null : (rows?.[0] ?? (await readBack(ctx, trx, id, [key[id]]))[0]);
        return [stored ? 200 : 201, answer] as const;
      }),
    );
    return { status, json: row && answeredRows(access, [row])[0] };
  };
}

/** Runs one conditional write of the filtered rows in a transaction; 200 `{ count }`. */
async function writeFiltered(
  ctx: CrudContext,
  req: NeutralRequest,
  write: { db: Knex; filters: Row; values: (db: Knex) => Row | undefined; maxAffected: number | undefined },
): Promise<NeutralResult> {
  const { db, filters, values } = write;
  const max = maxAffectedOf(req, write.maxAffected);
  const running = ctx.repo.guard(db, () =>
    db.transaction((trx) =>
      writeWhere(
        { db: trx, ctx: ctx.repo.readContext, filters },
        values(trx),
        max,
        (n) => new TooManyAffectedError(n, max!),
      ),
    ),
  );
  const count = await inBody(running, ctx.info.idColumn);
  return { status: 200, json: { count } };
}

/** PATCH /bulk: `{ filter, set }` updates every live row the filter matches in one statement. */
export function bulkUpdateHandler(ctx: CrudContext, bulk: BulkConfig): Handler {
  const forbidden = ctx.updateConfig.forbidden;
  return async (req) => {
    const access = await bulkAccess(ctx, req, ['update']);
    const filter = objectAt(req.body, 'filter')!;
    const set = objectAt(req.body, 'set')!;
    let body: Row;
    const auto = await ctx.updateConfig.values(req);
    try {
      body = await validItem(ctx.updateSchema!, set, forbidden);
      refuseBodyFields(access, ['update'], { ...body, ...auto });
    } catch (error) {
      throw new ValidationError(nestIssues(error, ['set']));
    }
    refuseFilterKeys(access, filter);
    const filters = await bodyFilters(ctx, req, filter);
    const db = await sessionOf(ctx, req);
    const scope = changeScope(access, 'update');
    return writeFiltered(ctx, req, {
      db,
      filters: scope ? scope(filters) : filters,
      values: (trx) => ctx.repo.updateValues(trx, { ...body, ...auto }),
      maxAffected: bulk.maxAffected,
    });
  };
}

/** DELETE /bulk: `{ ids }` or `{ filter }`; soft-deletes (or deletes) every live row it names in one statement. */
export function bulkDeleteHandler(ctx: CrudContext, bulk: BulkConfig): Handler {
  return async (req) => {
    const access = await bulkAccess(ctx, req, ['delete']);
    const filter = objectAt(req.body, 'filter', false);
    const ids = (req.body as Row)?.ids;
    if ((filter === undefined) === (ids === undefined))
      throw ValidationError.of(['body'], 'Give either ids or filter', 'value_error');
    let filters: Row;
    if (filter) {
      refuseFilterKeys(access, filter);
      filters = await bodyFilters(ctx, req, filter);
    } else {
      if (!Array.isArray(ids) || ids.length === 0)
        throw ValidationError.of(['body', 'ids'], 'Input should be a non-empty array', 'list_type');
      if (ids.length > bulk.maxItems) itemsOf(ids, bulk.maxItems);
      filters = { ...(await scopeFilters(ctx.filters, req)), [`${ctx.info.idColumn}__in`]: ids };
    }
    const auto = await ctx.deleteConfig.values(req);
    const db = await sessionOf(ctx, req);
    const scope = changeScope(access, 'delete');
    return writeFiltered(ctx, req, {
      db,
      filters: scope ? scope(filters) : filters,
      values: (trx) => ctx.repo.softDeleteValues(trx, auto),
      maxAffected: bulk.maxAffected,
    });
  };
}

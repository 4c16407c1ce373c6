import type { Knex } from 'knex';
import { ForbiddenError } from '../errors/http-error';
import type { Filters } from './filters';
import type { ModelInfo } from '../model/model-info';
import type { ReadContext } from './read-query';
import type { AccessOptions, DeleteOptions, ReadOptions, UpdateOptions, WriteOptions } from './repository-options';
import { keyFilters, keyOf } from './row-key';
import type { Principal } from '../http/principal';
import type { EffectivePolicy } from '../access/effective';
import { authorize, excludedFields, refuseUnwritable, rowCondition, withRows } from '../access/enforce';
import { scopedWrite } from '../access/scoped-write';

// The repository's writes given a principal (it calls these only then): each runs the plain
// write (no principal) under the model's access policy and answers without the fields the
// read rule hides.

type Row = Record<string, unknown>;

/** What a write under the policy asks of the repository: its plain writes, a read of existence, the answer's strip. */
export interface PolicyWriter {
  readonly info: ModelInfo;
  readonly policy?: EffectivePolicy;
  readonly readContext: ReadContext;
  exists(db: Knex, filters: Filters, options: Pick<ReadOptions, 'includeDeleted'>): Promise<boolean>;
  create(db: Knex, data: Row, options: ReadOptions & { returnRow?: boolean }): Promise<Row>;
  update(db: Knex, data: Row, options: UpdateOptions): Promise<Row | Row[] | null>;
  delete(db: Knex, filters: Filters, options: DeleteOptions): Promise<number>;
  deleteReturning(db: Knex, filters: Filters, options: DeleteOptions & ReadOptions & { hard?: boolean }): Promise<Row>;
  restore(db: Knex, filters: Filters, options: ReadOptions & Pick<WriteOptions, 'unchanged'>): Promise<Row>;
  dbDelete(db: Knex, filters: Filters, options: WriteOptions): Promise<number>;
  stripAnswer(answer: Row | Row[], principal: Principal | null, options?: ReadOptions): Row | Row[];
}

/** A create under the policy; its row rule holds of the row it makes. */
export async function createUnderPolicy(
  repo: PolicyWriter,
  db: Knex,
  data: Row,
  options: ReadOptions & { returnRow?: boolean },
): Promise<Row> {
  const principal = callerOf(options);
  const rule = repo.policy?.create;
  authorize(rule, principal);
  refuseUnwritable(data, excludedFields(repo.info, rule, principal));
  const rows = rowCondition(rule, principal);
  const plain = { ...options, principal: undefined };
  // Checked in SQL, in the insert's transaction, which a row outside it rolls back (403).
  const row = !rows
    ? await repo.create(db, data, plain)
    : await db.transaction(async (trx) => {
        const made = await repo.create(trx, data, plain);
        const key = keyFilters(repo.info, keyOf(repo.info, made));
        if (!(await repo.exists(trx, withRows(key, rows), { includeDeleted: true }))) throw new ForbiddenError();
        return made;
      });
  return repo.stripAnswer(row, principal, options) as Row;
}

/** An update under the policy. */
export async function updateUnderPolicy(
  repo: PolicyWriter,
  db: Knex,
  data: Row,
  options: UpdateOptions,
): Promise<Row | Row[] | null> {
  const scope = { ...writeScope(repo, db, { filters: options.filters, principal: callerOf(options) }), values: data };
  const answer = await scopedWrite(repo.policy, 'update', scope, (filters) =>
    repo.update(db, data, { ...options, filters, principal: undefined }),
  );
  return answer ? repo.stripAnswer(answer, callerOf(options)) : answer;
}

/** A delete (soft where the model has the flag) under the policy. */
export function deleteUnderPolicy(
  repo: PolicyWriter,
  db: Knex,
  filters: Filters,
  options: DeleteOptions,
): Promise<number> {
  return scopedWrite(repo.policy, 'delete', writeScope(repo, db, { filters, principal: callerOf(options) }), (where) =>
    repo.delete(db, where, { ...options, principal: undefined }),
  );
}

/** A delete answering the row under the policy: a hard one reaches soft-deleted rows too. */
export async function deleteReturningUnderPolicy(
  repo: PolicyWriter,
  db: Knex,
  filters: Filters,
  options: DeleteOptions & ReadOptions & { hard?: boolean },
): Promise<Row> {
  const scope = writeScope(repo, db, { filters, principal: callerOf(options), deleted: options.hard ? {} : undefined });
  const row = await scopedWrite(repo.policy, options.hard ? 'hardDelete' : 'delete', scope, (where) =>
    repo.deleteReturning(db, where, { ...options, principal: undefined }),
  );
  return repo.stripAnswer(row, callerOf(options), options) as Row;
}

/** A restore under the policy; the rows it reaches are the soft-deleted ones. */
export async function restoreUnderPolicy(
  repo: PolicyWriter,
  db: Knex,
  filters: Filters,
  options: ReadOptions & Pick<WriteOptions, 'unchanged'>,
): Promise<Row> {
  const flag = repo.readContext.deletedFlag;
  const scope = writeScope(repo, db, { filters, principal: callerOf(options), deleted: flag ? { [flag]: true } : {} });
  const row = await scopedWrite(repo.policy, 'restore', scope, (where) =>
    repo.restore(db, where, { ...options, principal: undefined }),
  );
  return repo.stripAnswer(row, callerOf(options), options) as Row;
}

/** A hard delete under the policy, soft-deleted rows included. */
export function hardDeleteUnderPolicy(
  repo: PolicyWriter,
  db: Knex,
  filters: Filters,
  options: WriteOptions,
): Promise<number> {
  return scopedWrite(
    repo.policy,
    'hardDelete',
    writeScope(repo, db, { filters, principal: callerOf(options), deleted: {} }),
    (where) => repo.dbDelete(db, where, { ...options, principal: undefined }),
  );
}

/**
 * A write's scope for the policy; `deleted` are the conditions of a soft-deleted row the
 * write reaches (absent: only rows not deleted), for telling 403 from 404.
 */
function writeScope(
  repo: PolicyWriter,
  db: Knex,
  { filters, principal, deleted }: { filters: Filters; principal: Principal | null; deleted?: Filters },
) {
  return {
    info: repo.info,
    principal,
    filters,
    readable: (where: Filters) =>
      repo.exists(db, deleted ? { ...where, ...deleted } : where, { includeDeleted: deleted !== undefined }),
  };
}

/** The caller the options name; absent (no policy applies) never reaches these functions. */
function callerOf(options: AccessOptions): Principal | null {
  return options.principal ?? null;
}

import type { Knex } from 'knex';
import { ReadRepository } from './read-repository';
import { NotFoundError } from '../errors/http-error';
import { reuseCompiledSql } from './compiled-sql';
import {
  deleteReturning,
  deleteWhere,
  insertReturning,
  returnsRows,
  updateReturning,
  updateWhere,
  writesInOneStatement,
} from './conditional-writes';
import { insertDirectly, patchDirectly, plainValues, whereUnchanged, writesDirectly } from './direct-writes';
import type { Filters } from './filters';
import type { ModelClass } from '../model/model-info';
import { selectedFields } from './read-query';
import type { DeleteOptions, ReadOptions, UpdateOptions, WriteOptions } from './repository-options';
import { createValues, softDeleteValues, updateValues } from './write-stamps';
import { found, guardWrite, matchingIds, refuseUnfiltered } from './write-guards';
import { isComposite, keyFilters, keyOf, whereKeys } from './row-key';
import type { Principal } from '../http/principal';
import { answerAccess, stripHidden } from '../access/scoped-read';
import {
  createUnderPolicy,
  deleteReturningUnderPolicy,
  deleteUnderPolicy,
  hardDeleteUnderPolicy,
  restoreUnderPolicy,
  updateUnderPolicy,
} from './policy-writes';

export type {
  RepositoryOptions,
  ReadOptions,
  ListOptions,
  CursorOptions,
  UpdateOptions,
  WriteOptions,
  DeleteOptions,
} from './repository-options';

type Row = Record<string, unknown>;

/**
 * Data access for one objection model: the reads of `ReadRepository`, and the writes
 * (create, update, delete, restore, hard delete), each one conditional statement where it
 * can be. Every method takes the knex instance (or transaction) to run on, so the caller
 * owns sessions.
 */
export class CrudRepository<M extends ModelClass = ModelClass> extends ReadRepository<M> {
  /**
   * Inserts a row and answers it as stored: in one statement where the engine returns the
   * row (PostgreSQL, SQLite), the insert and one read on MariaDB; in a transaction when
   * objection writes it or joins are read with it. With `returnRow: false` the caller needs
   * no row, so none is read back (one statement on MariaDB too) and only its key is answered.
   */
  async create(db: Knex, data: Row, options: ReadOptions & { returnRow?: boolean } = {}): Promise<Row> {
    if (options.principal !== undefined) return createUnderPolicy(this, db, data, options);
    return this.createRow(db, data, options);
  }

  private async createRow(db: Knex, data: Row, options: ReadOptions & { returnRow?: boolean }): Promise<Row> {
    const values = this.createValues(db, data);
    const direct = writesDirectly(this.info) && plainValues(this.info, values);
    // Joins and relationship counts are read with the row, so the row is read back.
    if (direct && this.joins(options).length === 0 && !options.relationshipCounts?.length) {
      return this.guard(db, async () => {
        if (options.returnRow === false) return keyFilters(this.info, await insertDirectly(db, this.info, values));
        if (returnsRows(db))
          return this.shape(
            [await insertReturning(db, this.info, values, selectedFields(this.info, options.schemaToSelect))],
            options,
          )[0];
        const id = await insertDirectly(db, this.info, values);
        return (await this.get(db, keyFilters(this.info, id), { ...options, includeDeleted: true })) as Row;
      });
    }
    return this.guard(db, () =>
      db.transaction(async (trx) => {
        const id = direct
          ? await insertDirectly(trx, this.info, values)
          : (
              (await this.model.query(trx).insert(this.model.fromJson(values, { skipValidation: true }) as any)) as any
            ).$id();
        const row = await this.get(trx, keyFilters(this.info, id), { ...options, includeDeleted: true });
        return row as Row;
      }),
    );
  }

  /** The values a create writes for this data: each coerced to its column, the creation time stamped. */
  createValues(db: Knex, data: Row): Row {
    return createValues(this.ctx, this.options, data, db);
  }

  /** The values an update writes for this data: each coerced to its column, the update time stamped. */
  updateValues(db: Knex, data: Row): Row {
    return updateValues(this.ctx, this.options, data, db);
  }

  /** The values a soft delete writes (the flag, the deletion time, `extra`); undefined when deletes are hard. */
  softDeleteValues(db: Knex, extra?: Row): Row | undefined {
    return softDeleteValues(this.ctx, this.options, extra, db);
  }

  /**
   * Updates the matching row (or rows, with allowMultiple); 404 when none matches. A row
   * named by its id (or rows allowed) is one conditional UPDATE, answered with RETURNING
   * where the engine has it; otherwise, and through objection, the ids are read first in
   * a transaction.
   */
  async update(db: Knex, data: Row, options: UpdateOptions): Promise<Row | Row[] | null> {
    refuseUnfiltered(this.info, 'update', options.filters, options);
    if (options.principal !== undefined) return updateUnderPolicy(this, db, data, options);
    const values = this.updateValues(db, data);
    const direct = writesDirectly(this.info) && plainValues(this.info, values);
    const { schemaToSelect, filters } = options;
    if (
      direct &&
      writesInOneStatement(this.info, filters, options.allowMultiple) &&
      (!schemaToSelect || (!options.allowMultiple && returnsRows(db)))
    ) {
      return this.guard(db, async () => {
        const target = { db, ctx: this.ctx, filters };
        const rows = schemaToSelect
          ? await updateReturning(target, values, selectedFields(this.info, schemaToSelect))
          : undefined;
        if ((rows ? rows.length : await updateWhere(target, values)) === 0) throw new NotFoundError('Item not found');
        return rows ? rows[0] : null;
      });
    }
    return this.guard(db, () =>
      db.transaction(async (trx) => {
        const ids = await this.matchingIds(trx, filters, options);
        const { unchanged } = options;
        const written = direct
          ? await patchDirectly(trx, this.info, values, { ids, unchanged })
          : Number(
              await whereUnchanged(
                whereKeys(
                  this.model
                    .query(trx)
                    .patch(this.model.fromJson(values, { patch: true, skipValidation: true }) as any) as any,
                  this.info,
                  ids,
                ),
                this.info,
                unchanged,
                trx,
              ),
            );
        // The row changed between the read of its id and this write: nothing is written.
        if (unchanged && written < ids.length) throw new NotFoundError('Item not found');
        if (!schemaToSelect) return null;
        const rows = isComposite(this.info)
          ? (
              await Promise.all(
                ids.map((id) => this.get(trx, keyFilters(this.info, id), { schemaToSelect, includeDeleted: true })),
              )
            ).filter((row): row is Row => row !== null)
          : await this.select(trx, { [`${this.info.idColumn}__in`]: ids }, { schemaToSelect, includeDeleted: true });
        return options.allowMultiple ? rows : rows[0];
      }),
    );
  }

  /** Soft-deletes the matching row when the model has the flag column, else hard-deletes it. */
  async delete(db: Knex, filters: Filters, options: DeleteOptions = {}): Promise<number> {
    if (options.principal !== undefined) return deleteUnderPolicy(this, db, filters, options);
    refuseUnfiltered(this.info, 'delete', filters, options);
    const { deletedFlag } = this.ctx;
    if (!deletedFlag) return this.removeRows(db, filters, options, false);
    const values = this.softDeleteValues(db, options.values)!;
    // Never through objection (no update hook ran on a soft delete): one UPDATE whose WHERE
    // holds the flag, when the filters name one row.
    if (writesInOneStatement(this.info, filters, options.allowMultiple)) {
      return this.guard(db, async () => found(await updateWhere({ db, ctx: this.ctx, filters }, values, true)));
    }
    return this.guard(db, () =>
      db.transaction(async (trx) => {
        const ids = await this.matchingIds(trx, filters, options);
        const flagged = Number(
          await reuseCompiledSql(
            whereUnchanged(whereKeys(trx(this.info.table), this.info, ids), this.info, options.unchanged, trx).update(
              values,
            ),
          ),
        );
        if (options.unchanged && flagged < ids.length) throw new NotFoundError('Item not found');
        return ids.length;
      }),
    );
  }

  /**
   * Deletes the matching row as `delete` does (soft when the model has the flag; with
   * `hard`, as `dbDelete`) and answers it as the write left it: from the write itself
   * (RETURNING) where the engine has it, else read in the write's transaction.
   */
  async deleteReturning(
    db: Knex,
    filters: Filters,
    options: DeleteOptions & ReadOptions & { hard?: boolean } = {},
  ): Promise<Row> {
    if (options.principal !== undefined) return deleteReturningUnderPolicy(this, db, filters, options);
    refuseUnfiltered(this.info, 'delete', filters, options);
    const { deletedFlag } = this.ctx;
    const hard = options.hard === true || !deletedFlag;
    const includeDeleted = options.hard === true;
    const plain = this.joins(options).length === 0 && !options.relationshipCounts?.length;
    if (plain && returnsRows(db) && writesDirectly(this.info) && writesInOneStatement(this.info, filters, false)) {
      return this.guard(db, async () => {
        const target = { db, ctx: this.ctx, filters, includeDeleted };
        const fields = selectedFields(this.info, options.schemaToSelect);
        const rows = hard
          ? await deleteReturning(target, fields)
          : await updateReturning(target, this.softDeleteValues(db, options.values)!, fields);
        found(rows.length);
        return this.shape(rows, options)[0];
      });
    }
    return this.guard(db, () =>
      db.transaction(async (trx) => {
        const read = { ...options, includeDeleted: true };
        if (!hard) {
          await this.delete(trx, filters, options);
          return (await this.get(trx, keyFilters(this.info, keyOf(this.info, filters)), read)) as Row;
        }
        // The row as it was, then the conditional delete, which alone decides 404 (or 412).
        const before = await this.get(trx, filters, { ...options, includeDeleted });
        await this.removeRows(trx, filters, options, includeDeleted);
        return before as Row;
      }),
    );
  }

  /**
   * Brings back the matching soft-deleted row (flag cleared, deletion time emptied) and
   * answers it; 404 when no soft-deleted row matches, or the model does not soft-delete.
   * A row named by its id is one conditional UPDATE whose WHERE holds the flag, so two
   * concurrent restores cannot both succeed.
   */
  async restore(db: Knex, filters: Filters, options: ReadOptions & Pick<WriteOptions, 'unchanged'> = {}): Promise<Row> {
    if (options.principal !== undefined) return restoreUnderPolicy(this, db, filters, options);
    const { deletedFlag } = this.ctx;
    if (!deletedFlag) throw new NotFoundError('Item not found');
    const values: Row = { [deletedFlag]: false };
    const at = this.options.deletedAtColumn ?? 'deleted_at';
    if (this.info.columns.has(at)) values[at] = null;
    const deleted = { ...filters, [deletedFlag]: true };
    // Read back as it is now, deleted again or not; a row purged meanwhile is a 404.
    const reread = async (conn: Knex, id: unknown) => {
      const row = await this.get(conn, keyFilters(this.info, id), { ...options, includeDeleted: true });
      if (!row) throw new NotFoundError('Item not found');
      return row;
    };
    if (
      writesInOneStatement(this.info, filters, false) &&
      this.joins(options).length === 0 &&
      !options.relationshipCounts?.length
    ) {
      const target = { db, ctx: this.ctx, filters: deleted, includeDeleted: true };
      return this.guard(db, async () => {
        if (!returnsRows(db)) {
          found(await updateWhere(target, values, true));
          return reread(db, keyOf(this.info, filters));
        }
        const rows = await updateReturning(target, values, selectedFields(this.info, options.schemaToSelect));
        found(rows.length);
        return this.shape(rows, options)[0];
      });
    }
    return this.guard(db, () =>
      db.transaction(async (trx) => {
        const [id] = await this.matchingIds(trx, deleted, { includeDeleted: true });
        // The `If-Match` condition holds in this write too, not only in the read of the id.
        const restore = whereUnchanged(
          whereKeys(trx(this.info.table), this.info, [id]),
          this.info,
          options.unchanged,
          trx,
        );
        found(Number(await reuseCompiledSql(restore.where(deletedFlag, true).update(values))));
        return reread(trx, id);
      }),
    );
  }

  /** Removes the matching row for good, soft-deleted or not. */
  dbDelete(db: Knex, filters: Filters, options: WriteOptions = {}): Promise<number> {
    if (options.principal !== undefined) return hardDeleteUnderPolicy(this, db, filters, options);
    return this.removeRows(db, filters, options, true);
  }

  /**
   * Removes the matching rows for good; without `includeDeleted` a soft-deleted row is not
   * matched (a delete of a model without the flag, a hard delete of a live row).
   */
  private async removeRows(
    db: Knex,
    filters: Filters,
    options: WriteOptions,
    includeDeleted: boolean,
  ): Promise<number> {
    refuseUnfiltered(this.info, 'dbDelete', filters, options);
    if (writesDirectly(this.info) && writesInOneStatement(this.info, filters, options.allowMultiple)) {
      return this.guard(db, async () => found(await deleteWhere({ db, ctx: this.ctx, filters, includeDeleted })));
    }
    return this.guard(db, () =>
      db.transaction(async (trx) => {
        const ids = await this.matchingIds(trx, filters, { ...options, includeDeleted });
        const { unchanged } = options;
        const removed = writesDirectly(this.info)
          ? Number(
              await reuseCompiledSql(
                whereUnchanged(whereKeys(trx(this.info.table), this.info, ids), this.info, unchanged, trx).del(),
              ),
            )
          : Number(
              await whereUnchanged(
                whereKeys(this.model.query(trx).delete() as any, this.info, ids),
                this.info,
                unchanged,
                trx,
              ),
            );
        if (unchanged && removed < ids.length) throw new NotFoundError('Item not found');
        return ids.length;
      }),
    );
  }

  /** A write's answer without the fields the read rule hides from the caller (bulk writes answer through it). */
  stripAnswer(answer: Row | Row[], principal: Principal | null, options: ReadOptions = {}): Row | Row[] {
    const rows = Array.isArray(answer) ? answer : [answer];
    stripHidden(rows, answerAccess(this.policy, this.info, principal), this.joined(options));
    return answer;
  }

  /** The ids a write will touch: 404 when none, 400 when several without allowMultiple. */
  protected matchingIds(
    db: Knex,
    filters: Filters,
    options: WriteOptions & { includeDeleted?: boolean },
  ): Promise<unknown[]> {
    return matchingIds(db, this.ctx, filters, options);
  }

  /** Runs a database call, turning the client's mistakes (duplicates, bad values) into HTTP errors. */
  guard<T>(db: Knex, work: () => Promise<T>): Promise<T> {
    return guardWrite(db, work);
  }
}

import type { Knex } from 'knex';
import { schemaToJsonSchema } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

const found = new WeakMap<ResolvedView, Promise<ReadonlySet<string>>>();

/**
 * The create fields a create fails without, which the form marks `required`: those the
 * create schema requires (a class without `@IsOptional` on them), and NOT NULL columns
 * with no database default that nothing else fills (an auto field, the creation stamp,
 * an integer key the database numbers, a checkbox, which always sends a value). The
 * columns' defaults are read from the database once per view.
 */
export function requiredOnCreate(knex: Knex, view: ResolvedView): Promise<ReadonlySet<string>> {
  let answer = found.get(view);
  if (!answer) {
    answer = read(knex, view);
    found.set(view, answer);
    // A failed read (the database away) is asked again on the next form.
    answer.catch(() => found.delete(view));
  }
  return answer;
}

async function read(knex: Knex, view: ResolvedView): Promise<ReadonlySet<string>> {
  const schema = view.view.createSchema;
  const byClass = Array.isArray(schema) ? [] : ((schemaToJsonSchema(schema).required as string[] | undefined) ?? []);
  const columns = await knex(view.info.table).columnInfo();
  const stamp =
    view.declaration.options?.createdAtColumn === undefined ? 'created_at' : view.declaration.options.createdAtColumn;
  const filled = (name: string) => {
    const column = view.info.columns.get(name);
    if (!column || column.kind === 'boolean' || name === stamp || name in view.declaration.autoFields.create)
      return true;
    if (name === view.info.idColumn && column.kind === 'integer') return true;
    const stored = (columns as Record<string, Knex.ColumnInfo | undefined>)[name];
    return !stored || stored.nullable || stored.defaultValue !== null;
  };
  return new Set(view.createFields.filter((name) => byClass.includes(name) || !filled(name)));
}

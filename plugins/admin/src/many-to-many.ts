import type { Knex } from 'knex';
import { Model } from 'objection';
import { ValidationError } from '@crudsmith/core';
import type { AdminContext } from './context';
import { parseId } from './ids';
import type { ResolvedView } from './model-view';
import type { Choice } from './routes/lookup';
import { en } from './i18n/en';
import { translator, type Translate } from './i18n/translate';

/** Most rows a many-to-many field holds: a form shows them all and a submission sends no more. */
export const MANY_LIMIT = 100;

/** A many-to-many relation of a view's model to a model another view shows, edited as a multi-select. */
export interface ManyLink {
  /** The relation's name: the form field and the lookup route's last segment. */
  name: string;
  target: ResolvedView;
  joinTable: string;
  /** The join table's column holding the owner's key, and the one holding the target's key. */
  joinOwner: string;
  joinTarget: string;
  /** The owner's column the join refers to, and the target's. */
  ownerKey: string;
  targetKey: string;
}

/** The view's many-to-many relations (objection `ManyToManyRelation` on one column each side) to admin views. */
export function manyLinks(ctx: AdminContext, view: ResolvedView): ManyLink[] {
  const links: ManyLink[] = [];
  for (const [name, relation] of Object.entries(view.info.relations)) {
    if (!(relation instanceof Model.ManyToManyRelation) || relation.ownerProp.cols.length !== 1) continue;
    if (relation.relatedProp.cols.length !== 1 || view.info.columns.has(name)) continue;
    const target = [...ctx.views.values()].find((v) => v.view.model === relation.relatedModelClass);
    if (!target) continue;
    links.push({
      name,
      target,
      joinTable: relation.joinTable,
      joinOwner: relation.joinTableOwnerProp.cols[0],
      joinTarget: relation.joinTableRelatedProp.cols[0],
      ownerKey: relation.ownerProp.cols[0],
      targetKey: relation.relatedProp.cols[0],
    });
  }
  return links;
}

/** The rows the owner is linked to now, by label, at most MANY_LIMIT, in one query. */
export async function linkedChoices(db: Knex, link: ManyLink, owner: unknown): Promise<Choice[]> {
  const { target } = link;
  const table = target.info.table;
  const rows = (await db(link.joinTable)
    .join(table, `${table}.${link.targetKey}`, `${link.joinTable}.${link.joinTarget}`)
    .where(`${link.joinTable}.${link.joinOwner}`, owner as string)
    .orderBy(`${table}.${target.displayField}`)
    .limit(MANY_LIMIT)
    .select(`${table}.${link.targetKey} as value`, `${table}.${target.displayField} as label`)) as Choice[];
  return rows.map((r) => ({ value: String(r.value), label: String(r.label ?? '') }));
}

/**
 * The keys a submission sends for the relation (`undefined`: the field was not sent, the
 * links stay): each a key of the target, at most MANY_LIMIT, else a 422 on the field.
 */
export function parseLinkSet(
  link: ManyLink,
  body: Record<string, unknown>,
  t: Translate = translator(en),
): (string | number)[] | undefined {
  const raw = body[link.name];
  if (raw === undefined) return undefined;
  const sent = [raw].flat().filter((v) => v !== '');
  if (sent.length > MANY_LIMIT)
    throw ValidationError.of(['body', link.name], t('form.atMostChoices', { count: MANY_LIMIT }), 'too_long');
  const keys = sent.map((v) => (typeof v === 'string' ? parseId(link.target, v) : undefined));
  if (keys.some((k) => k === undefined || Array.isArray(k)))
    throw ValidationError.of(['body', link.name], t('form.chooseFromList'), 'value_error');
  return [...new Set(keys as (string | number)[])];
}

/** A link set's change as the event log records it: the linked keys before and after, sorted. */
export interface LinkChange {
  before: string[];
  after: string[];
}

const sortedKeys = (keys: Iterable<unknown>): string[] =>
  [...new Set([...keys].map(String))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

/**
 * Makes the owner's links exactly `keys` in the write's transaction: one query checks every
 * key names a row (else a 422, nothing written), then the links no longer chosen are
 * deleted and the new ones inserted. Returns the keys linked before and after, or
 * undefined when the set did not change.
 */
export async function writeLinkSet(
  trx: Knex.Transaction,
  link: ManyLink,
  owner: unknown,
  { keys, t = translator(en) }: { keys: (string | number)[]; t?: Translate },
): Promise<LinkChange | undefined> {
  const table = link.target.info.table;
  if (keys.length > 0) {
    const found = await trx(table).whereIn(link.targetKey, keys).count({ n: '*' }).first();
    if (Number(found?.n) !== keys.length)
      throw ValidationError.of(['body', link.name], t('form.chooseFromList'), 'value_error');
  }
  const linked = async () =>
    (
      await trx(link.joinTable)
        .where(link.joinOwner, owner as string)
        .select(link.joinTarget)
    ).map((r) => String((r as Record<string, unknown>)[link.joinTarget]));
  const before = sortedKeys(await linked());
  const remove = trx(link.joinTable).where(link.joinOwner, owner as string);
  await (keys.length > 0 ? remove.whereNotIn(link.joinTarget, keys) : remove).delete();
  const kept = new Set(before.filter((k) => keys.some((key) => String(key) === k)));
  const added = keys.filter((k) => !kept.has(String(k)));
  if (added.length > 0)
    await trx(link.joinTable).insert(added.map((k) => ({ [link.joinOwner]: owner, [link.joinTarget]: k })));
  const after = sortedKeys(keys);
  return before.join('\n') === after.join('\n') ? undefined : { before, after };
}

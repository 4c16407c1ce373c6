import { ValidationError, type Filters, type NeutralRequest, type RouteDescriptor } from '@crudsmith/core';
import type { AdminContext } from '../context';
import { guarded } from '../guard';
import { SEARCH_MAX } from '../list-query';
import { manyLinks } from '../many-to-many';
import type { ResolvedView } from '../model-view';
import type { AdminPrincipal } from '../admin-auth';
import { labelColumn, may, restricted, scopeOf } from '../view-access';
import { parseId } from '../ids';

/** Most rows a lookup answers, and a form's select starts with. */
export const LOOKUP_LIMIT = 20;

/** A row a foreign key may point to, as a select shows it. */
export interface Choice {
  value: string;
  label: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function one(req: NeutralRequest, name: string): string {
  const value = req.query[name];
  return (Array.isArray(value) ? value[value.length - 1] : value) ?? '';
}

/**
 * Rows of `target` for a select: those whose label contains `text` (case-insensitive,
 * taken literally) or whose key is `text`, ordered by label, at most LOOKUP_LIMIT, in one
 * query; for an admin user holding roles, only rows the target's list rule reaches.
 */
export async function findChoices(
  ctx: AdminContext,
  target: ResolvedView,
  text: string,
  principal: AdminPrincipal,
): Promise<Choice[]> {
  const limit = LOOKUP_LIMIT;
  if (!may(target, 'list', principal)) return [];
  // A label the list rule withholds is neither searched, sorted on nor shown: the key stands in.
  const label = labelColumn(target, principal);
  const display = target.info.columns.get(label)!;
  const key = target.info.columns.get(target.info.idColumn)!;
  const words = text.trim();
  const byLabel: Filters =
    display.kind === 'string' ? { [`${display.name}__ilike`]: `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } : {};
  const keyFits =
    key.kind === 'integer'
      ? /^\d{1,15}$/.test(words)
      : key.kind === 'string' && (target.formats.get(key.name) !== 'uuid' || UUID.test(words));
  const filters: Filters =
    words === ''
      ? {}
      : keyFits && key.name !== display.name
        ? { _or: { ...byLabel, [key.name]: words } }
        : keyFits && display.kind !== 'string'
          ? { [key.name]: words }
          : byLabel;
  const { data } = await target.repository.getMulti(ctx.knex, {
    filters,
    limit,
    sortColumns: label,
    sortOrders: 'asc',
    returnTotalCount: false,
    ...scopeOf(principal),
  });
  return data.map((row) => ({ value: String(row[key.name]), label: String(row[display.name] ?? '') }));
}

/**
 * The choices of a form's foreign key selects, by column: the first rows by label and the
 * row the key holds now; the select's search box asks the lookup route for others (never
 * the whole table).
 */
export async function referenceChoices(
  ctx: AdminContext,
  view: ResolvedView,
  values: Record<string, unknown>,
  principal: AdminPrincipal,
): Promise<Map<string, Choice[]>> {
  const lists = new Map<string, Choice[]>();
  for (const [column, target] of Object.entries(view.view.references ?? {})) {
    const other = ctx.views.get(target)!;
    const list = await findChoices(ctx, other, '', principal);
    // Only a value the key can hold is looked up (a re-shown form may echo any text).
    const current = parseId(other, values[column] === undefined ? undefined : String(values[column]));
    const readable = may(other, 'list', principal) && !restricted(principal);
    if (
      readable &&
      current !== undefined &&
      !Array.isArray(current) &&
      !list.some((c) => c.value === String(current))
    ) {
      const row = await ctx
        .knex(other.info.table)
        .where(other.info.idColumn, current as string)
        .first(other.info.idColumn, other.displayField);
      if (row) list.unshift({ value: String(row[other.info.idColumn]), label: String(row[other.displayField] ?? '') });
    }
    lists.set(column, list);
  }
  return lists;
}

/**
 * `GET {mount}/{model}/lookup/{column}?q=text`: the rows a foreign-key column of the view
 * (or a many-to-many relation's field) may point to, for its searchable select, as JSON `{ options: [{ value, label }] }`: at
 * most 20, never the whole table. A column without `references` is a 404; text over 50
 * characters a 422.
 */
export function lookupRoutes(ctx: AdminContext, view: ResolvedView): RouteDescriptor[] {
  const columns = [
    ...Object.entries(view.view.references ?? {}),
    ...manyLinks(ctx, view).map((link): [string, string] => [link.name, link.target.name]),
  ];
  return columns.map(([column, targetName]) =>
    guarded(
      ctx,
      {
        method: 'GET',
        path: `${ctx.mount}/${view.name}/lookup/${column}`,
        operation: `admin_${view.name}_lookup_${column}`,
      },
      async (req, principal) => {
        const text = one(req, 'q');
        if (text.length > SEARCH_MAX)
          throw ValidationError.of(['query', 'q'], `At most ${SEARCH_MAX} characters`, 'string_too_long');
        const options = await findChoices(ctx, ctx.views.get(targetName)!, text, principal);
        return { status: 200, headers: { 'Cache-Control': 'no-store' }, json: { options } };
      },
    ),
  );
}

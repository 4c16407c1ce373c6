import type { AdminPrincipal } from './admin-auth';
import type { AdminContext } from './context';
import type { AdminEvent } from './event-log';
import { idFilters, parseId } from './ids';
import type { ResolvedView } from './model-view';
import { may, restricted, scopeOf, unreadable } from './view-access';

// The event log as an admin user with roles sees it: the events of the models it may read,
// of the rows their read rule reaches, without the values of fields it may not read. A
// record's past values are data of that record: the log must not show what its page hides.

/** The models whose events the admin user sees: undefined (all, other events too) with full access. */
export function eventModels(ctx: AdminContext, principal: AdminPrincipal): string[] | undefined {
  if (!restricted(principal)) return undefined;
  return [...ctx.views.values()].filter((v) => v.allowed.has('view') && may(v, 'read', principal)).map((v) => v.name);
}

/**
 * The events the admin user may see, their details without withheld fields. An event of
 * a model whose read rule limits rows is kept when its row is still one the rule reaches.
 */
export async function visibleEvents(
  ctx: AdminContext,
  principal: AdminPrincipal,
  events: readonly AdminEvent[],
): Promise<AdminEvent[]> {
  if (!restricted(principal)) return [...events];
  const shown: AdminEvent[] = [];
  for (const event of events) {
    const view = event.model === null ? undefined : ctx.views.get(event.model);
    if (!view || !(await readable(ctx, view, principal, event.recordId))) continue;
    shown.push({ ...event, details: withoutFields(event.details, unreadable(view, principal)) });
  }
  return shown;
}

/** Whether the row of an event is one the admin user's read rule reaches (any row when the rule limits none). */
export async function readable(
  ctx: AdminContext,
  view: ResolvedView,
  principal: AdminPrincipal,
  recordId: string | null,
): Promise<boolean> {
  if (!restricted(principal) || !view.repository.policy?.read?.rows) return true;
  const id = parseId(view, recordId ?? '');
  if (id === undefined) return false;
  return (await view.repository.get(ctx.knex, idFilters(view, id), scopeOf(principal))) !== null;
}

/** An event's details without the given fields, in its changes and in its recorded values. */
export function withoutFields(details: unknown, fields: ReadonlySet<string>): unknown {
  if (fields.size === 0 || !details || typeof details !== 'object') return details;
  const strip = (values: unknown) =>
    values && typeof values === 'object'
      ? Object.fromEntries(Object.entries(values).filter(([key]) => !fields.has(key)))
      : values;
  const { changes, record, ...rest } = details as { changes?: unknown; record?: unknown };
  if (changes !== undefined || record !== undefined)
    return {
      ...rest,
      ...(changes !== undefined ? { changes: strip(changes) } : {}),
      ...(record !== undefined ? { record: strip(record) } : {}),
    };
  return strip(details);
}

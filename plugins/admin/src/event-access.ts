import type { AdminPrincipal } from './admin-auth';
import type { AdminContext } from './context';
import type { AdminEvent, EventModel } from './event-log';
import { idFilters, parseId } from './ids';
import type { ResolvedView } from './model-view';
import { actingOf, may, restricted, scopeOf, unreadable } from './view-access';

// The event log as an admin user with roles sees it: the events of the models it may read,
// of the rows their read rule reaches (kept in the log's own statement, so its pages and
// total agree), without the values of fields it may not read. A record's past values are
// data of that record: the log must not show what its page hides.

/**
 * The models whose events the admin user sees, with the subquery of the keys of the rows
 * its read rule reaches where the rule limits rows (a model with a several-column key and
 * such a rule is left out); undefined (all, other events too) with full access.
 */
export async function eventModels(ctx: AdminContext, principal: AdminPrincipal): Promise<EventModel[] | undefined> {
  if (!restricted(principal)) return undefined;
  const models: EventModel[] = [];
  for (const view of ctx.views.values()) {
    if (!view.allowed.has('view') || !may(view, 'read', principal)) continue;
    if (!view.repository.policy?.read?.rows) models.push({ name: view.name });
    else if (view.info.idColumns.length === 1)
      models.push({ name: view.name, ...(await view.repository.readableKeys(ctx.knex, actingOf(principal))) });
  }
  return models;
}

/** The events' details without the fields the admin user's read rule withholds. */
export function visibleEvents(
  ctx: AdminContext,
  principal: AdminPrincipal,
  events: readonly AdminEvent[],
): AdminEvent[] {
  if (!restricted(principal)) return [...events];
  return events.map((event) => {
    const view = event.model === null ? undefined : ctx.views.get(event.model);
    return view ? { ...event, details: withoutFields(event.details, unreadable(view, principal)) } : event;
  });
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

import type { RouteDescriptor } from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import type { ResolvedView } from '../model-view';
import { layoutLocals, translate, type AdminContext } from '../context';
import { EVENT_TYPES, EVENTS_PER_PAGE, parseEventFilter, type AdminEvent } from '../event-log';
import { guarded } from '../guard';
import { html } from '../page';
import { render } from '../templates';
import { eventFields, shortAgent } from '../event-view';
import { showValue } from '../format-value';
import { eventModels, visibleEvents } from '../event-access';
import { may, unwritableOf } from '../view-access';
import { manyLinks } from '../many-to-many';

const AT = { name: 'at', kind: 'datetime', nullable: false } as const;

/**
 * `{mount}/management/events`: the event log, newest first, by type, admin user and dates,
 * 25 a page. An admin user with roles sees only the events of rows it may read, without
 * the fields it may not read, and is offered a revert only where it may update.
 */
export function eventRoutes(ctx: AdminContext): RouteDescriptor[] {
  const base = `${ctx.mount}/management/events`;
  return [
    guarded(ctx, { method: 'GET', path: base, operation: 'admin_management_events' }, async (req, principal) => {
      const filter = { ...parseEventFilter(req.query), models: await eventModels(ctx, principal) };
      const listed = await ctx.events.list(filter);
      const { total } = listed;
      const events = visibleEvents(ctx, principal, listed.events);
      const pages = Math.max(1, Math.ceil(total / EVENTS_PER_PAGE));
      const one = (name: string) => {
        const value = req.query[name];
        return (Array.isArray(value) ? value[value.length - 1] : value) ?? '';
      };
      const at = (page: number) =>
        `${base}?${new URLSearchParams({ type: one('type'), username: one('username'), from: one('from'), to: one('to'), page: String(page) })}`;
      const t = translate(ctx, req);
      return html(
        200,
        render('events', {
          ...layoutLocals(ctx, req, principal, t('events.title')),
          base,
          types: EVENT_TYPES,
          query: { type: one('type'), username: one('username'), from: one('from'), to: one('to') },
          events: events.map((e) => ({
            ...e,
            at: showValue(e.at, AT, false, t('language.tag')),
            fields: eventFields(e.details, e.model === null ? undefined : ctx.views.get(e.model), {
              t,
              links: linkLabels(ctx, e.model),
            }),
            agent: shortAgent(e.userAgent, t),
            revertible: revertibleBy(
              ctx.views.get(e.model ?? ''),
              principal,
              listed.events.find((o) => o.id === e.id)!,
            ),
          })),
          total,
          page: filter.page,
          pages,
          prev: filter.page > 1 ? at(filter.page - 1) : null,
          next: filter.page < pages ? at(filter.page + 1) : null,
          enabled: ctx.events.enabled,
        }),
      );
    }),
  ];
}

// Offered where the update rule lets the admin user write back every field the event changed,
// and the event changed a column: a revert leaves many-to-many links as they are, so an
// update of links only has nothing to write back.
function revertibleBy(view: ResolvedView | undefined, principal: AdminPrincipal, event: AdminEvent): boolean {
  if (event.type !== 'update' || !view || !view.allowed.has('update') || !may(view, 'update', principal)) return false;
  const changes = (event.details as { changes?: Record<string, unknown> } | null)?.changes ?? {};
  const unwritable = unwritableOf(view, principal);
  const fields = Object.keys(changes);
  return fields.some((field) => view.info.columns.has(field)) && !fields.some((field) => unwritable.has(field));
}

/** The labels of a model's many-to-many relations by name, as its form shows them. */
function linkLabels(ctx: AdminContext, model: string | null): Map<string, string> {
  const view = model === null ? undefined : ctx.views.get(model);
  return new Map(view ? manyLinks(ctx, view).map((link) => [link.name, link.target.labels.plural]) : []);
}

import type { RouteDescriptor } from '@crudsmith/core';
import { layoutLocals, translate, type AdminContext } from '../context';
import { EVENT_TYPES, EVENTS_PER_PAGE, parseEventFilter } from '../event-log';
import { guarded } from '../guard';
import { html } from '../page';
import { render } from '../templates';
import { eventFields, shortAgent } from '../event-view';
import { showValue } from '../format-value';

const AT = { name: 'at', kind: 'datetime', nullable: false } as const;

/** `{mount}/management/events`: the event log, newest first, by type, admin user and dates, 25 a page. */
export function eventRoutes(ctx: AdminContext): RouteDescriptor[] {
  const base = `${ctx.mount}/management/events`;
  return [
    guarded(
      ctx,
      { method: 'GET', path: base, operation: 'admin_management_events', fullAccess: true },
      async (req, principal) => {
        const filter = parseEventFilter(req.query);
        const { events, total } = await ctx.events.list(filter);
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
              fields: eventFields(e.details, e.model === null ? undefined : ctx.views.get(e.model), t('language.tag')),
              agent: shortAgent(e.userAgent, t),
              revertible:
                e.type === 'update' && e.model !== null && Boolean(ctx.views.get(e.model)?.allowed.has('update')),
            })),
            total,
            page: filter.page,
            pages,
            prev: filter.page > 1 ? at(filter.page - 1) : null,
            next: filter.page < pages ? at(filter.page + 1) : null,
            enabled: ctx.events.enabled,
          }),
        );
      },
    ),
  ];
}

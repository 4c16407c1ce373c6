import type { Knex } from 'knex';
import type { ErrorLogger, NeutralRequest } from '@crudsmith/core';
import { languageOf, translator, type Catalogue, type Translate } from './i18n/translate';
import type { AdminAuth, AdminPrincipal } from './admin-auth';
import type { Assets } from './assets';
import type { EventLog } from './event-log';
import type { AdminRoles } from './admin-roles';
import type { ResolvedView } from './model-view';
import { may, restricted } from './view-access';

/** What every admin route shares. */
export interface AdminContext {
  knex: Knex;
  /** The mount path, without a trailing slash (`/admin`). */
  mount: string;
  title: string;
  /** The scheme the app fixed, or undefined: the reader's system preference (a toggle overrides either). */
  scheme?: 'light' | 'dark';
  auth: AdminAuth;
  assets: Assets;
  views: Map<string, ResolvedView>;
  exactCountLimit: number;
  logger: ErrorLogger;
  events: EventLog;
  /** The languages of the pages and their messages. */
  i18n: Catalogue;
  /** Admin users' roles, and the principal each acts as under the models' policies. */
  roles: AdminRoles;
  /** Whether the API keys page exists (the `apiKeys` option). */
  keysPage: boolean;
}

/** The reader's language (its cookie, else `Accept-Language`, else English) and its translate function. */
export function translate(ctx: AdminContext, req: Pick<NeutralRequest, 'cookies' | 'headers'>): Translate {
  return translator(ctx.i18n.messages(languageOf(req, ctx.i18n.languages)));
}

/** What the layout of every page reads, `t` (the page's messages) and `lang` among it. */
export function layoutLocals(
  ctx: AdminContext,
  req: Pick<NeutralRequest, 'cookies' | 'headers' | 'path' | 'query'>,
  principal: AdminPrincipal | null,
  pageTitle: string,
): Record<string, unknown> {
  const lang = languageOf(req, ctx.i18n.languages);
  const messages = ctx.i18n.messages(lang);
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(req.query ?? {}))
    for (const one of Array.isArray(value) ? value : [value]) query.append(key, one);
  const here = `${req.path}${query.size ? `?${query}` : ''}`;
  return {
    lang,
    t: translator(messages),
    // Each other language as a link that remembers it and comes back to this page.
    languages: ctx.i18n.languages
      .filter((tag) => tag !== lang)
      .map((tag) => ({
        tag,
        name: ctx.i18n.messages(tag)['language.name'],
        href: `${ctx.mount}/language?${new URLSearchParams({ lang: tag, next: here })}`,
      })),
    mount: ctx.mount,
    title: ctx.title,
    scheme: ctx.scheme,
    pageTitle,
    admin: principal ? { username: principal.user.username, manages: !restricted(principal) } : null,
    csrf: principal?.csrf ?? '',
    // htmx 2 inherits hx-headers down the tree: set once on <body>, every request sends it.
    hxHeaders: principal ? JSON.stringify({ 'X-CSRF-Token': principal.csrf }) : '',
    events: ctx.events.enabled,
    rolesPage: ctx.roles.enabled,
    keysPage: ctx.keysPage,
    models: [...ctx.views.values()]
      .filter((v) => v.allowed.has('view') && (!principal || may(v, 'list', principal)))
      .map((v) => ({ name: v.name, label: v.labels.plural })),
    css: ctx.assets.url(ctx.mount, 'admin.css'),
    htmx: ctx.assets.url(ctx.mount, 'htmx.min.js'),
    script: ctx.assets.url(ctx.mount, 'admin.js'),
    schemeScript: ctx.assets.url(ctx.mount, 'scheme.js'),
  };
}

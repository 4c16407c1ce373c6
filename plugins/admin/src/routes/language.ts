import type { RouteDescriptor } from '@crudsmith/core';
import type { AdminContext } from '../context';
import { LANGUAGE_COOKIE } from '../i18n/translate';

const YEAR = 365 * 24 * 3600;

/**
 * `GET {mount}/language?lang=de&next=/admin/items/`: remembers the reader's language in a
 * cookie under the admin's path (a preference, nothing secret, so open to anyone) and goes
 * back to `next`, a page of the admin only (never another site). An unknown language
 * clears the choice, so `Accept-Language` applies again.
 */
export function languageRoute(ctx: AdminContext): RouteDescriptor {
  return {
    method: 'GET',
    path: `${ctx.mount}/language`,
    operation: 'admin_language',
    dependencies: [],
    async handler(req) {
      const one = (name: string) => {
        const value = req.query[name];
        return (Array.isArray(value) ? value[0] : value) ?? '';
      };
      const lang = one('lang').toLowerCase();
      const next = one('next');
      const back = next.startsWith(`${ctx.mount}/`) && !/[\\\r\n]/.test(next) ? next : `${ctx.mount}/`;
      const known = ctx.i18n.languages.includes(lang);
      return {
        status: 303,
        redirect: back,
        headers: { 'Cache-Control': 'no-store' },
        cookies: [
          {
            name: LANGUAGE_COOKIE,
            value: known ? lang : '',
            path: ctx.mount,
            sameSite: 'strict',
            maxAge: known ? YEAR : 0,
          },
        ],
      };
    },
  };
}

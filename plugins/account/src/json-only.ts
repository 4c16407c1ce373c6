import { UnsupportedMediaTypeError, type Dependency, type RouteDescriptor } from '@crudsmith/core';
import { error } from './openapi';

export const JSON_ONLY = 'Send the body as JSON (Content-Type: application/json)';

// `application/json` or a `+json` type, parameters (charset) aside: what the adapters parse as JSON.
function isJson(contentType: string): boolean {
  const media = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/** Refuses a body declared as anything but JSON (a form, multipart, text) with a 415; no body at all passes. */
export const jsonBodyOnly: Dependency<void> = (req) => {
  const type = req.headers['content-type'];
  if (type !== undefined && !isJson(type)) throw new UnsupportedMediaTypeError(JSON_ONLY);
};

/**
 * The POST routes of `routes` take JSON bodies only (a form is 415, documented): a page of
 * another site can post a form without a preflight, never JSON, so these routes are out of
 * a plain form's reach. `/login` and `/token` stay forms, as OAuth2 clients send them.
 */
export function jsonBodiesOnly(routes: RouteDescriptor[]): RouteDescriptor[] {
  const refused = error('The body is not JSON (a form, multipart or text body)', JSON_ONLY);
  return routes.map((r) =>
    r.method !== 'POST'
      ? r
      : {
          ...r,
          dependencies: [jsonBodyOnly, ...r.dependencies],
          doc: r.doc && { ...r.doc, responses: { ...r.doc.responses, '415': refused } },
        },
  );
}

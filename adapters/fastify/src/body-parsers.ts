import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UploadedFile } from '@crudsmith/core';
import { readBody } from '@crudsmith/core/adapter';

/** `application/*+json` and the like, as Koa's `ctx.is('+json')` matches them. */
const JSON_SUFFIX = /^[^\s/;]+\/[^\s/;]+\+json\s*(?:;|$)/;

/** The files of a multipart request, beside its fields in `request.body`. */
const uploads = new WeakMap<FastifyRequest, UploadedFile[]>();

/** The files uploaded with `request` (multipart), or none. */
export function filesOf(request: FastifyRequest): UploadedFile[] {
  return uploads.get(request) ?? [];
}

/**
 * Replaces Fastify's parsers, inside the adapter's own encapsulated plugin only, with the
 * readers every adapter shares: JSON, urlencoded and multipart within the route's
 * `bodyLimit` (`limit` when it has none), holding at most `maxValues` values; any other
 * type is left unread, as on Koa, where Fastify would answer 415.
 */
export function registerBodyParsers(instance: FastifyInstance, limit: number, maxValues?: number): void {
  instance.removeAllContentTypeParsers();
  const limitOf = (request: FastifyRequest) => request.routeOptions.bodyLimit ?? limit;
  // request.raw rather than the payload argument: co-body reads the request's own headers
  // (length, encoding), so a preParsing hook that swaps the payload stream is not applied.
  for (const type of ['application/json', JSON_SUFFIX])
    instance.addContentTypeParser(type, (request: FastifyRequest) =>
      readBody.json(request.raw, limitOf(request), maxValues),
    );
  instance.addContentTypeParser('application/x-www-form-urlencoded', (request: FastifyRequest) =>
    readBody.form(request.raw, limitOf(request), maxValues),
  );
  instance.addContentTypeParser('multipart/form-data', async (request: FastifyRequest) => {
    const { body, files } = await readBody.multipart(request.raw, limitOf(request), maxValues);
    uploads.set(request, files);
    return body;
  });
  instance.addContentTypeParser('*', async () => undefined);
}

// The routes and fallbacks the adapter conformance suite mounts on every adapter.
import { Readable } from 'node:stream';
import {
  NotFoundError,
  type Dependency,
  type Fallback,
  type NeutralRequest,
  type NeutralResult,
  type RouteDescriptor,
} from '@crudsmith/core';
import { route } from './conformance-kit';

/** Answers with what the handler received, files summarised. */
const echo = (req: NeutralRequest): NeutralResult => ({
  status: 200,
  json: {
    method: req.method,
    path: req.path,
    params: req.params,
    query: req.query,
    headers: { 'x-custom': req.headers['x-custom'] },
    cookies: req.cookies,
    body: req.body === undefined ? '<none>' : req.body,
    files: req.files.map((f) => ({
      field: f.field,
      filename: f.filename,
      contentType: f.contentType,
      size: f.size,
      text: f.data.toString('utf8'),
    })),
    clientAddress: req.clientAddress,
  },
});

const countCalls: Dependency<string> = (req) => {
  req.state.calls = ((req.state.calls as number | undefined) ?? 0) + 1;
  return 'user';
};
const usesCount: Dependency<string> = async (req) => `${await req.resolve(countCalls)}!`;

/** The routes of the suite, mounted fresh for each server. */
export function routes(): RouteDescriptor[] {
  return [
    route('GET /items/:id', echo),
    route('POST /echo', echo),
    { ...route('POST /roomy', echo), bodyLimit: 3000 },
    { ...route('POST /tight', echo), bodyLimit: 100 },
    route('PUT /echo/:a/:b', echo),
    route('GET /users/', echo),
    route('GET /created-null', () => ({ status: 201, json: null })),
    route('GET /json-string', () => ({ status: 200, json: 'text' })),
    route('GET /cookies', () => ({
      status: 200,
      json: { ok: true },
      cookies: [
        { name: 'session', value: 'abc', httpOnly: true, secure: true, sameSite: 'lax', path: '/', maxAge: 3600 },
        { name: 'csrf', value: 'x y', sameSite: 'strict', path: '/', expires: new Date('2030-01-01T00:00:00Z') },
      ],
      headers: { 'X-Extra': 'one', 'X-Multi': ['a', 'b'] },
    })),
    route('GET /redirect', () => ({ status: 200, redirect: '/elsewhere' })),
    route('GET /redirect-303', () => ({ status: 303, redirect: 'https://example.com/next?x=1' })),
    route('GET /html', () => ({
      status: 200,
      headers: { 'Content-Type': 'text/html; charset=utf-8' },
      body: '<p>hello</p>',
    })),
    route('GET /bytes', () => ({
      status: 200,
      headers: { 'Content-Type': 'application/octet-stream' },
      body: new Uint8Array([1, 2, 3]),
    })),
    route('GET /stream', () => ({
      status: 200,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      body: Readable.from(['str', 'eam']),
    })),
    route('GET /missing', () => {
      throw new NotFoundError();
    }),
    route('GET /boom', () => {
      throw new Error('secret database password');
    }),
    route('GET /only-get/:id', () => ({ status: 200, json: true })),
    route('PATCH /only-get/:key', () => ({ status: 200, json: true })),
    route('DELETE /gone/:id', () => ({ status: 204, json: null })),
    route('GET /bigint', () => ({ status: 200, json: { n: 1n } })),
    route('GET /fb/real', () => ({ status: 200, json: 'real' })),
    route('GET /fb/things/:id', (req) => ({ status: 200, json: req.params.id })),
    route(
      'GET /deps',
      async (req) => {
        await req.resolve(countCalls);
        await req.resolve(usesCount);
        return { status: 200, json: { calls: req.state.calls, value: await req.resolve(usesCount) } };
      },
      [countCalls, usesCount],
    ),
  ];
}

/** A fallback that answers 404 with what it saw, and says which prefix caught the path. */
export function fallback(prefix: string): Fallback {
  return {
    prefix,
    handler: async (req) => {
      if (req.query.fail !== undefined) throw new NotFoundError('Thrown by the fallback');
      return {
        status: 404,
        headers: { 'X-Fallback': prefix },
        json: { detail: 'Nothing here', method: req.method, path: req.path, body: req.body ?? null },
      };
    },
  };
}

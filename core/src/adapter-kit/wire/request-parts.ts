import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseCookies } from 'cookie';
import { BadRequestError } from '../../errors/http-error';
import { groupEntries } from './read-body';

// The pieces of a Node request every adapter reads the same way, so that the neutral
// request is identical whichever framework received it.

/** Header values as strings; Node already lower-cases names, and only Set-Cookie arrives as an array. */
export function flattenHeaders(raw: IncomingHttpHeaders): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const name in raw) {
    const value = raw[name];
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The decoded path; one that is not valid percent-encoded UTF-8 is 400. */
export function decodePath(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequestError('Path is not valid percent-encoded UTF-8');
  }
}

/** Splits a request URL into its raw path and raw query string. */
export function splitUrl(url: string): [path: string, query: string] {
  const mark = url.indexOf('?');
  return mark === -1 ? [url, ''] : [url.slice(0, mark), url.slice(mark + 1)];
}

/** The cookies of a `Cookie` header, by name. */
export function cookiesOf(header: string | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (!header) return result;
  for (const [name, value] of Object.entries(parseCookies(header ?? ''))) if (value !== undefined) result[name] = value;
  return result;
}

/** The parameters of a raw query string; a repeated name gives an array, in order. */
export function parseQuery(raw: string): Record<string, string | string[]> {
  return raw === '' ? {} : groupEntries(new URLSearchParams(raw));
}

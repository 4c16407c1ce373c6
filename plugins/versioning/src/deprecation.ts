import { ConfigurationError } from '@crudsmith/core';
import type { DeprecationOptions } from './options';

/** A deprecation with its dates parsed once: what headers and discovery announce. */
export interface Deprecation {
  message: string;
  sunset: Date;
  /** The sunset as announced in `X-API-Sunset` and discovery: `YYYY-MM-DD`, or a full ISO date-time. */
  sunsetIso: string;
  since: Date;
}

/** Parses and checks a version's deprecation at startup (a bad date or message throws there). */
export function parseDeprecation(label: string, options: DeprecationOptions): Deprecation {
  // Header values: no control characters (no header injection), nothing beyond ASCII.
  if (!/^[\x20-\x7e]+$/.test(options.message))
    throw new ConfigurationError(`${label}: the deprecation message must be printable ASCII`);
  const sunset = parseDate(label, options.sunset);
  const since = options.since === undefined ? sunset : parseDate(label, options.since);
  if (since > sunset)
    throw new ConfigurationError(`${label}: deprecated since ${since.toISOString()}, after its sunset`);
  const dateOnly = typeof options.sunset === 'string' && DATE_ONLY.test(options.sunset);
  return {
    message: options.message,
    sunset,
    sunsetIso: dateOnly ? (options.sunset as string) : sunset.toISOString(),
    since,
  };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function parseDate(label: string, value: string | Date): Date {
  const date = typeof value === 'string' ? new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value) : value;
  const valid =
    !Number.isNaN(date.getTime()) &&
    (typeof value !== 'string' || DATE_ONLY.test(value) || /^\d{4}-\d{2}-\d{2}T/.test(value));
  if (!valid) throw new ConfigurationError(`${label}: ${String(value)} is not an ISO date (YYYY-MM-DD or a date-time)`);
  return date;
}

/**
 * The headers every response of a deprecated version carries: `X-API-Deprecation`
 * and `X-API-Sunset`, RFC 9745's `Deprecation` (a structured-field date, `@` and Unix
 * seconds), RFC 8594's `Sunset` (an HTTP-date), and, when it has docs, `Link`s to the
 * version's docs with the relations both RFCs define.
 */
export function deprecationHeaders(deprecation: Deprecation, docsUrl?: string): Record<string, string> {
  return {
    'X-API-Deprecation': deprecation.message,
    'X-API-Sunset': deprecation.sunsetIso,
    Deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
    Sunset: deprecation.sunset.toUTCString(),
    ...(docsUrl
      ? { Link: `<${docsUrl}>; rel="deprecation"; type="text/html", <${docsUrl}>; rel="sunset"; type="text/html"` }
      : {}),
  };
}

/** Adds `extra` to a result's headers; a `Link` the result already has is kept beside ours. */
export function withHeaders(
  headers: Record<string, string | string[]> | undefined,
  extra: Record<string, string>,
): Record<string, string | string[]> {
  const merged: Record<string, string | string[]> = { ...headers };
  for (const [name, value] of Object.entries(extra)) {
    const existing = Object.keys(merged).find((key) => key.toLowerCase() === name.toLowerCase());
    if (existing && name === 'Link') merged[existing] = [...[merged[existing]].flat(), value];
    else {
      if (existing) delete merged[existing];
      merged[name] = value;
    }
  }
  return merged;
}

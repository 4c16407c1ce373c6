import type { NeutralRequest, NeutralResult } from '../http/neutral';
import { errorToResult, requestContext, type ErrorLogger } from '../http/render-error';
import type { Fallback } from '../plugin/plugin';

/**
 * The fallback that answers `path` (relative to where the routes are mounted): the one
 * with the longest prefix that equals the path or ends at one of its `/` boundaries, so
 * `/api` covers `/api/v3/x` but not `/apix`. Matching is case-sensitive, like the routes.
 */
export function fallbackFor(fallbacks: readonly Fallback[], path: string): Fallback | undefined {
  let best: Fallback | undefined;
  for (const fallback of fallbacks) {
    const prefix = fallback.prefix.endsWith('/') ? fallback.prefix.slice(0, -1) : fallback.prefix;
    const covers = path === prefix || path.startsWith(`${prefix}/`);
    if (covers && (!best || prefix.length > best.prefix.length)) best = fallback;
  }
  return best;
}

/** Serves one request with a fallback, rendering any error as the usual JSON body. */
export async function runFallback(
  fallback: Fallback,
  req: NeutralRequest,
  logger?: ErrorLogger,
): Promise<NeutralResult> {
  try {
    return await fallback.handler(req);
  } catch (error) {
    return errorToResult(error, logger, requestContext(req.headers));
  }
}

import type { NeutralRequest, NeutralResult } from './neutral';

/** Serves a request inside some per-request scope a lower-level feature needs. */
export type RouteWrapper = (req: NeutralRequest, serve: () => Promise<NeutralResult>) => Promise<NeutralResult>;

// One slot, set by a feature of a floor above this one (read replicas set it once they are
// in use), so `runRoute` stays free of that feature and every request without it pays nothing.
let wrapper: RouteWrapper | undefined;

/** Makes every request from now on run inside `wrap` (the last call wins). */
export function setRouteWrapper(wrap: RouteWrapper): void {
  wrapper = wrap;
}

/** The wrapper requests run in, if one was set. */
export function routeWrapper(): RouteWrapper | undefined {
  return wrapper;
}

// @crudsmith/core/server: running a Node server. Liveness and readiness routes, graceful
// shutdown, load shedding and one structured log line per request; an app wires them once,
// in its server file, and no route needs them.

/** Liveness and readiness routes for probes and load balancers. */
export { healthRoutes, knexCheck } from './server/health';
export type { HealthCheck, HealthOptions, CheckState } from './server/health';

/** Graceful shutdown, and the state a draining server answers from. */
export { gracefulShutdown } from './server/graceful-shutdown';
export type { GracefulShutdown, GracefulShutdownOptions, Closer } from './server/graceful-shutdown';
export { ShutdownState } from './server/shutdown-state';

/** Shedding load: 503 with Retry-After while the event loop or the heap is past its bound. */
export { loadShedding, LoadMonitor, OverloadedError } from './server/load-shedding';
export type { LoadShedding, LoadSheddingOptions } from './server/load-shedding';

/** One structured log line per request, keyed by its request id. */
export { requestLog, REQUEST_ID_HEADER } from './server/request-log';
export type { RequestLog, RequestLogOptions } from './server/request-log';
export { requestIdFrom, MAX_REQUEST_ID_LENGTH } from './server/request-id';
export type { StructuredLogger } from './server/structured-logger';

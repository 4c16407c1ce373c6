// @crudsmith/koa: serves crudsmith route descriptors from the user's Koa app or router.

/** Mounting route descriptors on Koa, and its options. */
export { mountRoutes } from './mount-routes';
export type { KoaAdapterOptions } from './mount-routes';

/** koa-session as the carrier of a SessionManager's cookie. */
export { koaSessionOptions } from './koa-session';
export type { KoaSessionOptions } from './koa-session';

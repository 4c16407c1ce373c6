// @crudsmith/express: serves crudsmith route descriptors from the user's Express app or router.

/** Mounting route descriptors on Express, and its options. */
export { mountRoutes } from './mount-routes';
export type { ExpressAdapterOptions } from './mount-routes';

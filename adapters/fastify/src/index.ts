// @crudsmith/fastify: serves crudsmith route descriptors from the user's Fastify instance.

/** Mounting route descriptors on Fastify, and its options. */
export { mountRoutes } from './mount-routes';
export type { FastifyAdapterOptions } from './mount-routes';

/** The app-level handler for errors Fastify answers before any plugin runs (`Fastify({ frameworkErrors })`). */
export { frameworkErrors } from './framework-errors';

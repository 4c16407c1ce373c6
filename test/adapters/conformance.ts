// The one suite every HTTP adapter passes: the same requests must give
// the same responses on Koa, Express and Fastify. Each adapter's test file supplies a
// harness that starts a real server; every case talks to it with fetch. The cases live
// by area in conformance-*.ts.
import { afterAll, beforeAll, describe } from 'vitest';
import type { ErrorLogger } from '@crudsmith/core';
import type { AdapterHarness, SuiteEnv } from './conformance-kit';
import { requestTranslation } from './conformance-requests';
import { resultTranslation } from './conformance-results';
import { routeMatching } from './conformance-matching';
import { fallback, routes } from './conformance-routes';

export { route, serverStarter } from './conformance-kit';
export type { AdapterHarness, MountedServer, MountOptions } from './conformance-kit';

/** Runs the shared adapter behaviour against `harness`. */
export function runAdapterSuite(harness: AdapterHarness): void {
  describe(`${harness.name} adapter conformance`, () => {
    const logged: unknown[] = [];
    const logger: ErrorLogger = { error: (_message, error) => void logged.push(error) };
    const env = { logged, harness } as SuiteEnv;

    beforeAll(async () => {
      env.base = await harness.mount(routes(), {
        prefix: '/api',
        logger,
        fallbacks: [fallback('/fb'), fallback('/fb/deeper')],
      });
      env.small = await harness.mount(routes(), { bodyLimit: 1000, maxBodyValues: 50, logger });
      env.proxied = await harness.mount(routes(), {
        trustedProxies: ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'],
        logger,
      });
      // Mounted as a bootstrapped app is: its fallbacks come with its routes.
      env.strict = await harness.mount(
        { routes: routes(), fallbacks: [fallback('/fb')] },
        { prefix: '/api', logger, jsonNotFound: true },
      );
    });
    afterAll(async () => {
      await Promise.all([env.base, env.small, env.proxied, env.strict].map((server) => server?.close()));
    });

    requestTranslation(env);
    resultTranslation(env);
    routeMatching(env);
  });
}

import { join, resolve } from 'node:path';

/** Every setting the example reads, with its default (README lists the same). */
export interface Settings {
  host: string;
  port: number;
  /** postgres://… or mysql://…; the embedded SQLite file under dataDir when unset. */
  databaseUrl?: string;
  dataDir: string;
  /** `koa` (default); `express` and `fastify` once their adapters exist. */
  adapter: string;
  /** Proxy addresses whose X-Forwarded-For is believed (comma-separated); none by default. */
  trustedProxies: string[];
}

/** Reads the settings from the environment. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  return {
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? 8000),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.DATA_DIR ?? join(process.cwd(), 'data')),
    adapter: env.ADAPTER ?? 'koa',
    trustedProxies: (env.TRUSTED_PROXIES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}

import type { Server } from 'node:http';
import type { Engine } from '../lib/db';

// What the bench process and its server processes tell each other over the IPC channel.

const ALL_FRAMEWORKS = ['koa', 'express', 'fastify'] as const;
export type Framework = (typeof ALL_FRAMEWORKS)[number];

/** The HTTP frameworks measured, each through its adapter and by hand (`BENCH_HTTP_FRAMEWORKS=koa` to run fewer). */
export const FRAMEWORKS: Framework[] = ALL_FRAMEWORKS.filter((f) =>
  (process.env.BENCH_HTTP_FRAMEWORKS ?? ALL_FRAMEWORKS.join(',')).split(',').includes(f),
);

/**
 * crudsmith's adapter, or a hand-written floor in the same framework: `natural` as a
 * person writes it (natural.ts), `floor` sending crudsmith's own SQL (floor.ts).
 */
export type Side = 'crudsmith' | 'natural' | 'floor';

/** The crudsmith app declared as the README teaches (taught-app.ts), which the `http-taught` suite measures. */
export type Taught = 'taught';

/** A library users pick instead of crudsmith, served by an app of bench/peers (the peers suite). */
export type Peer = 'feathers' | 'nest';

/** Every side of an HTTP row, in the order they are started and loaded. */
export const SIDES: readonly Side[] = ['crudsmith', 'natural', 'floor'];

/** A listening server inside its process. */
export interface Listening {
  server: Server;
  close(): Promise<void>;
}

/** What a server process is started with (its one argument, as JSON). */
export interface ServerConfig {
  framework: Framework;
  side: Side | Peer | Taught;
  /** The natural floor's lists order by the price alone (see natural.ts). */
  plainSort?: boolean;
  engine: Engine;
  /** The SQLite file or PostgreSQL URL (see lib/db.ts `connect`). */
  connection: string;
  /** Set by the rate-limit suite: the read route on `framework`, guarded by this limiter (see limited-apps.ts). */
  limited?: LimitedConfig;
}

/**
 * What guards the rate-limit suite's read: nothing, a crudsmith limiter, rate-limiter-flexible,
 * one Redis PING (a reference), or `floor`: the read and its limit written by hand in the
 * framework, one Redis round trip per request (limited-floor.ts).
 */
export type Guard = 'none' | 'memory' | 'redis' | 'flexible' | 'ping' | 'floor';

/** A rate-limit suite server: its guard, and the Redis it counts in (keys under `redisPrefix`). */
export interface LimitedConfig {
  guard: Guard;
  redisUrl: string;
  redisPrefix: string;
}

/**
 * Parent → server: start or stop recording the SQL the server sends; answer once no
 * request is in flight (so the next server's load never overlaps this one's last writes);
 * tell the CPU time the process has used; tell its memory peaks since the last reset
 * (`reset`: collect garbage first, when the process runs with --expose-gc, and start over).
 */
export type Command =
  { type: 'trace'; on: boolean } | { type: 'idle' } | { type: 'cpu' } | { type: 'memory'; reset: boolean };

/**
 * Server → parent: its port once it listens, the statements recorded by a trace (and the
 * Redis commands sent meanwhile), idle, its CPU time so far (µs), its memory peaks.
 */
export type Report =
  | { type: 'listening'; port: number }
  | { type: 'traced'; sql: string[]; redis: number }
  | { type: 'idle' }
  | { type: 'cpu'; micros: number }
  | { type: 'memory'; peaks: MemoryPeaks };

/** A server's resident set and V8 heap in use (bytes): at a reset, and the highest since. */
export interface MemoryPeaks {
  rss: number;
  heap: number;
  baseRss: number;
  baseHeap: number;
}

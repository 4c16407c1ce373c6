import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/configuration-error';
import { BadRequestError, IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../errors/http-error';
import type { NeutralRequest, NeutralResult } from '../http/neutral';
import { principalOf } from '../http/principal';
import { KnexIdempotencyStore, type IdempotencyStore } from '../data/idempotency-store';
import { RedisIdempotencyStore, type IdempotencyRedis } from '../data/redis-idempotency-store';

// `Idempotency-Key` on a create. The first request with a key claims it (the insert of
// the key's row, or Redis's SET NX, which a second claim of the same key cannot pass),
// runs, and stores its answer; a repeat with the same body (and route and Prefer) gets that
// answer again and writes nothing, one with another is a 422, and one while the first
// still runs is a 409. A first request that
// fails wrote nothing: its key is released, and a retry runs afresh.
//
// Keys in a table of the router's own database are written through its session: when that
// is a transaction, the claim and the stored answer commit or roll back with the write, so
// a create rolled back leaves its key free and a repeat never replays it. Keys kept apart
// (Redis, or `knex` another database) are written at once, whatever the session.

/** Options of idempotent creates. */
export interface IdempotencyOptions {
  /** How long a key is remembered, in seconds (default 86400: 24 hours). */
  ttlSeconds?: number;
  /** The key table (default `crudsmith_idempotency_keys`); `idempotencyMigrations(table)` creates it. */
  table?: string;
  /**
   * The database of the key table (default the router's session). The keys are then
   * written apart from a session's transaction: an answer stored before it commits.
   */
  knex?: Knex;
  /**
   * Keeps the keys in Redis instead of a table: an ioredis `Redis` or `Cluster` client
   * (one without an offline queue fails fast while Redis is down: a 503). They are then
   * written apart from a session's transaction: an answer stored before it commits.
   */
  redis?: IdempotencyRedis;
  /** Prefix of the Redis keys (default `cs:idempotency:`). */
  redisPrefix?: string;
}

/** The resolved settings of one router's idempotent creates. */
export interface Idempotency {
  store: IdempotencyStore;
  ttlMs: number;
  knex?: Knex;
  /** The keys are written through the router's session, so inside its transaction when it is one. */
  inSession: boolean;
}

const DAY_SECONDS = 86_400;
// Expired keys of other clients are swept at most this often per process.
const SWEEP_EVERY_MS = 60_000;
const KEY = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;
const REPLAYED = 'idempotent-replayed';

/** Whether the option's keys are written through the router's session (a table of its database, no `knex` nor `redis`). */
export function idempotencyInSession(option: boolean | IdempotencyOptions | undefined): boolean {
  if (!option) return false;
  return option === true || (!option.redis && !option.knex);
}

/** The settings of the `idempotency` option; undefined when creates are not idempotent. */
export function idempotencyOf(option: boolean | IdempotencyOptions | undefined): Idempotency | undefined {
  if (!option) return undefined;
  const options = option === true ? {} : option;
  const ttl = options.ttlSeconds ?? DAY_SECONDS;
  if (!Number.isSafeInteger(ttl) || ttl < 1)
    throw new ConfigurationError(`idempotency.ttlSeconds must be a positive integer, got ${ttl}`);
  if (options.redis && (options.table || options.knex))
    throw new ConfigurationError('idempotency: give either redis or a table (table, knex), not both');
  const store = options.redis
    ? new RedisIdempotencyStore(options.redis, options.redisPrefix)
    : new KnexIdempotencyStore(options.table);
  return { store, ttlMs: ttl * 1000, knex: options.knex, inSession: idempotencyInSession(option) };
}

let lastSweep = 0;

/** Runs `perform` once per idempotency key (when the request carries one), else as is. */
export async function idempotent(
  settings: Idempotency,
  req: NeutralRequest,
  session: Knex,
  perform: () => Promise<NeutralResult>,
): Promise<NeutralResult> {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return perform();
  if (!KEY.test(key)) throw new BadRequestError('Idempotency-Key must be 1 to 255 visible ASCII characters');
  const db = settings.knex ?? session;
  const { store } = settings;
  const inTransaction = settings.inSession && session.isTransaction === true;
  const principal = await principalOf(req);
  const scope = sha256(JSON.stringify([principal ? String(principal.id) : null, req.method, req.path, key]));
  // The answer depends on the route and on Prefer (return=minimal answers no body) as well
  // as on the body: a repeat that differs in any of them is another request.
  const prefer = (req.headers['prefer'] ?? '').toLowerCase().replace(/\s+/g, '');
  const fingerprint = sha256(canonical([req.method, req.path, prefer, req.body ?? null]));
  const now = Date.now();
  const claim = { scope, fingerprint, now, ttlMs: settings.ttlMs };
  // Not inside a caller's transaction: its deletes would hold their locks (on MariaDB, the
  // gaps new keys go in) until it ends. An expired key is still claimed afresh below.
  if (!inTransaction && now - lastSweep > SWEEP_EVERY_MS) {
    lastSweep = now;
    await store.sweep(db, now);
  }
  let claimed = await store.claim(db, claim);
  if (!claimed) {
    const record = await store.find(db, scope);
    // Expired (or released meanwhile): claimed afresh, once.
    if (!record || record.expiresAt <= now) {
      if (record) await store.release(db, scope, now);
      claimed = await store.claim(db, claim);
      if (!claimed) throw new IdempotencyKeyInUseError();
    } else {
      if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
      if (record.status === null || record.response === null) throw new IdempotencyKeyInUseError();
      const stored = JSON.parse(record.response) as Pick<NeutralResult, 'json' | 'headers'>;
      return { ...stored, status: record.status, headers: { ...stored.headers, [REPLAYED]: 'true' } };
    }
  }
  let result: NeutralResult;
  try {
    result = await perform();
  } catch (error) {
    // Inside the caller's transaction the failed write may have aborted it (PostgreSQL):
    // the release then fails, but the rollback it is bound for removes the claim too.
    if (inTransaction) await store.release(db, scope).catch(() => undefined);
    else await store.release(db, scope);
    throw error;
  }
  const stored = { ...('json' in result ? { json: result.json } : {}), headers: result.headers };
  await store.finish(db, scope, result.status, JSON.stringify(stored));
  return result;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with every object's keys sorted: one text for bodies that differ only in key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

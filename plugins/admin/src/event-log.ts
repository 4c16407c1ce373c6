import type { Knex } from 'knex';
import { ValidationError, type Migration, type NeutralRequest } from '@crudsmith/core';
import { activityOf, type Activity } from './activity';
import type { AdminPrincipal } from './admin-auth';

/** What the event log records. */
export const EVENT_TYPES = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'create',
  'update',
  'delete',
  'view',
  'unlock',
  'sign_out_everywhere',
  'restore',
  'purge',
  'export',
  'import',
  'role_change',
  'api_key_created',
  'api_key_revoked',
  'api_key_first_used',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One event to record. */
export interface EventEntry {
  type: EventType;
  model?: string;
  recordId?: string | number;
  details?: unknown;
}

/** One recorded event as the events page shows it. */
export interface AdminEvent {
  id: number;
  type: EventType;
  /** How many times it happened: repeated refused sign-ins collapse into one event an hour. */
  repeats: number;
  username: string | null;
  model: string | null;
  recordId: string | null;
  details: unknown;
  ipAddress: string | null;
  userAgent: string | null;
  at: Date;
}

/** The event table (created whether or not the log is on, so turning it on needs no migration). */
export function adminEventsMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.increments('id');
        t.string('event_type', 32).notNullable();
        t.integer('admin_user_id').nullable();
        t.string('username', 100).nullable().index();
        t.string('model', 64).nullable();
        t.string('record_id', 64).nullable();
        t.text('details').nullable();
        t.string('ip_address', 64).nullable();
        t.string('user_agent', 255).nullable();
        t.bigInteger('created_at').notNullable().index();
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/** The `repeats` column: how many times a collapsed event happened. */
export function adminEventRepeatsMigration(table: string): Migration {
  return {
    async up(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.integer('repeats').notNullable().defaultTo(1);
      });
    },
    async down(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.dropColumn('repeats');
      });
    },
  };
}

/** How long repeated refused sign-ins collapse into one event. */
const COLLAPSE_MS = 3_600_000;

// Keys whose values never reach the log, whatever the model calls them.
const SECRET = /pass(word)?|secret|token|hash|otp|mfa/i;

/** A copy of a record without its secrets (and the given password fields), dates as ISO text. */
export function scrub(
  record: Record<string, unknown>,
  hidden: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (hidden.has(key) || SECRET.test(key)) continue;
    out[key] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

/** The fields whose values differ, each as `{ before, after }`, without secrets. */
export function diff(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  hidden: ReadonlySet<string> = new Set(),
): Record<string, { before: unknown; after: unknown }> {
  const a = scrub(before, hidden);
  const b = scrub(after, hidden);
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key]))
      changes[key] = { before: a[key] ?? null, after: b[key] ?? null };
  }
  return changes;
}

/** A model whose events are shown, and the subquery of the keys of its rows that are. */
export interface EventModel {
  name: string;
  keys?: Knex.QueryBuilder;
}

/** The events page's filters, checked. */
export interface EventFilter {
  type?: EventType;
  username?: string;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  /**
   * Only events of these models, of the rows whose keys `keys` selects when given (an
   * admin user with roles sees the rows it may read); all events when absent.
   */
  models?: readonly EventModel[];
  page: number;
}

const DAY_MS = 86_400_000;
const LOCKED = JSON.stringify({ locked: true });
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function one(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[value.length - 1] : value) ?? '';
}

/** Reads `type`, `username`, `from` and `to` (YYYY-MM-DD, UTC, both days included) and `page`; a bad one is a 422. */
export function parseEventFilter(query: NeutralRequest['query']): EventFilter {
  const filter: EventFilter = { page: 1 };
  const type = one(query.type);
  if (type) {
    if (!(EVENT_TYPES as readonly string[]).includes(type))
      throw ValidationError.of(['query', 'type'], `One of ${EVENT_TYPES.join(', ')}`, 'enum');
    filter.type = type as EventType;
  }
  const username = one(query.username).trim();
  if (username.length > 100)
    throw ValidationError.of(['query', 'username'], 'At most 100 characters', 'string_too_long');
  // PostgreSQL refuses NUL in text outright; no stored name holds a control character.
  if (CONTROL.test(username))
    throw ValidationError.of(['query', 'username'], 'No control characters', 'string_pattern_mismatch');
  if (username) filter.username = username.toLowerCase();
  for (const key of ['from', 'to'] as const) {
    const text = one(query[key]);
    if (!text) continue;
    const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : NaN;
    if (!Number.isFinite(day)) throw ValidationError.of(['query', key], 'A date as YYYY-MM-DD', 'date_parsing');
    filter[key] = key === 'to' ? day + DAY_MS : day;
  }
  const page = one(query.page);
  if (page) {
    if (!/^\d{1,6}$/.test(page) || Number(page) < 1)
      throw ValidationError.of(['query', 'page'], 'A positive integer', 'int_parsing');
    filter.page = Number(page);
  }
  return filter;
}

/** Events per page of the events page. */
export const EVENTS_PER_PAGE = 25;

/** The admin's event log in the database: who did what, when, from where. */
export class EventLog {
  constructor(
    private readonly knex: Knex,
    private readonly table: string,
    readonly enabled: boolean,
    /** How long refused sign-ins are kept. */
    private readonly signInFailureRetentionMs = 30 * DAY_MS,
  ) {}

  /**
   * The same log writing through `db`: a transaction's, so an event commits or rolls back
   * with the write it records (and on SQLite waits for no second connection).
   */
  on(db: Knex): EventLog {
    return new EventLog(db, this.table, this.enabled, this.signInFailureRetentionMs);
  }

  /** Records events (one per entry) for the request's admin, address and browser; nothing when the log is off. */
  record(req: NeutralRequest, who: AdminPrincipal | { username: string } | null, entries: EventEntry[]): Promise<void> {
    return this.recordFrom({ ipAddress: req.clientAddress, userAgent: req.headers['user-agent'] }, who, entries);
  }

  /** Records events that happened outside an admin request (an API key used or made through the API). */
  async recordFrom(
    origin: { ipAddress: string; userAgent?: string },
    who: AdminPrincipal | { username: string } | null,
    entries: EventEntry[],
  ): Promise<void> {
    if (!this.enabled || entries.length === 0) return;
    const user = who && 'user' in who ? who.user : null;
    const username = user ? user.username : who && 'username' in who ? who.username.slice(0, 100) : null;
    const now = Date.now();
    const rows = entries.map((entry) => ({
      event_type: entry.type,
      admin_user_id: user?.id ?? null,
      username,
      model: entry.model ?? null,
      record_id: entry.recordId === undefined ? null : String(entry.recordId).slice(0, 64),
      details: entry.details === undefined ? null : JSON.stringify(entry.details),
      ip_address: origin.ipAddress.slice(0, 64),
      user_agent: origin.userAgent?.slice(0, 255) ?? null,
      created_at: now,
    }));
    // Bounded batches: a bulk delete of many rows must not build one enormous statement.
    for (let i = 0; i < rows.length; i += 200) await this.knex(this.table).insert(rows.slice(i, i + 200));
  }

  /**
   * Records a refused sign-in. Anyone can send them, for any name, so their rows are kept
   * bounded: repeats are counted (`repeats`) in the latest matching event of the last hour
   * instead of each adding a row (a locked name's refusals per name, they cost no password
   * check; wrong passwords per name and address), and refused sign-ins older than the
   * retention are deleted as new ones come.
   */
  async recordSignInFailed(req: NeutralRequest, username: string, locked: boolean): Promise<void> {
    if (!this.enabled) return;
    const name = username.slice(0, 100);
    const now = Date.now();
    const same = this.knex(this.table)
      .where({ event_type: 'sign_in_failed', username: name })
      .where('created_at', '>=', now - COLLAPSE_MS);
    if (locked) same.where({ details: LOCKED });
    else same.whereNull('details').where({ ip_address: req.clientAddress.slice(0, 64) });
    const latest = await same.orderBy('id', 'desc').first('id');
    if (latest && Number(await this.knex(this.table).where({ id: latest.id }).increment('repeats', 1)) === 1) return;
    await this.record(req, { username: name }, [
      { type: 'sign_in_failed', details: locked ? { locked: true } : undefined },
    ]);
    await this.knex(this.table)
      .where({ event_type: 'sign_in_failed' })
      .where('created_at', '<', now - this.signInFailureRetentionMs)
      .delete();
  }

  /** Creates, updates and deletes per model and day over the last 30 days (the dashboard's charts), one query. */
  activity(models: readonly string[], now = Date.now()): Promise<Map<string, Activity>> {
    return activityOf(this.knex, this.table, models, now);
  }

  /** One event by id, or null. */
  async get(id: number): Promise<AdminEvent | null> {
    const row = await this.knex(this.table).where({ id }).first();
    return row ? toEvent(row) : null;
  }

  /** A page of events, newest first, and how many match. */
  async list(filter: EventFilter): Promise<{ events: AdminEvent[]; total: number }> {
    const where = (q: Knex.QueryBuilder) => {
      if (filter.type) q.where('event_type', filter.type);
      if (filter.username) q.where('username', filter.username);
      if (filter.from !== undefined) q.where('created_at', '>=', filter.from);
      if (filter.to !== undefined) q.where('created_at', '<', filter.to);
      const { models } = filter;
      if (models && models.length === 0) q.whereRaw('1 = 0');
      else if (models)
        q.where((any) => {
          for (const model of models)
            any.orWhere((one) => {
              one.where('model', model.name);
              if (model.keys) one.whereIn('record_id', model.keys.clone());
            });
        });
      return q;
    };
    const rows = await where(this.knex(this.table).select('*'))
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(EVENTS_PER_PAGE)
      .offset((filter.page - 1) * EVENTS_PER_PAGE);
    const counted = await where(this.knex(this.table).count({ n: '*' })).first();
    return {
      total: Number(counted?.n ?? 0),
      events: rows.map(toEvent),
    };
  }
}

function toEvent(r: Record<string, unknown>): AdminEvent {
  return {
    id: Number(r.id),
    type: r.event_type as EventType,
    repeats: Number(r.repeats ?? 1),
    username: (r.username as string | null) ?? null,
    model: (r.model as string | null) ?? null,
    recordId: (r.record_id as string | null) ?? null,
    details: typeof r.details === 'string' ? JSON.parse(r.details) : null,
    ipAddress: (r.ip_address as string | null) ?? null,
    userAgent: (r.user_agent as string | null) ?? null,
    at: new Date(Number(r.created_at)),
  };
}

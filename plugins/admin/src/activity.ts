import type { Knex } from 'knex';

/** Days the dashboard's charts cover, today (UTC) the last. */
export const ACTIVITY_DAYS = 30;

/** The writes a chart counts. */
export const ACTIVITY_TYPES = ['create', 'update', 'delete'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** One model's writes per day, oldest day first: `days[i]` counts each type on that day. */
export interface Activity {
  /** The first day's midnight, UTC, epoch ms. */
  start: number;
  days: Record<ActivityType, number>[];
}

const DAY_MS = 86_400_000;

/**
 * Creates, updates and deletes per model and day over the last 30 days, from the event log,
 * in one grouped query (at most models × 3 × 30 rows, on the indexed `created_at`). A day
 * is a UTC day: `created_at` less its remainder, which every engine computes on a bigint.
 */
export async function activityOf(
  knex: Knex,
  table: string,
  models: readonly string[],
  now: number,
): Promise<Map<string, Activity>> {
  const start = now - (now % DAY_MS) - (ACTIVITY_DAYS - 1) * DAY_MS;
  const activity = new Map<string, Activity>(
    models.map((model) => [
      model,
      { start, days: Array.from({ length: ACTIVITY_DAYS }, () => ({ create: 0, update: 0, delete: 0 })) },
    ]),
  );
  if (models.length === 0) return activity;
  // A constant, written out: PostgreSQL matches the grouped expression with the selected one
  // by its text, and two bound parameters would differ.
  const day = `created_at - (created_at % ${DAY_MS})`;
  const rows = (await knex(table)
    .where('created_at', '>=', start)
    .whereIn('event_type', ACTIVITY_TYPES)
    .whereIn('model', models)
    .groupBy('model', 'event_type')
    .groupByRaw(day)
    .select('model', 'event_type', knex.raw(`${day} as day`), knex.raw('count(*) as n'))) as {
    model: string;
    event_type: ActivityType;
    day: number | string;
    n: number | string;
  }[];
  for (const row of rows) {
    const index = Math.round((Number(row.day) - start) / DAY_MS);
    const days = activity.get(row.model)?.days;
    if (days && index >= 0 && index < ACTIVITY_DAYS) days[index][row.event_type] += Number(row.n);
  }
  return activity;
}

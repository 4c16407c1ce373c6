import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';

// PostgreSQL's own CPU per request: the run time of the backends serving one bench server,
// found by the application_name that server connects with, read from /proc (schedstat's
// nanoseconds, so a short round still resolves a few microseconds). Only when PostgreSQL
// runs on this machine; otherwise the column stays empty.

/** The run time of a process so far (µs), or undefined once it is gone or unreadable. */
function runTime(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return undefined;
  }
}

/**
 * A reader of the CPU the backends of `applicationName` have used: each call answers a
 * running total (µs). A backend that appeared since the last call counts whole; one that
 * ended counts up to the last call (its pool reaps idle connections after 30 s, longer
 * than a round). Undefined when /proc shows none of the backends (PostgreSQL elsewhere).
 */
export async function backendCpu(knex: Knex, applicationName: string): Promise<(() => Promise<number>) | undefined> {
  const seen = new Map<number, number>();
  let total = 0;
  const read = async () => {
    const pids = (
      (await knex.raw('select pid from pg_stat_activity where application_name = ?', [applicationName])) as {
        rows: { pid: number }[];
      }
    ).rows.map((row) => row.pid);
    for (const pid of pids) {
      const now = runTime(pid);
      if (now === undefined) continue;
      total += now - (seen.get(pid) ?? 0);
      seen.set(pid, now);
    }
    return total;
  };
  await read();
  return seen.size > 0 ? read : undefined;
}

/** A PostgreSQL URL that names its connections `applicationName` (pg_stat_activity shows it). */
export function withApplicationName(url: string, applicationName: string): string {
  const named = new URL(url);
  named.searchParams.set('application_name', applicationName);
  return named.toString();
}

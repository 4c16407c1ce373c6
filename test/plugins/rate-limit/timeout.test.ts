import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, withTimeout } from '../../../plugins/rate-limit/src/stores/store';

// withTimeout bounds every store command with one shared timer; these cases hold it to
// what a timer per command would do.

const never = () => new Promise<never>(() => {});
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** How long the promise took to settle, and how. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await promise;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe('withTimeout(work, ms, what)', () => {
  it('answers the work when it settles in time', async () => {
    expect(await withTimeout(after(10, 'answer'), 500, 'Redis')).toBe('answer');
  });

  it('passes the work’s own failure through', async () => {
    const failure = new Error('WRONGTYPE');
    await expect(withTimeout(Promise.reject(failure), 500, 'Redis')).rejects.toBe(failure);
  });

  it('rejects with StoreUnavailableError, naming the store, once the time is up', async () => {
    const { ms, error } = await timed(withTimeout(never(), 80, 'Redis'));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe('Redis did not answer within 80 ms');
    expect(ms).toBeGreaterThanOrEqual(75);
    expect(ms).toBeLessThan(400);
  });

  it('times a short command out on time though a longer one was watched first', async () => {
    const long = timed(withTimeout(never(), 600, 'Redis'));
    const short = await timed(withTimeout(never(), 60, 'Redis'));
    expect(short.error).toBeInstanceOf(StoreUnavailableError);
    expect(short.ms).toBeLessThan(400);
    const { ms, error } = await long;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(ms).toBeGreaterThanOrEqual(590);
  });

  it('keeps watching the commands still in flight after others timed out or answered', async () => {
    const outcomes = await Promise.all([
      timed(withTimeout(never(), 50, 'Redis')),
      timed(withTimeout(after(120, 'late but in time'), 300, 'Redis')),
      timed(withTimeout(never(), 200, 'Redis')),
      timed(withTimeout(after(5, 'quick'), 50, 'Redis')),
    ]);
    expect(outcomes.map((o) => o.value ?? (o.error as Error).name)).toEqual([
      'StoreUnavailableError',
      'late but in time',
      'StoreUnavailableError',
      'quick',
    ]);
    expect(outcomes[2].ms).toBeGreaterThanOrEqual(195);
  });

  it('answers each of many concurrent commands on its own', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => withTimeout(after(i % 20, i), 1000, 'Redis')),
    );
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError, withTimeout } from '../../../plugins/rate-limit/src/stores/store';

// withTimeout bounds every store command with one shared timer; these cases hold it to
// what a timer per command would do. The clock is a fake one, moved by hand: each case
// says exactly when a command may time out, however busy the machine is. A command times
// out in the check phase after its deadline (an answer read in that turn still wins), so
// "by its time" is within the next fake millisecond.

const never = () => new Promise<never>(() => {});
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** How the promise settled so far: pending, with its value, or with its error. */
function watch<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const outcome: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(outcome, { settled: true, value }),
    (error: unknown) => Object.assign(outcome, { settled: true, error }),
  );
  return outcome;
}

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('withTimeout(work, ms, what)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers the work when it settles in time', async () => {
    const outcome = watch(withTimeout(after(10, 'answer'), 500, 'Redis'));
    await advance(10);
    expect(outcome).toEqual({ settled: true, value: 'answer' });
  });

  it('passes the work’s own failure through', async () => {
    const failure = new Error('WRONGTYPE');
    await expect(withTimeout(Promise.reject(failure), 500, 'Redis')).rejects.toBe(failure);
  });

  it('rejects with StoreUnavailableError, naming the store, not a millisecond before its time and by the next turn of the loop', async () => {
    const outcome = watch(withTimeout(never(), 80, 'Redis'));
    await advance(79);
    expect(outcome.settled).toBe(false);
    await advance(2);
    expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
    expect((outcome.error as Error).message).toBe('Redis did not answer within 80 ms');
  });

  it('times a short command out at its own time though a longer one was watched first, and the longer at its own', async () => {
    const long = watch(withTimeout(never(), 600, 'Redis'));
    const short = watch(withTimeout(never(), 60, 'Redis'));
    await advance(59);
    expect(short.settled).toBe(false);
    await advance(2);
    expect(short.error).toBeInstanceOf(StoreUnavailableError);
    expect(long.settled).toBe(false);
    await advance(538);
    expect(long.settled).toBe(false);
    await advance(2);
    expect(long.error).toBeInstanceOf(StoreUnavailableError);
  });

  it('keeps watching the commands still in flight after others timed out or answered', async () => {
    const outcomes = [
      watch(withTimeout(never(), 50, 'Redis')),
      watch(withTimeout(after(120, 'late but in time'), 300, 'Redis')),
      watch(withTimeout(never(), 200, 'Redis')),
      watch(withTimeout(after(5, 'quick'), 50, 'Redis')),
    ];
    await advance(199);
    expect(outcomes[2].settled).toBe(false);
    expect(outcomes[1].value).toBe('late but in time');
    await advance(101);
    expect(outcomes.map((o) => o.value ?? (o.error as Error).name)).toEqual([
      'StoreUnavailableError',
      'late but in time',
      'StoreUnavailableError',
      'quick',
    ]);
  });

  it('answers each of many concurrent commands on its own', async () => {
    const answers = Promise.all(Array.from({ length: 200 }, (_, i) => withTimeout(after(i % 20, i), 1000, 'Redis')));
    await advance(20);
    expect(await answers).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});

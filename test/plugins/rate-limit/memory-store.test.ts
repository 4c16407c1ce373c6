import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '@crudsmith/rate-limit';

describe('MemoryStore', () => {
  let clock = 0;
  const stores: MemoryStore[] = [];
  const make = (options: ConstructorParameters<typeof MemoryStore>[0] = {}) => {
    clock = 1_000_000;
    const store = new MemoryStore({ now: () => clock, ...options });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('counts hits per key', async () => {
    const store = make();
    expect(await store.hit('a', 60)).toBe(1);
    expect(await store.hit('a', 60)).toBe(2);
    expect(await store.hit('b', 60)).toBe(1);
    expect(await store.hit('a', 60)).toBe(3);
  });

  it('expires a key period seconds after its first hit, as Redis EXPIRE does', async () => {
    const store = make();
    await store.hit('a', 60);
    clock += 59_999;
    expect(await store.hit('a', 60)).toBe(2);
    clock += 1;
    expect(await store.hit('a', 60)).toBe(1);
  });

  it('counts concurrent hits exactly once each', async () => {
    const store = make();
    const counts = await Promise.all(Array.from({ length: 200 }, () => store.hit('k', 60)));
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('sweeps expired windows', async () => {
    const store = make();
    await store.hit('old', 10);
    await store.hit('new', 100);
    clock += 10_000;
    expect(store.sweep()).toBe(1);
    expect(store.size).toBe(1);
  });

  it('never holds more than maxKeys: a full store sweeps, then drops the oldest window', async () => {
    const store = make({ maxKeys: 100 });
    for (let i = 0; i < 100; i++) await store.hit(`short${i}`, 1);
    clock += 1000;
    // All 100 have expired: the next new key sweeps them instead of evicting live ones.
    await store.hit('fresh', 60);
    expect(store.size).toBe(1);
    for (let i = 0; i < 1000; i++) await store.hit(`flood${i}`, 60);
    expect(store.size).toBe(100);
    // The oldest live windows went first; the newest survive with their counts.
    expect(await store.hit('flood999', 60)).toBe(2);
    expect(await store.hit('fresh', 60)).toBe(1);
  });

  it('sweeps on a timer that does not keep the process alive', async () => {
    const store = make({ sweepIntervalMs: 20 });
    await store.hit('a', 1);
    const timer = (store as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
    clock += 1000;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(store.size).toBe(0);
  });

  it('refuses a maxKeys below 1', () => {
    expect(() => new MemoryStore({ maxKeys: 0 })).toThrow(RangeError);
  });
});

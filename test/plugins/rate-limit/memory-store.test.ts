import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '@crudsmith/rate-limit';
import { StoreFullError } from '../../../plugins/rate-limit/src/stores/store';

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

  it('never holds more than maxKeys: a full store sweeps, then drops the oldest windows under their limit', async () => {
    const store = make({ maxKeys: 100 });
    for (let i = 0; i < 100; i++) await store.hit(`short${i}`, 1, 5);
    clock += 1000;
    // All 100 have expired: the next new key sweeps them instead of evicting live ones.
    await store.hit('fresh', 60, 5);
    expect(store.size).toBe(1);
    for (let i = 0; i < 1000; i++) await store.hit(`flood${i}`, 60, 5);
    expect(store.size).toBeLessThanOrEqual(100);
    // The oldest windows under their limit went first; the newest survive with their counts.
    expect(await store.hit('flood999', 60, 5)).toBe(2);
    expect(await store.hit('fresh', 60, 5)).toBe(1);
  });

  it('never forgets a spent window before it ends, however many keys flood in', async () => {
    const store = make({ maxKeys: 1000 });
    // One client spends its budget of 3 (and goes over it), another is at exactly its limit.
    for (let i = 0; i < 5; i++) await store.hit('spent', 60, 3);
    for (let i = 0; i < 3; i++) await store.hit('exhausted', 60, 3);
    // 100 000 requests to distinct keys, as many distinct ids would make.
    for (let i = 0; i < 100_000; i++) await store.hit(`id${i}`, 60, 3);
    expect(store.size).toBeLessThanOrEqual(1000);
    expect(await store.hit('spent', 60, 3)).toBe(6);
    expect(await store.hit('exhausted', 60, 3)).toBe(4);
    // Once their window ends they go like any other.
    clock += 60_000;
    expect(await store.hit('spent', 60, 3)).toBe(1);
  });

  it('refuses new keys while it is full of live spent windows, until the earliest ends, and still counts those it holds', async () => {
    const store = make({ maxKeys: 10 });
    for (let k = 0; k < 10; k++) {
      for (let i = 0; i < 2; i++) await store.hit(`spent${k}`, 60 + k, 2);
    }
    await expect(store.hit('newcomer', 60, 2)).rejects.toThrow(StoreFullError);
    await expect(store.hit('newcomer', 60, 2)).rejects.toMatchObject({ retryAfterSeconds: 60 });
    clock += 30_500;
    await expect(store.hit('newcomer', 60, 2)).rejects.toMatchObject({ retryAfterSeconds: 30 });
    expect(await store.hit('spent3', 63, 2)).toBe(3);
    expect(store.size).toBe(10);
    // The earliest window (spent0, 60 s) ends: room again, and the others are all still there.
    clock += 29_500;
    expect(await store.hit('newcomer', 60, 2)).toBe(1);
    for (let k = 1; k < 10; k++) expect(await store.hit(`spent${k}`, 60 + k, 2)).toBeGreaterThan(2);
  });

  it('keeps a window whose limit it was not told until it ends', async () => {
    const store = make({ maxKeys: 2 });
    await store.hit('a', 60);
    await store.hit('b', 60);
    await expect(store.hit('c', 60)).rejects.toThrow(StoreFullError);
    expect(await store.hit('a', 60)).toBe(2);
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

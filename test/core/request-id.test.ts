import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_ID_LENGTH, requestIdFrom } from '@crudsmith/core/server';
import { growth } from '../fixtures/growth';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFrom', () => {
  it('keeps a client id of safe characters up to the length bound', () => {
    for (const id of [
      'abc',
      '0b7c6a1e-2f43-4d1b-9a55-0c1d2e3f4a5b',
      '01HF8Z:trace/span+x=@y_z.1',
      'x'.repeat(MAX_REQUEST_ID_LENGTH),
    ]) {
      expect(requestIdFrom(id)).toBe(id);
    }
  });

  it('replaces a missing, repeated, empty, too long or unsafe id with a fresh UUID', () => {
    for (const header of [
      undefined,
      ['a', 'b'],
      '',
      'x'.repeat(MAX_REQUEST_ID_LENGTH + 1),
      'a b',
      'a\nb',
      'a"b',
      'é',
      '<script>',
    ]) {
      expect(requestIdFrom(header)).toMatch(UUID);
    }
    expect(requestIdFrom(undefined)).not.toBe(requestIdFrom(undefined));
  });

  it('decides on a megabyte of input at far less than quadratic cost against a 64th of it', async () => {
    expect(requestIdFrom('a'.repeat(1_000_000) + '!')).toMatch(UUID);
    // Linear work grows about 64 times, quadratic about 4096.
    const cost = await growth((size) => 'a'.repeat(size) + '!', requestIdFrom, { small: 15_625, large: 1_000_000 });
    expect(cost).toBeLessThan(1024);
  });
});

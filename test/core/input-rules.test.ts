// The input rules every route shares, below HTTP: text no engine stores, LIKE patterns,
// datetimes and dates. Each runs on client input, so each is also timed on long input.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@crudsmith/core';
import { coerceValue } from '../../core/src/data/coerce';
import { checkLikePattern } from '../../core/src/data/like';
import type { ColumnInfo } from '../../core/src/model/model-info';
import { textProblem } from '../../core/src/text';
import { checkJsonDepth } from '../../core/src/adapter-kit/wire/read-body';
import { growth } from '../fixtures/growth';

const column = (kind: ColumnInfo['kind']): ColumnInfo => ({ name: 'c', kind }) as ColumnInfo;

function issueOf(run: () => unknown): { loc: unknown; type: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).detail[0] as { loc: unknown; type: string };
  }
  throw new Error('expected a 422');
}

describe('text no engine stores', () => {
  it('finds NUL and lone surrogates, and passes whole pairs', () => {
    expect(textProblem('plain')).toBeUndefined();
    expect(textProblem('a \u{1F600} b')).toBeUndefined();
    expect(textProblem('a\u0000')?.type).toBe('string_nul');
    expect(textProblem('\ud800')?.type).toBe('string_unicode');
    expect(textProblem('\udc00\ud800')?.type).toBe('string_unicode');
    expect(textProblem('x\ud83d')?.type).toBe('string_unicode');
  });

  it("is refused in string and JSON columns, with the value's location", () => {
    expect(issueOf(() => coerceValue('a\u0000', column('string'), ['query', 'name']))).toMatchObject({
      loc: ['query', 'name'],
      type: 'string_nul',
    });
    expect(issueOf(() => coerceValue('\ud800', column('json'), ['body', 'meta'])).type).toBe('string_unicode');
  });

  it('is refused anywhere in a JSON body, keys included, naming the path', () => {
    expect(issueOf(() => checkJsonDepth({ a: [{ b: 'ok' }, { c: 'x\u0000' }] }))).toMatchObject({
      loc: ['body', 'a', 1, 'c'],
      type: 'string_nul',
    });
    expect(issueOf(() => checkJsonDepth({ a: { 'k\ud800': 1 } }))).toMatchObject({
      loc: ['body', 'a'],
      type: 'string_unicode',
    });
    expect(checkJsonDepth({ a: ['\u{1F600}', 1, null] })).toEqual({ a: ['\u{1F600}', 1, null] });
  });

  it('checks a megabyte of text, and costs far less than quadratic time for 64 times the text', async () => {
    const long = 'a'.repeat(1 << 20);
    expect(textProblem(long)).toBeUndefined();
    expect(textProblem(`${'\ud83d\ude00'.repeat(1 << 19)}\ud800`)?.type).toBe('string_unicode');
    const make = (size: number) => ({
      plain: 'a'.repeat(size),
      emoji: `${'\ud83d\ude00'.repeat(size / 2)}\ud800`,
      keys: Math.floor(size / 17),
      object: Object.fromEntries(Array.from({ length: Math.floor(size / 17) }, (_, i) => [`k${i}`, 'v'.repeat(10)])),
    });
    const check = (input: ReturnType<typeof make>) => {
      textProblem(input.plain);
      textProblem(input.emoji);
      checkJsonDepth(input.object, input.keys);
    };
    // 64 times the text: about 200 times the cost here (large strings leave the caches),
    // quadratic work about 4096 times.
    expect(await growth(make, check, { small: 1 << 14, large: 1 << 20 })).toBeLessThan(1024);
  });
});

describe('LIKE patterns', () => {
  it('refuses a pattern ending in a lone escape, and keeps one ending in an escaped backslash', () => {
    expect(issueOf(() => checkLikePattern('abc\\', ['query', 'name__like']))).toMatchObject({
      loc: ['query', 'name__like'],
      type: 'like_pattern',
    });
    expect(issueOf(() => checkLikePattern('\\\\\\', ['q'])).type).toBe('like_pattern');
    expect(checkLikePattern('abc\\\\', ['q'])).toBe('abc\\\\');
    expect(checkLikePattern('a\\%b', ['q'])).toBe('a\\%b');
  });

  it('counts a long run of backslashes in linear time: 16 times the run costs about 16 times as much', async () => {
    expect(() => checkLikePattern('\\'.repeat(1_000_001), ['q'])).toThrow(ValidationError);
    expect(checkLikePattern('\\'.repeat(1_000_000), ['q'])).toHaveLength(1_000_000);
    // Quadratic work would grow about 256 times.
    const run = await growth(
      (size) => '\\'.repeat(size),
      (text) => checkLikePattern(text, ['q']),
      { small: 62_500, large: 1_000_000 },
    );
    expect(run).toBeLessThan(64);
  });
});

describe('datetimes and dates', () => {
  const datetime = column('datetime');

  it('refuses days and times the calendar does not have instead of rolling them over', () => {
    for (const value of [
      '2024-02-30',
      '2023-02-29',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-02-30T10:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T10:60:00Z',
      '2024-01-01T10:00:60Z',
      '2024-01-01T10:00:00+24:00',
    ]) {
      expect(issueOf(() => coerceValue(value, datetime, ['v'])).type, value).toBe('datetime_parsing');
    }
    expect(issueOf(() => coerceValue('2024-02-30', column('date'), ['v'])).type).toBe('date_parsing');
    expect(coerceValue('2024-02-29', column('date'), ['v'])).toBe('2024-02-29');
    expect(issueOf(() => coerceValue('1900-02-29', column('date'), ['v'])).type).toBe('date_parsing');
    expect(coerceValue('2000-02-29T23:59:59.123+01:30', datetime, ['v'])).toEqual(new Date('2000-02-29T22:29:59.123Z'));
  });

  it('keeps stored dates and datetimes within years 1000 to 9999, whatever the offset or the Date', () => {
    for (const value of [
      '9999-12-31T23:00:00-05:00',
      '1000-01-01T00:30:00+01:00',
      '0050-01-02T03:04:05Z',
      '0999-12-31',
      '0000-01-01T00:00:00Z',
      new Date('+010000-01-01T00:00:00Z'),
      new Date('-000001-12-31T00:00:00Z'),
    ]) {
      expect(issueOf(() => coerceValue(value, datetime, ['v'])).type, String(value)).toBe('datetime_range');
    }
    for (const value of ['0050-01-02', '0999-12-31', '0000-01-01'])
      expect(issueOf(() => coerceValue(value, column('date'), ['v'])).type, value).toBe('datetime_range');
    expect(coerceValue('9999-12-31T23:59:59.999Z', datetime, ['v'])).toEqual(new Date('9999-12-31T23:59:59.999Z'));
    expect(coerceValue('1000-01-01T00:00:00Z', datetime, ['v'])).toEqual(new Date('1000-01-01T00:00:00Z'));
    expect(coerceValue('1000-01-01', column('date'), ['v'])).toBe('1000-01-01');
  });

  it('refuses a long string before any pattern runs', () => {
    const started = performance.now();
    expect(issueOf(() => coerceValue(`2024-01-01T00:00:00${'0'.repeat(1 << 20)}`, datetime, ['v'])).type).toBe(
      'datetime_parsing',
    );
    expect(performance.now() - started).toBeLessThan(200);
  });
});

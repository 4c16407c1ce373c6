import { ValidationError } from '../errors/http-error';

/** A parsed query string: a repeated key gives an array. */
export type Query = Record<string, string | string[] | undefined>;

/** The one value of a query key; a repeated key is a 422. */
export function single(query: Query, key: string): string | undefined {
  const value = query[key];
  if (Array.isArray(value)) throw ValidationError.of(['query', key], 'Expected a single value', 'value_error');
  return value;
}

/**
 * An integer query value: an optional sign and decimal digits only, within
 * the safe integer range; anything else is a 422.
 */
export function integer(query: Query, key: string): number | undefined {
  const text = single(query, key);
  if (text === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(text))
    throw ValidationError.of(['query', key], 'Input should be a valid integer', 'int_parsing');
  const n = Number(text);
  if (!Number.isSafeInteger(n))
    throw ValidationError.of(['query', key], 'Input is out of the safe integer range', 'int_range');
  return n;
}

/** Checks `min <= n <= max` for an optional number, else 422 at the key. */
export function within(n: number | undefined, key: string, bounds: { min: number; max?: number }): number | undefined {
  if (n === undefined) return n;
  if (n < bounds.min)
    throw ValidationError.of(
      ['query', key],
      `Input should be greater than or equal to ${bounds.min}`,
      'greater_than_equal',
    );
  if (bounds.max !== undefined && n > bounds.max)
    throw ValidationError.of(['query', key], `Input should be less than or equal to ${bounds.max}`, 'less_than_equal');
  return n;
}

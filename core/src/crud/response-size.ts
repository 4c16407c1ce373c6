import { ValidationError } from '../errors/http-error';

/** Largest serialised list answer a generated route gives by default: 10 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * Refuses a list page whose JSON would exceed `maxBytes` with a 422 on the parameter
 * that sets the page's length, naming how many rows would fit, before anything is
 * serialised for the wire. A page is refused, not cut short: a shorter page than asked
 * for would break the offset and page arithmetic of every client (`has_more`, the next
 * offset), while a 422 says plainly what to change and keeps every mode's meaning.
 *
 * Most pages are far below the limit: a walk of the values bounds the size from above
 * (each UTF-16 unit of a string at most 6 bytes, `\u001f`) without building any text, and
 * only a page that bound does not clear is serialised to measure it exactly.
 */
export function checkPageSize(json: unknown, rows: number, maxBytes: number, param: string): void {
  if (upperBound(json, maxBytes, 0) <= maxBytes) return;
  const bytes = Buffer.byteLength(JSON.stringify(json) ?? '');
  if (bytes <= maxBytes) return;
  const fit = Math.max(1, Math.floor((rows * maxBytes) / bytes));
  throw ValidationError.of(
    ['query', param],
    `The page would be ${bytes} bytes, more than the ${maxBytes} this endpoint answers; ask for fewer rows (${fit} fit)`,
    'response_too_large',
  );
}

// An upper bound of the JSON size of `value`, in bytes, given up on (answering Infinity)
// once it passes `cap`. Depth is bounded by what the rows hold; past 64 levels the bound
// gives up and the exact measure decides.
function upperBound(value: unknown, cap: number, depth: number): number {
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'number':
    case 'bigint':
      return 24;
    case 'boolean':
      return 5;
    case 'undefined':
      return 4;
    case 'object':
      break;
    default:
      return Infinity;
  }
  if (value === null) return 4;
  if (value instanceof Date) return 26;
  if (depth > 64) return Infinity;
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      total += upperBound(item, cap, depth + 1) + 1;
      if (total > cap) return Infinity;
    }
    return total;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return Infinity;
  for (const key of Object.keys(value)) {
    total += key.length * 6 + 3 + upperBound((value as Record<string, unknown>)[key], cap, depth + 1) + 1;
    if (total > cap) return Infinity;
  }
  return total;
}

// The list query as the server reads it: filters as `key=value` (lists comma-separated,
// dates as ISO 8601), `sort` comma-separated, and the pagination keys.

type Scalar = string | number | boolean | Date | null;

function text(value: Scalar): string {
  if (value instanceof Date) return value.toISOString();
  return value === null ? 'null' : String(value);
}

/** The query string of a list call. */
export function listQuery(query: {
  filters?: object;
  sort?: string | readonly string[];
  offset?: number;
  limit?: number;
  page?: number;
  itemsPerPage?: number;
  cursor?: string | null;
}): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query.filters ?? {}) as [string, Scalar | Scalar[] | undefined][]) {
    if (value === undefined) continue;
    params.append(key, Array.isArray(value) ? value.map(text).join(',') : text(value));
  }
  if (query.sort !== undefined) params.set('sort', typeof query.sort === 'string' ? query.sort : query.sort.join(','));
  for (const key of ['offset', 'limit', 'page', 'itemsPerPage'] as const)
    if (query[key] !== undefined) params.set(key, String(query[key]));
  if (query.cursor !== undefined) params.set('cursor', query.cursor ?? '');
  return params;
}

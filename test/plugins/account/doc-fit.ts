import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { RouteDoc } from '@crudsmith/core';

// What the account docs suites share: checking a real answer against its route's doc.

/** The JSON Schema 2020-12 validator the route docs are checked with. */
export const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

/**
 * Asserts that the answer's status is documented for the route and that its body fits that
 * response's schema; with `examples`, that a `detail` (of any status but 422) is one the
 * response's examples list.
 */
export function expectFits(
  docs: Map<string, RouteDoc>,
  route: string,
  res: { status: number; body: unknown },
  options: { examples?: boolean } = {},
): void {
  const response = docs.get(route)?.responses?.[String(res.status)];
  expect(response, `${route} ${res.status} undocumented: ${JSON.stringify(res.body)}`).toBeDefined();
  const validate = ajv.compile(response!.schema ?? {});
  expect(validate(res.body), `${route} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  if (!options.examples) return;
  const examples = response!.schema?.examples as { detail: string }[] | undefined;
  if (examples && res.status !== 422)
    expect(
      examples.map((e) => e.detail),
      route,
    ).toContain((res.body as { detail: string }).detail);
}

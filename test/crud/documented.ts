// Whether a generated route's answer matches the schema its OpenAPI entry documents for
// the status, judged as the OpenAPI fuzz judges answers (ajv, draft 2020-12).
import type { CrudRouter, RouteDescriptor } from '@crudsmith/core';
import { answerProblem } from '../fuzz/answer-check';
import type { Operation } from '../fuzz/operations';

/** What is wrong with `body` as the answer of `router`'s operation `operation` (undefined: nothing). */
export function offDocument(router: CrudRouter, operation: string, answer: { status: number; body: unknown }) {
  const route: RouteDescriptor | undefined = router.routes.find(
    (r) => (r.doc?.extensions?.['x-crudsmith-crud'] as { operation?: string } | undefined)?.operation === operation,
  );
  if (!route?.doc?.responses) return `no documented operation ${operation}`;
  const op = {
    document: 'crud',
    operationId: route.doc.operationId,
    responses: Object.fromEntries(
      Object.entries(route.doc.responses).map(([status, r]) => [status, { schema: (r as { schema?: object }).schema }]),
    ),
    root: {},
  } as unknown as Operation;
  const text = JSON.stringify(answer.body);
  return answerProblem(op, { status: answer.status, contentType: 'application/json', text, ms: 0 }, Infinity);
}

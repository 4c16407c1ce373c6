// Checks answers against an OpenAPI 3.1 document with Ajv (JSON Schema 2020-12), so a
// document that drifts from what the API really sends fails a test.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { validate } from '@readme/openapi-parser';
import { expect } from 'vitest';

/** Validates a document with a real OpenAPI validator (a copy: the parser dereferences in place). */
export async function expectValidOpenApi(doc: unknown): Promise<void> {
  const result = await validate(structuredClone(doc) as any);
  expect(result.valid ? [] : result.errors, 'OpenAPI validation errors').toEqual([]);
}

/** What a check needs of an answer. */
export interface CheckedAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A checker for one document: `check(method, '/api/v2/items/{id}', answer)` fails unless
 * the document has that operation, lists the answer's status with a JSON schema, and the
 * body validates against it. Answers the number of checks made, for a final count.
 */
export function openApiChecker(doc: Record<string, any>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The whole document as one schema resource, so `#/components/...` references resolve.
  ajv.addSchema({ ...doc, $id: 'doc' });
  const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
  let checks = 0;
  return {
    get checks() {
      return checks;
    },
    check(method: string, template: string, answer: CheckedAnswer): void {
      const operation = doc.paths?.[template]?.[method.toLowerCase()];
      expect(operation, `${method} ${template} is in the document`).toBeDefined();
      const response = operation.responses?.[String(answer.status)];
      expect(response, `${method} ${template} documents status ${answer.status}`).toBeDefined();
      expect(answer.headers.get('content-type') ?? '').toContain('application/json');
      const pointer = [
        'paths',
        template,
        method.toLowerCase(),
        'responses',
        String(answer.status),
        'content',
        'application/json',
        'schema',
      ]
        .map(escape)
        .join('/');
      const validateBody = ajv.getSchema(`doc#/${pointer}`);
      expect(validateBody, `${method} ${template} ${answer.status} has a JSON schema`).toBeDefined();
      const ok = validateBody!(answer.body);
      expect(
        ok ? [] : validateBody!.errors,
        `${method} ${template} ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`,
      ).toEqual([]);
      checks++;
    },
  };
}

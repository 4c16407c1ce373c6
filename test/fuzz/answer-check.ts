// Whether an answer keeps its operation's documented promise: a status the operation
// lists, and a body that matches the schema listed for that status.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Operation } from './operations';

/** An answer as the fuzz received it. */
export interface Received {
  status: number;
  contentType: string;
  text: string;
  ms: number;
}

// OpenAPI adds keywords JSON Schema does not know (`example`, `discriminator`...); they describe, never constrain.
// A decimal step is not exact in binary (-2528.66 / 0.01 is -252865.99999999997): like the
// server's own check, `multipleOf` is judged with a tolerance, as a client's validator should be.
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, multipleOfPrecision: 9 });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object, root: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // The document's components ride along, so `#/components/...` references resolve.
    validate = ajv.compile({ ...schema, components: root.components });
    compiled.set(schema, validate);
  }
  return validate;
}

/** What is wrong with the answer (undefined when nothing is). */
export function answerProblem(op: Operation, answer: Received, slowMs: number): string | undefined {
  if (answer.ms > slowMs) return `answered after ${Math.round(answer.ms)} ms (more than ${slowMs})`;
  if (answer.status >= 500) return `answered ${answer.status}`;
  const documented =
    op.responses[String(answer.status)] ?? op.responses[`${String(answer.status)[0]}XX`] ?? op.responses.default;
  if (!documented)
    return `answered ${answer.status}, which the operation does not document (it lists ${Object.keys(op.responses).join(', ')})`;
  if (!documented.schema) return undefined;
  // An answer in another media type the operation documents (an export's CSV or NDJSON) has no JSON to check.
  const type = answer.contentType.split(';')[0].trim();
  if (type !== 'application/json' && documented.types?.includes(type)) return undefined;
  if (!answer.contentType.includes('json'))
    return `answered ${answer.status} as ${answer.contentType || 'no content type'}, where the document promises JSON`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `answered ${answer.status} with a body that is not JSON`;
  }
  const validate = validatorOf(documented.schema, op.root);
  if (!validate(body))
    return `answered ${answer.status} with a body off its schema: ${ajv.errorsText(validate.errors)}`;
  return undefined;
}

import { ValidationError, type NeutralRequest, type ValidationIssue } from '@crudsmith/core';

/** The request body as an object of fields (JSON or form); 422 when it is anything else. */
export function bodyObject(req: NeutralRequest): Record<string, unknown> {
  const body = req.body;
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ValidationError.of(['body'], 'Input should be an object (JSON or form fields)', 'model_attributes_type');
  }
  return body as Record<string, unknown>;
}

/**
 * Reads required string fields; every missing or non-string one is a 422 issue. Form
 * bodies repeat a key as an array: that is not a string either.
 */
export function stringFields<K extends string>(
  req: NeutralRequest,
  names: readonly K[],
  optional: readonly K[] = [],
): Record<K, string> {
  const body = bodyObject(req);
  const issues: ValidationIssue[] = [];
  const result = {} as Record<K, string>;
  for (const name of names) {
    const value = body[name];
    if (value === undefined || value === null) {
      if (!optional.includes(name)) issues.push({ loc: ['body', name], msg: 'Field required', type: 'missing' });
    } else if (typeof value !== 'string') {
      issues.push({ loc: ['body', name], msg: 'Input should be a valid string', type: 'string_type' });
    } else {
      result[name] = value;
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return result;
}

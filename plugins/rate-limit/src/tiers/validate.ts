import { ValidationError, type ValidationIssue } from '@crudsmith/core';
import { sanitizePath } from '../keys';

/** The body of a new tier. */
export interface TierInput {
  name: string;
  description?: string | null;
}

/** The body of a new (or, partially, a changed) rate limit; `path` is sanitized on the way in. */
export interface RateLimitInput {
  name: string;
  path: string;
  limit: number;
  period: number;
}

const MAX_INT = 2147483647;

/** Checks a tier body; 422 listing every bad field. */
export function checkTier(body: unknown): TierInput {
  const input = objectOf(body);
  const issues: ValidationIssue[] = [];
  text(input, 'name', { issues, max: 100 });
  if (input.description !== undefined && input.description !== null && typeof input.description !== 'string') {
    issues.push({ loc: ['body', 'description'], msg: 'description must be a string or null', type: 'string_type' });
  }
  if (issues.length) throw new ValidationError(issues);
  return { name: input.name as string, description: (input.description as string | null | undefined) ?? null };
}

/** Checks a rate-limit body (every field, or only those given when `partial`); 422 listing every bad field. */
export function checkRateLimit(body: unknown, partial = false): Partial<RateLimitInput> {
  const input = objectOf(body);
  const issues: ValidationIssue[] = [];
  const out: Partial<RateLimitInput> = {};
  const given = (field: string) => !partial || input[field] !== undefined;
  if (given('name')) out.name = text(input, 'name', { issues, max: 100 });
  if (given('path')) {
    const path = text(input, 'path', { issues, max: 255 });
    if (path !== undefined) {
      out.path = sanitizePath(path);
      if (!out.path)
        issues.push({ loc: ['body', 'path'], msg: 'path must name a path, not only slashes', type: 'value_error' });
    }
  }
  if (given('limit')) out.limit = int(input, 'limit', { issues, min: 0 });
  if (given('period')) out.period = int(input, 'period', { issues, min: 1 });
  if (issues.length) throw new ValidationError(issues);
  return out;
}

function objectOf(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw ValidationError.of(['body'], 'The body must be a JSON object', 'model_type');
  return body as Record<string, unknown>;
}

function text(
  input: Record<string, unknown>,
  field: string,
  rule: { issues: ValidationIssue[]; max: number },
): string | undefined {
  const value = input[field];
  if (typeof value !== 'string' || value.trim() === '') {
    rule.issues.push({ loc: ['body', field], msg: `${field} must be a non-empty string`, type: 'string_type' });
  } else if (value.length > rule.max) {
    rule.issues.push({
      loc: ['body', field],
      msg: `${field} must be at most ${rule.max} characters`,
      type: 'string_too_long',
    });
  } else {
    return value;
  }
  return undefined;
}

// JSON integers only: "10", 1.5 or 1e400 are a client's mistake, not something to coerce.
function int(
  input: Record<string, unknown>,
  field: string,
  rule: { issues: ValidationIssue[]; min: number },
): number | undefined {
  const value = input[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > MAX_INT) {
    rule.issues.push({
      loc: ['body', field],
      msg: `${field} must be an integer from ${rule.min} to ${MAX_INT}`,
      type: 'int_type',
    });
    return undefined;
  }
  return value;
}

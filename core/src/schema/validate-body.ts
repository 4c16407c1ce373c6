import { getMetadataStorage, validate, type ValidationError as ClassValidationError } from 'class-validator';
import { ValidationError, type ValidationIssue } from '../errors/http-error';
import { MAX_REPORTED_ISSUES } from '../http/render-error';
import type { SchemaClass, SchemaLike } from './fields';
import { quickCheckOf } from './quick-check';
import { toInstance } from './to-instance';

/** Options of one body validation. */
export interface BodyValidation {
  /** Fields the schema declares that the client still may not send (auto fields). */
  forbidden?: readonly string[];
}

/**
 * Validates a JSON body against a class-validator schema and answers the plain object of
 * its declared fields. Undeclared and forbidden fields, wrong types and constraint
 * failures are one 422 listing each problem (`loc`, `msg`, `type`).
 */
export async function validateBody(
  schema: SchemaLike,
  body: unknown,
  options: BodyValidation = {},
): Promise<Record<string, unknown>> {
  if (body === undefined) throw ValidationError.of(['body'], 'Field required', 'missing');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ValidationError.of(['body'], 'Input should be a valid object', 'model_attributes_type');
  }
  const plain = body as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  const serverSet = (options.forbidden ?? []).filter((field) => field in plain);
  for (const field of serverSet)
    issues.push({ loc: ['body', field], msg: `Field '${field}' is set by the server`, type: 'extra_forbidden' });
  if (Array.isArray(schema)) {
    for (const key of Object.keys(plain)) {
      if (!schema.includes(key)) issues.push(extra(key));
    }
  } else {
    refuseManyUndeclared(schema as SchemaClass, plain, issues);
    refuseWideNested(plain);
    const instance = toInstance(schema as SchemaClass, plain);
    for (const key of Object.keys(plain)) if (!carried(instance, key)) issues.push(extra(key));
    // Most bodies are valid: the quick check says so without class-validator's promises,
    // and anything it is not sure of goes to class-validator, which words the errors.
    if (!quickCheckOf(instance.constructor)?.(instance)) {
      // A class without a decorated field (every column filled by the server) is a schema
      // of no field, not an unknown value: any key of the body is already refused above.
      const errors = await validate(instance, {
        whitelist: true,
        forbidNonWhitelisted: true,
        forbidUnknownValues: declaredOf(schema as SchemaClass).size > 0,
      });
      // A field the server fills (an auto field, one excluded from the schema) is never the
      // client's to give, so the schema cannot require it of the client either.
      const serverFilled = new Set(options.forbidden ?? []);
      issues.push(...errors.filter((e) => !serverFilled.has(e.property)).flatMap((e) => toIssues(e, ['body'])));
    }
  }
  if (issues.length > 0)
    throw new ValidationError(serverSet.length > 0 ? oneEntryPerServerField(issues, serverSet) : issues);
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(plain)) if (value !== undefined) result[key] = value;
  return result;
}

// A field the server sets is one cause: whatever else the schema says of it (undeclared,
// wrong type) is not the client's to fix, so its first entry, "set by the server", stays alone.
function oneEntryPerServerField(issues: ValidationIssue[], serverSet: string[]): ValidationIssue[] {
  const fields = new Set(serverSet);
  return issues.filter(
    (issue, index) => index < serverSet.length || issue.loc[0] !== 'body' || !fields.has(String(issue.loc[1])),
  );
}

const declaredNames = new WeakMap<SchemaClass, ReadonlySet<string>>();

// The names class-validator's whitelist accepts: those with validation metadata on the
// schema or an ancestor, asked the way validate() asks.
function declaredOf(schema: SchemaClass): ReadonlySet<string> {
  let names = declaredNames.get(schema);
  if (!names) {
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(
      schema,
      undefined as unknown as string,
      false,
      false,
      undefined,
    );
    names = new Set(metadatas.map((metadata) => metadata.propertyName));
    declaredNames.set(schema, names);
  }
  return names;
}

// class-transformer and class-validator take time that grows faster than the number of
// keys (a 60,000-key body held the thread for seconds), and an answer lists at most
// MAX_REPORTED_ISSUES errors. So when the keys the whitelist would refuse are more than
// that, the 422 is answered from them alone, before either library runs.
function refuseManyUndeclared(schema: SchemaClass, plain: Record<string, unknown>, issues: ValidationIssue[]): void {
  const keys = Object.keys(plain);
  if (keys.length <= MAX_REPORTED_ISSUES) return;
  const declared = declaredOf(schema);
  const reported = new Set(issues.map((issue) => issue.loc[1]));
  const undeclared = keys.filter((key) => !declared.has(key) && !reported.has(key));
  if (undeclared.length > MAX_REPORTED_ISSUES) throw new ValidationError([...issues, ...undeclared.map(extra)]);
}

/** Most keys an object nested in a body may hold; more is a 422 before class-transformer runs. */
export const MAX_NESTED_KEYS = 1000;

// class-transformer dedupes each object's keys with indexOf, so an object of n keys costs
// n² (40,000 keys in one nested object held the thread for a second). With every nested
// object held to MAX_NESTED_KEYS, its cost is linear in the body's size. The walk is
// bounded by the depth the body reader already enforces.
function refuseWideNested(plain: Record<string, unknown>): void {
  const pending: { value: unknown; loc: (string | number)[] }[] = Object.keys(plain).map((key) => ({
    value: plain[key],
    loc: ['body', key],
  }));
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, loc } = next;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, loc: [...loc, index] }));
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_NESTED_KEYS)
      throw ValidationError.of(loc, `Object should have at most ${MAX_NESTED_KEYS} keys`, 'too_many_keys');
    for (const key of keys) pending.push({ value: (value as Record<string, unknown>)[key], loc: [...loc, key] });
  }
}

const extra = (key: string): ValidationIssue => ({
  loc: ['body', key],
  msg: 'Extra inputs are not permitted',
  type: 'extra_forbidden',
});

// class-transformer leaves some keys off the instance, and the validator never sees what is
// not there: keys named like a method (`toString`, `constructor`: the inherited function
// stays), keys an @Exclude() drops, and `__proto__`, which it would follow as the
// prototype. The answer is built from the body, so such a key would pass unchecked.
function carried(instance: Record<string, unknown>, key: string): boolean {
  return key !== '__proto__' && key in instance && typeof instance[key] !== 'function';
}

function toIssues(error: ClassValidationError, loc: (string | number)[]): ValidationIssue[] {
  const here = [...loc, error.property];
  const own = Object.entries(error.constraints ?? {}).map(([type, msg]) => ({
    loc: here,
    msg,
    type: type === 'whitelistValidation' ? 'extra_forbidden' : type,
  }));
  return [...own, ...(error.children ?? []).flatMap((child) => toIssues(child, here))];
}

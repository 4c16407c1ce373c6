import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';

// class-validator's `validate` rebuilds the same lists on every call (the class's metadata,
// grouped by property, filtered by type, each constraint looked up in its container) and
// answers through promises, which costs a create more than its INSERT does. Most bodies are
// valid, so a schema's checks are gathered once here into a synchronous function that
// answers only "certainly valid". Anything else (a failed check, a validator answering a
// promise, a key the schema does not declare) answers false, and the caller asks
// class-validator itself, which finds the errors and writes their messages: the quick
// check never decides what a 422 says, only that no 422 is due.
//
// It mirrors ValidationExecutor as of class-validator 0.15 for `validate(instance, {
// whitelist: true, forbidNonWhitelisted: true })`, no groups: a property whose conditions
// (@IsOptional, @ValidateIf) do not all hold is skipped, otherwise its IS_DEFINED and custom
// constraints (every built-in decorator is one) must all hold, on each item for `each`.
// Schemas it cannot mirror exactly get no quick check: nested or promise validation,
// groups or `always`, asynchronous constraints, or no metadata at all (an unknown value).

/** True when class-validator would find nothing wrong with the instance; false means "ask it". */
export type QuickCheck = (instance: object) => boolean;

interface Constraint {
  validate(value: unknown, args: ValidationArguments): unknown;
}

interface Check {
  constraints: unknown[];
  each: boolean;
  validateIf?: (object: object, value: unknown) => boolean;
  validators: Constraint[];
}

interface PropertyChecks {
  name: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  checks: Check[];
}

const compiled = new WeakMap<Function, QuickCheck | null>();

/** The quick check of a class-validator schema class, or null when it has none (see above). */
export function quickCheckOf(schema: Function): QuickCheck | null {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

function compile(schema: Function): QuickCheck | null {
  const storage = getMetadataStorage();
  // The same call, with the same arguments, as class-validator's `validate` makes.
  const metadatas = storage.getTargetValidationMetadatas(
    schema,
    undefined as unknown as string,
    false,
    false,
    undefined,
  );
  if (metadatas.length === 0) return null;
  const properties = new Map<string, PropertyChecks>();
  for (const metadata of metadatas) {
    if (metadata.groups?.length || metadata.always !== undefined) return null;
    let property = properties.get(metadata.propertyName);
    if (!property)
      properties.set(metadata.propertyName, (property = { name: metadata.propertyName, conditions: [], checks: [] }));
    switch (metadata.type) {
      case ValidationTypes.WHITELIST:
        break;
      case ValidationTypes.CONDITIONAL_VALIDATION:
        property.conditions.push(metadata.constraints[0]);
        break;
      case ValidationTypes.IS_DEFINED:
      case ValidationTypes.CUSTOM_VALIDATION: {
        const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
        if (constraints.some((constraint) => constraint.async)) return null;
        const check: Check = {
          constraints: metadata.constraints,
          each: metadata.each,
          validators: constraints.map((constraint) => constraint.instance),
        };
        if (metadata.validateIf) check.validateIf = metadata.validateIf;
        // class-validator runs a property's IS_DEFINED checks before its others.
        if (metadata.type === ValidationTypes.IS_DEFINED) property.checks.unshift(check);
        else property.checks.push(check);
        break;
      }
      default:
        return null;
    }
  }
  const list = [...properties.values()];
  return (instance) => {
    for (const key of Object.keys(instance)) if (!properties.has(key)) return false;
    for (const property of list) if (!holds(instance, property)) return false;
    return true;
  };
}

function holds(object: object, property: PropertyChecks): boolean {
  const value = (object as Record<string, unknown>)[property.name];
  let applies = true;
  // Every condition is called, as class-validator calls them all.
  for (const condition of property.conditions) applies = condition(object, value) && applies;
  if (!applies) return true;
  for (const check of property.checks) {
    if (check.validateIf && !check.validateIf(object, value)) continue;
    const args: ValidationArguments = {
      targetName: object.constructor?.name,
      property: property.name,
      object,
      value,
      constraints: check.constraints,
    };
    const items = check.each ? itemsOf(value) : undefined;
    for (const validator of check.validators) {
      if (items === undefined) {
        if (!passed(validator.validate(value, args))) return false;
      } else {
        for (const item of items) if (!passed(validator.validate(item, args))) return false;
      }
    }
  }
  return true;
}

// What class-validator checks one by one under `each`: an array's, a set's or a map's values.
function itemsOf(value: unknown): Iterable<unknown> | undefined {
  if (Array.isArray(value) || value instanceof Set) return value;
  // Copied: a map's own iterator would be spent after the first constraint.
  return value instanceof Map ? [...value.values()] : undefined;
}

// A promise is not an answer here: class-validator awaits it.
function passed(result: unknown): boolean {
  return Boolean(result) && !(typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function');
}

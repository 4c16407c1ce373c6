import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { plainToInstance, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  validate,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { validateBody } from '@crudsmith/core';
import { quickCheckOf } from '../../core/src/schema/quick-check';

// The quick check may only ever say "valid" where class-validator finds nothing wrong
// (with the options validateBody uses); where it is unsure it says false and class-validator
// decides. Every case compares the two. Valid bodies must pass it, or the shortcut is dead.

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown) {
    return typeof value === 'number' && value % 2 === 0;
  }
}

@ValidatorConstraint({ name: 'laterEven' })
class LaterEven implements ValidatorConstraintInterface {
  // Not declared async, but answers a promise: only class-validator may judge it.
  validate(value: unknown) {
    return Promise.resolve(typeof value === 'number' && value % 2 === 0);
  }
}

@ValidatorConstraint({ name: 'slowEven', async: true })
class SlowEven implements ValidatorConstraintInterface {
  async validate(value: unknown) {
    return typeof value === 'number' && value % 2 === 0;
  }
}

class Item {
  @IsString() @MaxLength(10) name!: string;
  @IsOptional() @IsNumber() @Min(0) @Max(1000) price?: number;
  @IsOptional() @IsIn(['a', 'b']) category?: string;
  @IsOptional() @IsEmail() contact?: string;
  @IsOptional() @IsString({ each: true }) @ArrayMaxSize(2) tags?: string[];
  @IsOptional() @Validate(Even) pairs?: number;
  @Allow() anything?: unknown;
  @ValidateIf((item: Item) => item.category === 'a') @IsInt() stock?: number;
  @IsDefined() @IsOptional() present?: string;
  // The option form: only this constraint is conditional.
  @IsOptional() @IsString({ validateIf: (item: Item) => item.category === 'b' }) code?: unknown;
}

class Child extends Item {
  @IsOptional() @IsString() @MaxLength(3) colour?: string;
  // Redeclared: class-validator then drops every inherited constraint of this property (Even among them).
  @IsOptional() @IsInt() override pairs?: number;
}

class Later {
  @Validate(LaterEven) value!: number;
}
class Slow {
  @Validate(SlowEven) value!: number;
}
class Address {
  @IsString() city!: string;
}
class Nested {
  @ValidateNested() @Type(() => Address) address!: Address;
}
class Grouped {
  @IsString({ groups: ['admin'] }) name!: string;
}
class Always {
  @IsString({ always: true }) name!: string;
}
class Bare {
  name?: string;
}

/** The quick check's answer and class-validator's errors for one body. */
async function both(schema: new () => object, body: Record<string, unknown>) {
  const instance = plainToInstance(schema, body);
  const quick = quickCheckOf(schema)!(instance);
  const errors = await validate(instance, OPTIONS);
  return { quick, errors: errors.map((e) => e.property) };
}

const ITEM_BODIES: [string, Record<string, unknown>, boolean][] = [
  ['the required field only', { name: 'lamp' }, true],
  [
    'every optional field',
    {
      name: 'lamp',
      price: 12.5,
      category: 'b',
      contact: 'a@b.co',
      tags: ['x', 'y'],
      pairs: 4,
      anything: { deep: 1 },
      present: 'p',
    },
    true,
  ],
  ['nulls on optional fields', { name: 'lamp', price: null, category: null, tags: null }, true],
  ['the conditional field when its condition holds', { name: 'lamp', category: 'a', stock: 3 }, true],
  ['the conditional field, wrong, when its condition fails', { name: 'lamp', category: 'b', stock: 'x' }, true],
  ['a constraint whose own condition fails', { name: 'lamp', category: 'a', stock: 1, code: 5 }, true],
  ['a constraint whose own condition holds, broken', { name: 'lamp', category: 'b', code: 5 }, false],
  ['the required field missing', {}, false],
  ['the required field null', { name: null }, false],
  ['a string too long', { name: 'a very long lamp' }, false],
  ['a number out of range', { name: 'lamp', price: -1 }, false],
  ['a number as a string', { name: 'lamp', price: '12' }, false],
  ['a value not in the list', { name: 'lamp', category: 'c' }, false],
  ['a bad e-mail', { name: 'lamp', contact: 'nope' }, false],
  ['one bad item of an `each` list', { name: 'lamp', tags: ['x', 3] }, false],
  ['too many items', { name: 'lamp', tags: ['x', 'y', 'z'] }, false],
  ['a custom constraint failing', { name: 'lamp', pairs: 3 }, false],
  ['the conditional field, wrong, when its condition holds', { name: 'lamp', category: 'a', stock: 'x' }, false],
  ['the conditional field missing when its condition holds', { name: 'lamp', category: 'a' }, false],
  ['an undeclared field', { name: 'lamp', colour: 'red' }, false],
  ['an undeclared field set to undefined', { name: 'lamp', colour: undefined }, false],
];

describe('quickCheckOf', () => {
  it.each(ITEM_BODIES)('agrees with class-validator: %s', async (_, body, valid) => {
    const { quick, errors } = await both(Item, body);
    expect(errors.length === 0).toBe(valid);
    // Valid bodies take the shortcut; invalid ones never do.
    expect(quick).toBe(valid);
  });

  it('flags the undeclared class default that class-validator flags', async () => {
    // `fallback` has no decorator: whitelisting refuses it on every instance.
    class WithDefault {
      @IsString() name!: string;
      fallback = 1;
    }
    const { quick, errors } = await both(WithDefault, { name: 'lamp' });
    expect(errors).toEqual(['fallback']);
    expect(quick).toBe(false);
  });

  it.each([
    ["the child's own constraint", { name: 'lamp', colour: 'red' }, true],
    ["the child's own constraint broken", { name: 'lamp', colour: 'crimson' }, false],
    ["the overriding constraint, where the parent's would fail", { name: 'lamp', pairs: 3 }, true],
    ['the overriding constraint broken', { name: 'lamp', pairs: 2.5 }, false],
    ['an inherited constraint broken', { name: 'lamp', price: -5 }, false],
  ] as const)('follows inheritance as class-validator does: %s', async (_, body, valid) => {
    const { quick, errors } = await both(Child, { ...body });
    expect(errors.length === 0).toBe(valid);
    expect(quick).toBe(valid);
  });

  it('hands a constraint that answers a promise to class-validator', async () => {
    for (const value of [2, 3]) {
      const { quick, errors } = await both(Later, { value });
      expect(quick).toBe(false);
      expect(errors.length === 0).toBe(value === 2);
    }
  });

  it.each([
    ['an asynchronous constraint', Slow],
    ['nested validation', Nested],
    ['a constraint in a group', Grouped],
    ['a constraint with `always`', Always],
    ['no metadata at all (an unknown value)', Bare],
  ] as const)('has no quick check for a schema with %s', (_, schema) => {
    expect(quickCheckOf(schema)).toBeNull();
  });

  it("leaves validateBody's answers and errors as class-validator words them", async () => {
    await expect(validateBody(Item, { name: 'lamp', price: 3 })).resolves.toEqual({ name: 'lamp', price: 3 });
    const error = await validateBody(Item, { name: 'lamp', price: -1, tags: ['x', 3] }).catch(
      (e: { detail: unknown }) => e.detail,
    );
    expect(error).toEqual([
      { loc: ['body', 'price'], msg: 'price must not be less than 0', type: 'min' },
      { loc: ['body', 'tags'], msg: 'each value in tags must be a string', type: 'isString' },
    ]);
    await expect(validateBody(Later, { value: 3 })).rejects.toMatchObject({ status: 422 });
    await expect(validateBody(Slow, { value: 3 })).rejects.toMatchObject({ status: 422 });
    await expect(validateBody(Slow, { value: 4 })).resolves.toEqual({ value: 4 });
  });
});

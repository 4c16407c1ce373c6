import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Exclude, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { ValidationError, validateBody } from '@crudsmith/core';

class Address {
  @IsString() city!: string;
}

class Create {
  @IsString() @MaxLength(10) name!: string;
  @IsOptional() @IsInt() stock?: number;
  @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
  // Declared for the validator, dropped by class-transformer.
  @Exclude() @IsOptional() @IsInt() secret?: number;
}

/** The issues of the 422 validateBody throws, or fails the test when it answers instead. */
async function issuesOf(body: unknown, options?: Parameters<typeof validateBody>[2]) {
  const error = await validateBody(Create, body, options).then(
    (value) => { throw new Error(`expected a 422, got ${JSON.stringify(value)}`); },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).status).toBe(422);
  return (error as ValidationError).detail as { loc: unknown[]; msg: string; type: string }[];
}

describe('validateBody', () => {
  it('answers the declared fields that were sent, and nothing else', async () => {
    await expect(validateBody(Create, { name: 'lamp', stock: 3 })).resolves.toEqual({ name: 'lamp', stock: 3 });
  });

  it('validates nested objects declared with @Type and @ValidateNested', async () => {
    await expect(validateBody(Create, { name: 'lamp', address: { city: 'Lyon' } })).resolves.toEqual({ name: 'lamp', address: { city: 'Lyon' } });
    const issues = await issuesOf({ name: 'lamp', address: { city: 5 } });
    expect(issues.map((i) => i.loc)).toEqual([['body', 'address', 'city']]);
  });

  it('rejects a field the schema does not declare', async () => {
    expect(await issuesOf({ name: 'lamp', colour: 'red' })).toEqual([
      { loc: ['body', 'colour'], msg: 'property colour should not exist', type: 'extra_forbidden' },
    ]);
  });

  it('rejects wrong types and broken constraints, each at its field', async () => {
    const issues = await issuesOf({ name: 'a very long lamp name', stock: 'three' });
    expect(issues.map((i) => [i.loc, i.type])).toEqual([
      [['body', 'name'], 'maxLength'],
      [['body', 'stock'], 'isInt'],
    ]);
  });

  it.each(['toString', 'constructor', 'hasOwnProperty', 'valueOf'])('rejects a field named like an object method (%s)', async (key) => {
    expect(await issuesOf({ name: 'lamp', [key]: 'x' })).toEqual([
      { loc: ['body', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('rejects an own __proto__ key and never follows it', async () => {
    const body = JSON.parse('{"name":"lamp","__proto__":{"stock":"not a number"}}');
    const issues = await issuesOf(body);
    expect(issues).toContainEqual({ loc: ['body', '__proto__'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
  });

  it('rejects a field class-transformer drops (@Exclude) instead of passing it unchecked', async () => {
    expect(await issuesOf({ name: 'lamp', secret: 'not an int' })).toEqual([
      { loc: ['body', 'secret'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('rejects fields the server sets, even when the schema declares them', async () => {
    expect(await issuesOf({ name: 'lamp', stock: 1 }, { forbidden: ['stock'] })).toEqual([
      { loc: ['body', 'stock'], msg: "Field 'stock' is set by the server", type: 'extra_forbidden' },
    ]);
  });

  it('checks a list schema by name only', async () => {
    await expect(validateBody(['name'], { name: 'lamp' })).resolves.toEqual({ name: 'lamp' });
    const error = await validateBody(['name'], { name: 'lamp', toString: 'x' }).catch((e: unknown) => e);
    expect((error as ValidationError).detail).toEqual([{ loc: ['body', 'toString'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
  });

  it('rejects a body that is not an object, or missing', async () => {
    expect(await issuesOf([1, 2])).toEqual([{ loc: ['body'], msg: 'Input should be a valid object', type: 'model_attributes_type' }]);
    expect(await issuesOf(undefined)).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  });
});

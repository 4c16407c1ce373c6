import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Exclude, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { ValidationError, validateBody } from '@crudsmith/core';
import { errorToResult } from '@crudsmith/core/adapter';
import { growth } from '../fixtures/growth';

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
    (value) => {
      throw new Error(`expected a 422, got ${JSON.stringify(value)}`);
    },
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
    await expect(validateBody(Create, { name: 'lamp', address: { city: 'Lyon' } })).resolves.toEqual({
      name: 'lamp',
      address: { city: 'Lyon' },
    });
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

  it.each(['toString', 'constructor', 'hasOwnProperty', 'valueOf'])(
    'rejects a field named like an object method (%s)',
    async (key) => {
      expect(await issuesOf({ name: 'lamp', [key]: 'x' })).toEqual([
        { loc: ['body', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ]);
    },
  );

  it('rejects an own __proto__ key and never follows it', async () => {
    const body = JSON.parse('{"name":"lamp","__proto__":{"stock":"not a number"}}');
    const issues = await issuesOf(body);
    expect(issues).toContainEqual({
      loc: ['body', '__proto__'],
      msg: 'Extra inputs are not permitted',
      type: 'extra_forbidden',
    });
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

  it('answers one entry for a server-set field the schema does not declare, or declares with another type', async () => {
    const serverSet = {
      loc: ['body', 'owner_id'],
      msg: "Field 'owner_id' is set by the server",
      type: 'extra_forbidden',
    };
    expect(await issuesOf({ name: 'lamp', owner_id: 1 }, { forbidden: ['owner_id'] })).toEqual([serverSet]);
    expect(await issuesOf({ name: 'lamp', stock: 'many' }, { forbidden: ['stock'] })).toEqual([
      { loc: ['body', 'stock'], msg: "Field 'stock' is set by the server", type: 'extra_forbidden' },
    ]);
    const error = await validateBody(['name'], { name: 'lamp', owner_id: 1 }, { forbidden: ['owner_id'] }).catch(
      (e: unknown) => e,
    );
    expect((error as ValidationError).detail).toEqual([serverSet]);
  });

  it('checks a list schema by name only', async () => {
    await expect(validateBody(['name'], { name: 'lamp' })).resolves.toEqual({ name: 'lamp' });
    const error = await validateBody(['name'], { name: 'lamp', toString: 'x' }).catch((e: unknown) => e);
    expect((error as ValidationError).detail).toEqual([
      { loc: ['body', 'toString'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('rejects a body that is not an object, or missing', async () => {
    expect(await issuesOf([1, 2])).toEqual([
      { loc: ['body'], msg: 'Input should be a valid object', type: 'model_attributes_type' },
    ]);
    expect(await issuesOf(undefined)).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  });

  it('with more undeclared keys than an answer lists, does not ask the validator, and costs linear time in the keys', async () => {
    const bodyOf = (keys: number) => {
      const body: Record<string, unknown> = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 1]));
      body.name = 12;
      return body;
    };
    const issues = await issuesOf(bodyOf(60_000));
    // 64 times the keys: linear work costs about 64 times as much (a few times that with the
    // caches and collector), quadratic work about 4096 times.
    expect(await growth(bodyOf, issuesOf, { small: 1_000, large: 64_000 })).toBeLessThan(1024);
    expect(issues).toHaveLength(60_000);
    expect(issues.every((issue) => issue.type === 'extra_forbidden')).toBe(true);
    // Under the cap, every problem is still worded, the declared fields' included.
    const few = await issuesOf({ name: 12, k1: 1 });
    expect(few.map((issue) => issue.type).sort()).toEqual(['extra_forbidden', 'isString', 'maxLength']);
  });

  it('refuses a nested object of more than 1000 keys before class-transformer, so a wide body costs linear time', async () => {
    const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    // 40,000 keys in one nested object took class-transformer about a second (its key dedupe is quadratic).
    for (const body of [
      { name: 'lamp', extra: wide(40_000) },
      { name: 'lamp', address: wide(40_000) },
      { name: 'lamp', stock: [1, { deep: wide(1001) }] },
    ]) {
      const issues = await issuesOf(body);
      expect(issues).toHaveLength(1);
      expect(issues[0].type).toBe('too_many_keys');
    }
    expect((await issuesOf({ name: 'lamp', stock: [1, { deep: wide(1001) }] }))[0].loc).toEqual([
      'body',
      'stock',
      1,
      'deep',
    ]);
    // The worst a body of about 1 MB can still be, many objects just under the bound, stays well under a second.
    const many = { name: 'lamp', extra: Array.from({ length: 100 }, () => wide(1000)) };
    expect((await issuesOf(many)).map((issue) => issue.loc)).toEqual([['body', 'extra']]);
    // A wide nested object is refused at linear cost: 64 times the keys cost nowhere near the
    // 4096 times of quadratic work (class-transformer's key dedupe).
    const nested = (keys: number) => ({ name: 'lamp', extra: wide(keys) });
    expect(await growth(nested, issuesOf, { small: 1_001, large: 64_064 })).toBeLessThan(1024);
    // At the bound, a nested object is transformed and validated as before.
    await expect(
      validateBody(Create, { name: 'lamp', address: { city: 'Lyon', ...wide(999) } }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('rendering a 422', () => {
  const issues = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      loc: ['body', `k${i}`],
      msg: 'Extra inputs are not permitted',
      type: 'extra_forbidden',
    }));

  it('lists at most 100 entries, then one saying how many more were omitted', () => {
    const result = errorToResult(new ValidationError(issues(250)));
    const detail = (result.json as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
    expect(result.status).toBe(422);
    expect(detail).toHaveLength(101);
    expect(detail.slice(0, 100)).toEqual(issues(100));
    expect(detail[100]).toEqual({ loc: [], msg: '150 more errors omitted', type: 'too_many_errors' });
    expect((errorToResult(new ValidationError(issues(101))).json as { detail: unknown[] }).detail[100]).toEqual({
      loc: [],
      msg: '1 more error omitted',
      type: 'too_many_errors',
    });
  });

  it('lists 100 entries or fewer as they are', () => {
    expect((errorToResult(new ValidationError(issues(100))).json as { detail: unknown }).detail).toEqual(issues(100));
  });
});

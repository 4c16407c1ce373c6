import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Exclude, Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { IsOptional, IsString } from 'class-validator';
import { makesDirectly, toInstance } from '../../core/src/schema/to-instance';

// toInstance makes the instance itself when neither the schema nor the body needs
// class-transformer, and must then make exactly what plainToInstance makes. Each case
// compares the two, and checks which way it went, so a shortcut that silently stopped
// applying (or applied where it must not) fails here.

class Plain {
  @IsString() name!: string;
  @IsOptional() @IsString() note?: string;
  stock = 5;
  describe(): string {
    return this.name;
  }
  get label(): string {
    return `#${this.name}`;
  }
  private stored = '';
  get writable(): string {
    return this.stored;
  }
  set writable(value: string) {
    this.stored = value.toUpperCase();
  }
}

class PlainChild extends Plain {
  @IsOptional() @IsString() colour?: string;
}

class Trimmed {
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)) @IsString() name!: string;
}

class Renamed {
  @Expose({ name: 'full_name' }) @IsString() name!: string;
}

class Hidden {
  @IsString() name!: string;
  @Exclude() secret?: string;
}

class TransformedParent {
  @Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value)) code?: string;
}
class InheritsTransform extends TransformedParent {
  @IsString() name!: string;
}

class Tag {
  @IsString() label!: string;
}
class Tagged {
  @Type(() => Tag) tag?: Tag;
}

/** Own enumerable entries and prototype: what the validator and the caller see of an instance. */
function seen(instance: object) {
  return {
    proto: Object.getPrototypeOf(instance),
    entries: Object.entries(instance),
    writable: (instance as Plain).writable,
  };
}

describe('toInstance', () => {
  const flatBodies: Record<string, Record<string, unknown>> = {
    'declared fields': { name: 'lamp', note: 'blue' },
    'a field overriding a default': { name: 'lamp', stock: 9 },
    'undeclared fields': { name: 'lamp', colour: 'red', weight: 3 },
    'null and boolean values': { name: null, note: true },
    'a key named like a method': { name: 'lamp', describe: 'x', toString: 'y', hasOwnProperty: 1 },
    'a key naming a read-only accessor': { name: 'lamp', label: 'x' },
    'a key naming an accessor with a setter': { name: 'lamp', writable: 'shout' },
    'constructor and an own __proto__': JSON.parse('{"name":"lamp","constructor":"x","__proto__":"y"}'),
    'no keys': {},
  };

  it.each(Object.entries(flatBodies))('makes what plainToInstance makes for a plain schema: %s', (_, body) => {
    expect(makesDirectly(Plain, body)).toBe(true);
    expect(seen(toInstance(Plain, body))).toEqual(seen(plainToInstance(Plain, body)));
  });

  it('makes instances of a plain subclass of a plain schema directly, with its defaults', () => {
    const body = { name: 'lamp', colour: 'red' };
    expect(makesDirectly(PlainChild, body)).toBe(true);
    const made = toInstance(PlainChild, body);
    expect(made).toBeInstanceOf(PlainChild);
    expect(seen(made)).toEqual(seen(plainToInstance(PlainChild, body)));
  });

  it('leaves a body with an object or an array value to plainToInstance', () => {
    for (const body of [
      { name: 'lamp', extra: { a: 1 } },
      { name: 'lamp', tags: ['a'] },
    ]) {
      expect(makesDirectly(Plain, body)).toBe(false);
      expect(seen(toInstance(Plain, body))).toEqual(seen(plainToInstance(Plain, body)));
    }
  });

  it('applies a @Transform', () => {
    expect(makesDirectly(Trimmed, { name: ' lamp ' })).toBe(false);
    expect(toInstance(Trimmed, { name: ' lamp ' }).name).toBe('lamp');
  });

  it('applies an @Expose with another name', () => {
    expect(makesDirectly(Renamed, { full_name: 'lamp' })).toBe(false);
    expect(toInstance(Renamed, { full_name: 'lamp' })).toEqual(plainToInstance(Renamed, { full_name: 'lamp' }));
    expect(toInstance(Renamed, { full_name: 'lamp' }).name).toBe('lamp');
  });

  it('drops an @Exclude()d field', () => {
    expect(makesDirectly(Hidden, { name: 'lamp', secret: 'x' })).toBe(false);
    expect(toInstance(Hidden, { name: 'lamp', secret: 'x' })).not.toHaveProperty('secret');
  });

  it('applies a transform declared on an ancestor', () => {
    expect(makesDirectly(InheritsTransform, { name: 'lamp', code: 'ABC' })).toBe(false);
    expect(toInstance(InheritsTransform, { name: 'lamp', code: 'ABC' }).code).toBe('abc');
  });

  it('leaves a schema with a @Type to plainToInstance, even for a flat body', () => {
    expect(makesDirectly(Tagged, { tag: null })).toBe(false);
    expect(toInstance(Tagged, { tag: { label: 'x' } }).tag).toBeInstanceOf(Tag);
  });
});

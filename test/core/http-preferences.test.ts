// The pure parts of the generated writes' HTTP: RFC 7396 merge, the Prefer header, body media types.
import { describe, expect, it } from 'vitest';
import { UnsupportedMediaTypeError } from '@crudsmith/core';
import { createRequest } from '@crudsmith/core/adapter';
import { mergePatch } from '../../core/src/crud/merge-patch';
import { bodyMediaType, MERGE_PATCH, UPDATE_TYPES } from '../../core/src/crud/media-type';
import { returnPreference } from '../../core/src/crud/prefer';

const request = (headers: Record<string, string>) =>
  createRequest({ method: 'PATCH', path: '/x', query: {}, headers, body: undefined, clientAddress: '127.0.0.1' });

describe('JSON merge patch (RFC 7396)', () => {
  it('merges objects, removes a member given null, and replaces anything that is not an object', () => {
    const stored = { a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] };
    expect(mergePatch(stored, { a: 'z', c: { f: null, h: 1 }, list: [3] })).toEqual({
      a: 'z',
      c: { d: 'e', h: 1 },
      list: [3],
    });
    expect(mergePatch('text', { a: { b: null } })).toEqual({ a: {} });
    expect(mergePatch({ a: 1 }, ['x'])).toEqual(['x']);
    expect(stored.c).toEqual({ d: 'e', f: 'g' });
  });
});

describe('Prefer and the body media type', () => {
  it('reads return=representation or return=minimal among other preferences, ignoring the rest', () => {
    expect(returnPreference(request({ prefer: 'respond-async, return=minimal' }))).toBe('minimal');
    expect(returnPreference(request({ prefer: 'RETURN="representation"; wait=5' }))).toBe('representation');
    expect(returnPreference(request({ prefer: 'return=everything' }))).toBeUndefined();
    expect(returnPreference(request({}))).toBeUndefined();
  });

  it('takes JSON and merge patch whatever their case and parameters, and refuses another type with a 415', () => {
    expect(
      bodyMediaType(request({ 'content-type': 'Application/Merge-Patch+JSON; charset=utf-8' }), UPDATE_TYPES),
    ).toBe(MERGE_PATCH);
    expect(bodyMediaType(request({}), UPDATE_TYPES)).toBeUndefined();
    expect(() => bodyMediaType(request({ 'content-type': 'application/x-www-form-urlencoded' }), UPDATE_TYPES)).toThrow(
      UnsupportedMediaTypeError,
    );
  });
});

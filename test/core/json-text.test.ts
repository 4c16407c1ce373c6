// A list's answer is serialised once: the text its weak ETag hashes is the text the
// adapter sends. A wrapper that answers another value is serialised afresh; one that
// only adds headers keeps the text.
import { describe, expect, it } from 'vitest';
import { toPayload } from '@crudsmith/core/adapter';
import { withJsonText } from '../../core/src/http/json-text';

describe('a JSON answer whose text was made already', () => {
  const body = { data: [{ id: 1 }], total_count: 1 };

  it('is sent as that text, also through a wrapper that only adds headers', () => {
    // A text a serialiser would not make, so the test sees which one was sent.
    const made = withJsonText({ status: 200, json: body }, '{"data":[{"id":1}],"total_count":1 }');
    expect(toPayload(made).body).toBe('{"data":[{"id":1}],"total_count":1 }');
    expect(toPayload({ ...made, headers: { 'x-extra': '1' } }).body).toBe('{"data":[{"id":1}],"total_count":1 }');
  });

  it('is serialised afresh once a wrapper answers another value', () => {
    const made = withJsonText({ status: 200, json: body }, 'stale');
    expect(toPayload({ ...made, json: { ...body, extra: true } }).body).toBe(
      '{"data":[{"id":1}],"total_count":1,"extra":true}',
    );
  });
});

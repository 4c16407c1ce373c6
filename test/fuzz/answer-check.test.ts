import { describe, expect, it } from 'vitest';
import { answerProblem } from './answer-check';
import { encode } from './fuzz-request';
import { operationsOf } from './operations';

// The fuzz's own judge: an answer it lets through must really keep the document's promise.
const document = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'things_read',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'A thing',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'at'],
                  properties: { id: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
                },
              },
            },
          },
          '404': {
            description: 'Missing',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
          '204': { description: 'Nothing' },
        },
      },
    },
  },
  components: { schemas: { Error: { type: 'object', required: ['detail'], properties: { detail: {} } } } },
};
const [op] = operationsOf('test', document);
const answer = (status: number, body: unknown, ms = 5) => ({
  status,
  contentType: 'application/json; charset=utf-8',
  text: JSON.stringify(body),
  ms,
});

describe('the fuzz judging an answer', () => {
  it('accepts a documented status whose body matches its schema, references and formats included', () => {
    expect(answerProblem(op, answer(200, { id: 1, at: '2024-01-01T00:00:00.000Z' }), 1000)).toBeUndefined();
    expect(answerProblem(op, answer(404, { detail: 'Item not found' }), 1000)).toBeUndefined();
    expect(answerProblem(op, { status: 204, contentType: '', text: '', ms: 1 }, 1000)).toBeUndefined();
  });

  it('refuses a 5xx, an undocumented status, a body off its schema or format, a non-JSON body and a slow answer', () => {
    expect(answerProblem(op, answer(500, { detail: 'Internal server error' }), 1000)).toMatch(/answered 500/);
    expect(answerProblem(op, answer(409, { detail: 'x' }), 1000)).toMatch(/does not document/);
    expect(answerProblem(op, answer(200, { id: '1', at: '2024-01-01T00:00:00Z' }), 1000)).toMatch(/off its schema/);
    expect(answerProblem(op, answer(200, { id: 1, at: '+010000-01-01T00:00:00.000Z' }), 1000)).toMatch(
      /off its schema/,
    );
    expect(answerProblem(op, answer(404, { message: 'x' }), 1000)).toMatch(/off its schema/);
    expect(answerProblem(op, { status: 404, contentType: 'text/html', text: '<p>no</p>', ms: 1 }, 1000)).toMatch(
      /promises JSON/,
    );
    expect(answerProblem(op, answer(200, { id: 1, at: '2024-01-01T00:00:00Z' }, 1500), 1000)).toMatch(/after 1500 ms/);
  });

  it('judges a decimal step with a tolerance, as the server checks it, and still refuses a finer value', () => {
    const priced = operationsOf('test', {
      openapi: '3.1.0',
      paths: {
        '/p': {
          get: {
            operationId: 'p_read',
            responses: {
              '200': {
                description: 'A price',
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { price: { type: 'number', multipleOf: 0.01 } } },
                  },
                },
              },
            },
          },
        },
      },
    })[0];
    // -2528.66 / 0.01 is -252865.99999999997 in binary.
    expect(answerProblem(priced, answer(200, { price: -2528.66 }), 1000)).toBeUndefined();
    expect(answerProblem(priced, answer(200, { price: 0.07 }), 1000)).toBeUndefined();
    expect(answerProblem(priced, answer(200, { price: 1.005 }), 1000)).toMatch(/multiple of 0.01/);
  });

  it('sends a lone surrogate as its invalid UTF-8 bytes and never a dot segment', () => {
    expect(encode('a\uD800')).toBe('a%ED%A0%80');
    expect(encode('é/')).toBe('%C3%A9%2F');
    expect(encode('..')).toBe('..x');
  });
});

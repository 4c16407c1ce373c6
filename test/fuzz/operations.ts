// The operations of an OpenAPI 3.1 document, flattened into what the fuzz needs to build a
// request for each and to judge its answer.
import type { Schema } from './schema-values';

/** One declared parameter. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

/** One operation of a document. */
export interface Operation {
  /** The document's label (`v1`, `auth`), for messages. */
  document: string;
  operationId: string;
  method: string;
  /** The path template, `{name}` for each path parameter. */
  path: string;
  parameters: Parameter[];
  /** The accepted body types and their schemas (none when the operation takes no body). */
  body?: { required: boolean; types: { type: string; schema: Schema }[] };
  /** Each documented status (or `default`), with its JSON schema when it has one, and its media types. */
  responses: Record<string, { schema?: Schema; types?: string[] }>;
  /** Whether the operation lists a security requirement (a login). */
  secured: boolean;
  /** The whole document, for `$ref`s. */
  root: Schema;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation of `document`, in the document's order. */
export function operationsOf(label: string, document: Schema): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const content: Record<string, { schema?: Schema }> = op.requestBody?.content ?? {};
      operations.push({
        document: label,
        operationId: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => ({
          name: p.name,
          in: p.in,
          required: Boolean(p.required),
          schema: p.schema ?? {},
        })),
        body: op.requestBody
          ? {
              required: Boolean(op.requestBody.required),
              types: Object.entries(content).map(([type, media]) => ({ type, schema: media.schema ?? {} })),
            }
          : undefined,
        responses: Object.fromEntries(
          Object.entries<Schema>(op.responses ?? {}).map(([status, response]) => [
            status,
            { schema: response.content?.['application/json']?.schema, types: Object.keys(response.content ?? {}) },
          ]),
        ),
        secured: Array.isArray(op.security) && op.security.length > 0,
        root: document,
      });
    }
  }
  return operations;
}

import { formType, objectType, propertyKey, schemaType, type Schema } from './schema-type';

// The document's custom routes (the operations without `x-crudsmith-crud`): one typed
// function each, named from its operationId and grouped by its first tag. The account
// plugin's routes are left out (the runtime's `account` covers them). A body is JSON or
// `multipart/form-data` (uploads: its parts typed, files as `Blob`, sent as `FormData`);
// a route whose body is of another type is left out (`client.http` sends those).

/** One operation of the document, loosely typed. */
export interface Operation extends Schema {
  operationId?: string;
  tags?: string[];
  parameters?: Schema[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** One custom operation, ready to print. */
export interface CustomOperation {
  group: string;
  name: string;
  type: string;
  method: string;
  path: string;
  declaration: string;
  call: string;
}

/** Names a generated resource member already has. */
const TAKEN = new Set(['create', 'list', 'paginate', 'get', 'update', 'delete', 'restore', 'hardDelete', 'export']);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export const pascal = (name: string) =>
  name.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_a, _s, c: string) => c.toUpperCase());
export const camel = (name: string) => pascal(name).replace(/^[A-Z]/, (c) => c.toLowerCase());

/** `schema` with the document's `$ref`s inlined (the generated module declares no component types). */
function inline(schema: unknown, doc: Record<string, unknown>, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((part) => inline(part, doc, depth));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string') {
    if (depth > 8 || !ref.startsWith('#/')) return {};
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], doc);
    return inline(target, doc, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inline(value, doc, depth)]));
}

/** The member name of an operation in its group: the operationId without the group and version prefixes. */
function memberName(operationId: string, group: string, isResource: boolean): string {
  const short = camel(operationId.replace(new RegExp(`^${group}_`), '').replace(/^v\d+_/, ''));
  return short && !(isResource && TAKEN.has(short)) ? short : camel(operationId);
}

function paramsType(params: Schema[], where: string, indent: number): string | undefined {
  const own = params.filter((p) => p.in === where);
  if (!own.length) return undefined;
  const pad = '  '.repeat(indent + 1);
  const lines = own.map((p) => {
    const optional = where === 'path' || p.required === true ? '' : '?';
    return `${pad}${propertyKey(String(p.name))}${optional}: ${schemaType(p.schema, indent + 1)};`;
  });
  return `{\n${lines.join('\n')}\n${'  '.repeat(indent)}}`;
}

function answerType(operation: Operation): string {
  const parts: string[] = [];
  for (const [status, answer] of Object.entries(operation.responses ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = answer.content?.['application/json']?.schema;
    parts.push(schema ? schemaType(schema, 1) : 'null');
  }
  return parts.length ? [...new Set(parts)].join(' | ') : 'null';
}

/** The custom operations of `doc` outside `skipPrefix`, sorted by group and name; `resources` are the groups merged into a resource. */
export function customOperations(
  doc: Record<string, unknown>,
  resources: Set<string>,
  skipPrefix?: string,
): CustomOperation[] {
  const found: CustomOperation[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    if (skipPrefix && (path === skipPrefix || path.startsWith(`${skipPrefix}/`))) continue;
    for (const method of HTTP_METHODS) {
      const raw = item[method];
      if (!raw || raw['x-crudsmith-crud'] || !raw.operationId) continue;
      const content = raw.requestBody?.content;
      const form = Boolean(content && !content['application/json'] && content['multipart/form-data']);
      if (content && !content['application/json'] && !form) continue;
      const op = inline(raw, doc) as Operation;
      const group = camel(op.tags?.[0] ?? 'routes');
      let name = memberName(op.operationId!, group, resources.has(group));
      if (seen.has(`${group}.${name}`)) name = camel(op.operationId!);
      seen.add(`${group}.${name}`);
      const type = `${pascal(group)}${pascal(name)}Op`;
      const params = paramsType(op.parameters ?? [], 'path', 1);
      const query = paramsType(op.parameters ?? [], 'query', 1);
      const bodySchema = content?.['application/json']?.schema;
      const formSchema = content?.['multipart/form-data']?.schema;
      let body: string | undefined;
      if (form) body = `${formSchema ? formType(formSchema, 1) : 'Record<string, string | Blob>'} | FormData`;
      else if (bodySchema) body = bodySchema.type === 'object' ? objectType(bodySchema, 1) : schemaType(bodySchema, 1);
      const members = [
        params && `  params: ${params};`,
        query && `  query: ${query};`,
        body && `  body: ${body};`,
        `  answer: ${answerType(op)};`,
      ].filter(Boolean);
      const summary = String(op.summary ?? `${method.toUpperCase()} ${path}`)
        .replace(/\s+/g, ' ')
        .replace(/\*\//g, '*\\/');
      const shape = [params && 'params: true', body && 'body: true', form && 'form: true'].filter(Boolean).join(', ');
      found.push({
        group,
        name,
        type,
        method: method.toUpperCase(),
        path,
        declaration: `/** ${op.operationId}: ${summary}. */\nexport interface ${type} {\n${members.join('\n')}\n}`,
        call: `operation<${type}>(http, '${method.toUpperCase()}', ${JSON.stringify(path)}${shape ? `, { ${shape} }` : ''})`,
      });
    }
  }
  return found.sort((a, b) => (a.group === b.group ? (a.name < b.name ? -1 : 1) : a.group < b.group ? -1 : 1));
}

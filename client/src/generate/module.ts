import { camel, customOperations, pascal, type Operation } from './operations';
import { objectType, propertyKey, schemaType, type Schema } from './schema-type';

// One TypeScript module from one version's OpenAPI document: a spec type per resource
// (the operations core marks with `x-crudsmith-crud`), its filters and sort keys from the
// `x-crudsmith-filter` and `x-crudsmith-sort` parameters, an interface per custom route,
// and `createClient`.

/** An OpenAPI 3.1 document, loosely typed. */
export type OpenApiDocument = Record<string, unknown>;

const METHOD_OF: Record<string, string> = {
  create: 'create',
  readMulti: 'list',
  read: 'get',
  update: 'update',
  delete: 'delete',
  dbDelete: 'hardDelete',
  restore: 'restore',
  export: 'export',
};
const METHOD_ORDER = ['create', 'list', 'get', 'update', 'delete', 'restore', 'hardDelete', 'export'];

interface Found {
  path: string;
  operation: Operation;
}

const json = (operation: Operation | undefined, status?: string): Schema | undefined =>
  status
    ? operation?.responses?.[status]?.content?.['application/json']?.schema
    : operation?.requestBody?.content?.['application/json']?.schema;

/** The resources of the document, by name, each with its operations by client method. */
function resources(doc: OpenApiDocument): Map<string, Map<string, Found>> {
  const found = new Map<string, Map<string, Found>>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const operation of Object.values(item)) {
      const mark = operation?.['x-crudsmith-crud'] as { resource: string; operation: string } | undefined;
      const method = mark && METHOD_OF[mark.operation];
      if (!mark || !method) continue;
      if (!found.has(mark.resource)) found.set(mark.resource, new Map());
      found.get(mark.resource)!.set(method, { path, operation });
    }
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)));
}

function filtersType(list: Operation | undefined): string {
  const lines: string[] = [];
  for (const param of list?.parameters ?? []) {
    const mark = param['x-crudsmith-filter'] as { op: string } | undefined;
    if (!mark) continue;
    const schema = param.schema as Schema;
    const item = (schema.type === 'array' ? schema.items : schema) as Schema;
    let value = schemaType(item);
    if (item.format === 'date-time' || item.format === 'date') value = `${value} | Date`;
    if (schema.type === 'array') value = value.includes(' ') ? `readonly (${value})[]` : `readonly ${value}[]`;
    if (mark.op === 'is' || mark.op === 'is_not') value = `${value} | null`;
    lines.push(`  ${propertyKey(String(param.name))}?: ${value};`);
  }
  return lines.length ? `{\n${lines.join('\n')}\n}` : 'Record<string, never>';
}

function sortType(list: Operation | undefined): string {
  const sort = list?.parameters?.find((p) => p['x-crudsmith-sort']);
  const columns = (sort?.['x-crudsmith-sort'] ?? []) as string[];
  return columns.length ? columns.map((c) => JSON.stringify(c)).join(' | ') : 'never';
}

function idType(ops: Map<string, Found>): string {
  const at = ['get', 'update', 'delete', 'restore', 'hardDelete'].map((m) => ops.get(m)).find(Boolean);
  const params = (at?.operation.parameters ?? []).filter((p) => p.in === 'path');
  if (!params.length) return 'never';
  if (params.length === 1) return schemaType(params[0].schema);
  return `{ ${params.map((p) => `${propertyKey(String(p.name))}: ${schemaType(p.schema)}`).join('; ')} }`;
}

function rowSchema(ops: Map<string, Found>): Schema | undefined {
  const read = json(ops.get('get')?.operation, '200');
  if (read) return read;
  const list = json(ops.get('list')?.operation, '200');
  const envelope = (list?.oneOf as Schema[] | undefined)?.[0];
  const data = (envelope?.properties as Record<string, Schema> | undefined)?.data;
  return (data?.items as Schema | undefined) ?? json(ops.get('create')?.operation, '201');
}

function resourceTypes(name: string, ops: Map<string, Found>): string {
  const type = pascal(name);
  const body = (method: string, optionalAll: boolean) => {
    const schema = json(ops.get(method)?.operation);
    return schema ? objectType(schema, 0, optionalAll) : 'never';
  };
  const row = rowSchema(ops);
  const answer = (method: string, status: string) => {
    const schema = json(ops.get(method)?.operation, status);
    if (schema && JSON.stringify(schema) === JSON.stringify(row)) return `${type}Row`;
    return schema ? schemaType(schema, 1) : 'never';
  };
  return [
    `/** A row of ${name}, as the API answers it. */`,
    `export type ${type}Row = ${schemaType(row)};`,
    '',
    `/** The body that creates one of ${name}. */`,
    `export type ${type}Create = ${body('create', false)};`,
    '',
    `/** The body that updates one of ${name}: every field optional. */`,
    `export type ${type}Update = ${body('update', true)};`,
    '',
    `/** The filters ${name} declares, each with its value type. */`,
    `export type ${type}Filters = ${filtersType(ops.get('list')?.operation)};`,
    '',
    `/** The columns ${name} sorts on (\`-column\` sorts descending). */`,
    `export type ${type}Sort = ${sortType(ops.get('list')?.operation)};`,
    '',
    `/** Everything the client knows of ${name}. */`,
    `export interface ${type}Spec {`,
    `  id: ${idType(ops)};`,
    `  row: ${type}Row;`,
    `  create: ${type}Create;`,
    `  update: ${type}Update;`,
    `  created: ${answer('create', '201')};`,
    `  updated: ${answer('update', '200')};`,
    `  deleted: ${answer('delete', '200') === 'never' ? answer('hardDelete', '200') : answer('delete', '200')};`,
    `  filters: ${type}Filters;`,
    `  sort: ${type}Sort;`,
    `}`,
  ].join('\n');
}

/** The account plugin's mount path when the document lists its sign-in routes. */
function authPath(doc: OpenApiDocument): string | undefined {
  const login = Object.keys((doc.paths ?? {}) as object).find((path) => /\/(login|token)$/.test(path));
  return login?.replace(/\/(login|token)$/, '');
}

/** The generated module's text for one version's document: same document, same bytes. */
export function generateModule(doc: OpenApiDocument): string {
  const info = (doc.info ?? {}) as { title?: string; version?: string };
  const found = resources(doc);
  const auth = authPath(doc);
  const custom = customOperations(doc, new Set([...found.keys()].map(camel)), auth);
  const imports = [
    auth ? 'AccountClient' : '',
    'HttpClient',
    custom.length ? 'operation' : '',
    'resource',
    'type ClientOptions',
  ].filter(Boolean);
  const routes = (group: string, pad: string) =>
    custom.filter((op) => op.group === group).map((op) => `${pad}${propertyKey(op.name)}: ${op.call},`);
  const members = [...found].map(([name, ops]) => {
    const methods = METHOD_ORDER.filter((m) => ops.has(m));
    const paths = methods.map((m) => `${m}: ${JSON.stringify(ops.get(m)!.path)}`).join(', ');
    const made = `resource<${pascal(name)}Spec, ${methods.map((m) => `'${m}'`).join(' | ')}>(http, { ${paths} })`;
    const own = routes(camel(name), '      ');
    return own.length
      ? `    ${propertyKey(camel(name))}: {\n      ...${made},\n${own.join('\n')}\n    },`
      : `    ${propertyKey(camel(name))}: ${made},`;
  });
  const taken = new Set(['http', 'account', ...[...found.keys()].map(camel)]);
  const groups = [...new Set(custom.map((op) => op.group))].filter(
    (group) => !taken.has(group) || group === 'http' || group === 'account',
  );
  for (const group of groups) {
    const key = group === 'http' || group === 'account' ? `${group}Routes` : group;
    members.push(`    ${propertyKey(key)}: {\n${routes(group, '      ').join('\n')}\n    },`);
  }
  return [
    `// Generated by crudsmith-client from the OpenAPI document of ${info.title ?? 'the API'}, version ${info.version ?? '?'}.`,
    '// Do not edit: run `crudsmith-client generate` again when the API changes.',
    `import { ${imports.join(', ')} } from '@crudsmith/client';`,
    '',
    ...[...found].map(([name, ops]) => `${resourceTypes(name, ops)}\n`),
    ...custom.map((op) => `${op.declaration}\n`),
    `/** A client of version ${info.version ?? '?'}: one member per resource and per group of custom routes${auth ? ', and `account` for sign-in' : ''}. */`,
    `export function createClient(options: ClientOptions) {`,
    `  const http = new HttpClient(options);`,
    `  return {`,
    `    http,`,
    ...(auth ? [`    account: new AccountClient(http, ${JSON.stringify(auth)}),`] : []),
    ...members,
    `  };`,
    `}`,
    '',
    `/** What \`createClient\` answers. */`,
    `export type Client = ReturnType<typeof createClient>;`,
    '',
  ].join('\n');
}

import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpenApiDocument } from './module';

// Where the generator reads its documents: an OpenAPI document (a JSON file or a URL), or
// a module of the app that exports them, so no server has to run. The module exports
// `openapi` (or a default export) as one of: the documents by version label
// (`{ v1: doc, v2: doc }`), the versioning plugin (its `versions`, each with `label` and
// `openapi`), or a function, sync or async, answering either. A TypeScript module loads
// through tsx when the app has it installed (Node cannot import `.ts` by itself).

/** The documents by version label; a single document is keyed by its `info.version`. */
export type Documents = Record<string, OpenApiDocument>;

const MODULE = /\.(?:[cm]?js|[cm]?ts|tsx)$/;

/** Whether `input` names a module rather than a JSON document or a URL. */
export function isModule(input: string): boolean {
  return !/^https?:\/\//.test(input) && MODULE.test(input);
}

/** Reads the documents of `input`: a URL, a JSON file or a module (see above). */
export async function loadDocuments(input: string): Promise<Documents> {
  if (isModule(input)) return documentsOf(await importModule(resolve(input)), input);
  let doc: OpenApiDocument;
  if (/^https?:\/\//.test(input)) {
    const response = await fetch(input, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`${input}: HTTP ${response.status}`);
    doc = (await response.json()) as OpenApiDocument;
  } else doc = JSON.parse(await readFile(input, 'utf8')) as OpenApiDocument;
  const version = (doc.info as { version?: string } | undefined)?.version ?? 'api';
  return { [version]: doc };
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
  // A TypeScript module under plain node: tsx, resolved from the app (not a dependency of the client).
  let tsx: { require: (id: string, fromFile: string) => Record<string, unknown> };
  try {
    tsx = createRequire(resolve('package.json'))('tsx/cjs/api') as typeof tsx;
  } catch {
    throw new Error(`${path} is TypeScript: install tsx in the app, or run the generator under tsx`);
  }
  return tsx.require(path, resolve('package.json'));
}

async function documentsOf(mod: Record<string, unknown>, input: string): Promise<Documents> {
  // A CommonJS module imported as ESM puts its exports under `default`.
  const inner = mod.default as Record<string, unknown> | undefined;
  let value: unknown = mod.openapi ?? inner?.openapi ?? inner;
  if (typeof value === 'function') value = await (value as () => unknown)();
  const versions = (value as { versions?: unknown } | undefined)?.versions;
  if (Array.isArray(versions)) {
    value = Object.fromEntries(
      (versions as { label: string; openapi?: OpenApiDocument }[])
        .filter((v) => v.openapi)
        .map((v) => [v.label, v.openapi]),
    );
  }
  const docs = value as Documents | undefined;
  if (!docs || typeof docs !== 'object' || !Object.values(docs).length || !Object.values(docs).every(isDocument))
    throw new Error(
      `${input} must export \`openapi\` (or a default export): the OpenAPI documents by version, the versioning plugin, or a function answering either`,
    );
  return docs;
}

function isDocument(value: unknown): value is OpenApiDocument {
  return typeof value === 'object' && value !== null && typeof (value as { openapi?: unknown }).openapi === 'string';
}

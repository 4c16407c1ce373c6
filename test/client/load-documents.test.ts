import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocuments, runCli } from '@crudsmith/client/generate';

// The generator's input as a module of the app: the documents by version, the versioning
// plugin's shape, or a function answering either; anything else is refused with what to
// export, and a version that is not a file name never becomes one.

const doc = (version: string) => ({ openapi: '3.1.0', info: { title: 't', version }, paths: {} });
const dir = mkdtempSync(join(tmpdir(), 'crudsmith-load-'));
const module = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('loadDocuments from a module', () => {
  it('reads documents by version, the versioning plugin, or a function answering either', async () => {
    const record = module('record.mjs', `export const openapi = ${JSON.stringify({ v1: doc('v1') })};`);
    expect(Object.keys(await loadDocuments(record))).toEqual(['v1']);
    const plugin = module(
      'plugin.mjs',
      `export default async () => ({ versions: [{ label: 'v1', openapi: ${JSON.stringify(doc('v1'))} }, { label: 'v2', openapi: ${JSON.stringify(doc('v2'))} }, { label: 'v3' }] });`,
    );
    expect(Object.keys(await loadDocuments(plugin))).toEqual(['v1', 'v2']);
    const cjs = module('app.cjs', `module.exports = { openapi: () => (${JSON.stringify({ v2: doc('v2') })}) };`);
    expect((await loadDocuments(cjs)).v2).toEqual(doc('v2'));
    const out = join(dir, 'out');
    mkdirSync(out);
    expect(await runCli(['generate', '--input', plugin, '--out-dir', out])).toBe(0);
    expect(readFileSync(join(out, 'v2.ts'), 'utf8')).toContain('version v2');
  });

  it('refuses a module without documents, and a version that is not a file name', async () => {
    const empty = module('empty.mjs', 'export const other = 1;');
    await expect(loadDocuments(empty)).rejects.toThrow(/must export `openapi` \(or a default export\)/);
    const sneaky = module('sneaky.mjs', `export const openapi = ${JSON.stringify({ '../up': doc('x') })};`);
    const lines: string[] = [];
    expect(await runCli(['generate', '--input', sneaky, '--out-dir', dir], (l) => lines.push(l))).toBe(2);
    expect(lines.join('\n')).toMatch(/the version "..\/up" is not a file name/);
  });
});

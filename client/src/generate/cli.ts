import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadDocuments } from './load';
import { generateModule } from './module';

const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const USAGE = [
  'usage: crudsmith-client generate --input <openapi.json|url|module> (--out <file.ts> [--version <label>] | --out-dir <dir>) [--check]',
  '  --input    an OpenAPI document (file or URL), or a module exporting `openapi`: the documents by version, the versioning plugin, or a function answering either',
  '  --out      the module of one version (--version picks it when the input has several)',
  '  --out-dir  one module per version, named <label>.ts',
  '  --check    write nothing; exit 1 when a file differs from what would be written',
].join('\n');

/**
 * `crudsmith-client generate`: writes the module of each version's document, or with
 * `--check` writes nothing and answers 1 when a file differs from what it would write.
 */
export async function runCli(argv: string[], log: (line: string) => void = console.error): Promise<number> {
  const [command, ...rest] = argv;
  const flag = (name: string) => {
    const at = rest.indexOf(name);
    return at >= 0 ? rest[at + 1] : undefined;
  };
  const input = flag('--input');
  const out = flag('--out');
  const outDir = flag('--out-dir');
  if (command !== 'generate' || !input || !out === !outDir) {
    log(USAGE);
    return 2;
  }
  const docs = await loadDocuments(input);
  const labels = Object.keys(docs).sort();
  // A label names a file under --out-dir: a path segment, never `..` or a separator.
  const odd = labels.find((label) => !LABEL.test(label));
  if (odd !== undefined) {
    log(`${input}: the version ${JSON.stringify(odd)} is not a file name (letters, digits, '.', '_' and '-')`);
    return 2;
  }
  let files: [string, string][];
  if (outDir) files = labels.map((label) => [join(outDir, `${label}.ts`), label]);
  else {
    const version = flag('--version') ?? (labels.length === 1 ? labels[0] : undefined);
    if (!version || !docs[version]) {
      log(`${input} has the versions ${labels.join(', ')}: pick one with --version, or write each with --out-dir`);
      return 2;
    }
    files = [[out!, version]];
  }
  const check = rest.includes('--check');
  let stale = 0;
  for (const [file, label] of files) {
    const text = generateModule(docs[label]);
    if (!check) await writeFile(file, text);
    else if ((await readFile(file, 'utf8').catch(() => undefined)) !== text) {
      log(`${file} is out of date with ${input}: run crudsmith-client generate again without --check`);
      stale++;
    }
  }
  return stale ? 1 : 0;
}

import { readFile, writeFile } from 'node:fs/promises';
import { generateModule, type OpenApiDocument } from './module';

const USAGE = 'usage: crudsmith-client generate --input <openapi.json|url> --out <file.ts> [--check]';

async function load(input: string): Promise<OpenApiDocument> {
  if (/^https?:\/\//.test(input)) {
    const response = await fetch(input, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`${input}: HTTP ${response.status}`);
    return (await response.json()) as OpenApiDocument;
  }
  return JSON.parse(await readFile(input, 'utf8')) as OpenApiDocument;
}

/**
 * `crudsmith-client generate`: writes the module of one version's document to `--out`, or
 * with `--check` writes nothing and answers 1 when the file differs from what it would write.
 */
export async function runCli(argv: string[], log: (line: string) => void = console.error): Promise<number> {
  const [command, ...rest] = argv;
  const flag = (name: string) => {
    const at = rest.indexOf(name);
    return at >= 0 ? rest[at + 1] : undefined;
  };
  const input = flag('--input');
  const out = flag('--out');
  if (command !== 'generate' || !input || !out) {
    log(USAGE);
    return 2;
  }
  const text = generateModule(await load(input));
  if (rest.includes('--check')) {
    const current = await readFile(out, 'utf8').catch(() => undefined);
    if (current === text) return 0;
    log(`${out} is out of date with ${input}: run crudsmith-client generate --input ${input} --out ${out}`);
    return 1;
  }
  await writeFile(out, text);
  return 0;
}

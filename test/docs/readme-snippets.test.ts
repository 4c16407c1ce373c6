import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Every ```ts block of the READMEs and of the guides in docs/ compiles as written: each block is written to a file of
// its own, and all of them are type-checked together in one TypeScript program (the one
// `tsc -p test/docs/.snippets/tsconfig.json` builds) against the packages' sources, through
// the root tsconfig's `paths`. A block whose first line starts with `// fragment` is a piece
// of a larger program, says what it leaves out, and is not checked; keep those few, since a
// reader copies examples as they stand.

const root = resolve(__dirname, '../..');
/** Where the blocks are written; git-ignored, and tsc's and eslint's globs skip dot folders. */
const outDir = join(root, 'test/docs/.snippets');
const FRAGMENT = '// fragment';

interface Snippet {
  /** The README or guide, relative to the repository root. */
  readme: string;
  /** Line of the README where the block's code starts (1-based). */
  line: number;
  file: string;
  code: string;
}

/** The guides: every Markdown file of docs/. */
function guides(): string[] {
  const dir = join(root, 'docs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
}

/** The README of the repository and of every package (core, adapters, plugins). */
function readmes(): string[] {
  const packages = ['adapters', 'plugins'].flatMap((dir) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${dir}/${entry.name}`),
  );
  return ['README.md', 'core/README.md', ...packages.map((p) => `${p}/README.md`)].filter((path) =>
    existsSync(join(root, path)),
  );
}

/** The TypeScript blocks of one README: code, where it starts, and whether it is a fragment. */
function tsBlocks(text: string): { line: number; code: string; fragment: boolean }[] {
  const lines = text.split('\n');
  const blocks: { line: number; code: string; fragment: boolean }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,})(ts|typescript)\s*$/.exec(lines[i]);
    if (!open) continue;
    const fence = new RegExp(`^\\s*${open[1]}\\s*$`);
    const start = i + 1;
    let end = start;
    while (end < lines.length && !fence.test(lines[end])) end++;
    const code = lines.slice(start, end).join('\n');
    blocks.push({ line: start + 1, code, fragment: code.trimStart().startsWith(FRAGMENT) });
    i = end;
  }
  return blocks;
}

function snippets(): { checked: Snippet[]; fragments: Snippet[] } {
  const checked: Snippet[] = [];
  const fragments: Snippet[] = [];
  for (const readme of [...readmes(), 'examples/app/README.md', ...guides()].filter((path) =>
    existsSync(join(root, path)),
  )) {
    const name =
      readme === 'README.md'
        ? 'root'
        : readme
            .replace(/\/README\.md$/, '')
            .replace(/\.md$/, '')
            .replaceAll('/', '-');
    tsBlocks(readFileSync(join(root, readme), 'utf8')).forEach((block, index) => {
      const snippet = { readme, line: block.line, file: `${name}-${index + 1}.ts`, code: block.code };
      (block.fragment ? fragments : checked).push(snippet);
    });
  }
  return { checked, fragments };
}

/**
 * Writes the blocks and type-checks them in one program; answers each error located in its
 * README, by block (`null`: an error outside the blocks).
 */
function typeCheck(checked: Snippet[]): Map<Snippet | null, string[]> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // CommonJS, as the README's tsconfig compiles a project whose package.json has no
  // "type" (so no top-level await); `export {}` keeps a block without imports a module of
  // its own, so blocks never share names.
  for (const s of checked) writeFileSync(join(outDir, s.file), `${s.code}\nexport {};\n`);
  writeFileSync(
    join(outDir, 'tsconfig.json'),
    JSON.stringify({
      extends: relative(outDir, join(root, 'tsconfig.json')),
      compilerOptions: { noEmit: true, noUnusedLocals: false, noUnusedParameters: false },
      include: ['*.ts'],
      exclude: [],
    }),
  );
  // One program over every block, as `tsc -p test/docs/.snippets/tsconfig.json` builds it;
  // only the blocks are checked here (the packages' own sources are the typecheck's job).
  const configPath = join(outDir, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(flatten(d));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const byFile = new Map(checked.map((s) => [join(outDir, s.file), s]));
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program
      .getSourceFiles()
      .filter((f) => byFile.has(resolve(f.fileName)))
      .flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  const errors = new Map<Snippet | null, string[]>();
  for (const d of diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error)) {
    const snippet = d.file ? (byFile.get(resolve(d.file.fileName)) ?? null) : null;
    errors.set(snippet, [...(errors.get(snippet) ?? []), describeError(d, snippet)]);
  }
  return errors;
}

function describeError(d: ts.Diagnostic, snippet: Snippet | null): string {
  const code = `TS${d.code}: ${flatten(d)}`;
  if (!d.file || d.start === undefined) return code;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  if (!snippet) return `${relative(root, d.file.fileName)}:${line + 1}:${character + 1} ${code}`;
  return `${snippet.readme}:${snippet.line + line}:${character + 1} (test/docs/.snippets/${snippet.file}:${line + 1}) ${code}`;
}

function flatten(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n    ');
}

describe('README and guide code blocks', () => {
  const { checked, fragments } = snippets();

  it('finds blocks in every package README, each opening with a complete (checked) example', () => {
    for (const readme of readmes().filter((r) => r !== 'README.md')) {
      const first = [...checked, ...fragments].filter((s) => s.readme === readme).sort((a, b) => a.line - b.line)[0];
      expect(first, `${readme} has no TypeScript example`).toBeDefined();
      expect(fragments, `${readme}: its first example is marked as a fragment`).not.toContain(first);
    }
  });

  it('each package README is complete on its own: its peer ranges, and a tsconfig with experimentalDecorators', () => {
    const core = JSON.parse(readFileSync(join(root, 'core/package.json'), 'utf8'));
    // Every package needs core's peers, except the optional ones (such as the S3 client of
    // `@crudsmith/core/s3`), which only core's own README must state.
    const optional = (name: string) => Boolean(core.peerDependenciesMeta?.[name]?.optional);
    const corePeers = Object.fromEntries(
      Object.entries(core.peerDependencies as Record<string, string>).filter(([name]) => !optional(name)),
    );
    for (const readme of readmes().filter((r) => r !== 'README.md')) {
      const text = readFileSync(join(root, readme), 'utf8');
      const manifest = JSON.parse(readFileSync(join(root, readme.replace(/README\.md$/, 'package.json')), 'utf8'));
      for (const [name, range] of Object.entries({ ...corePeers, ...manifest.peerDependencies } as Record<
        string,
        string
      >)) {
        expect(text, `${readme} states the range of ${name}`).toContain(`\`${name}\` \`${range}\``);
      }
      expect(text, readme).toContain('"experimentalDecorators": true');
      expect(text, `${readme} sends the reader to another README for its settings`).not.toContain('crudsmith#readme');
    }
  });

  it('finds the guides of docs/, one per task a user has', () => {
    const tasks = [
      'existing-app',
      'declaring',
      'filters',
      'relationships',
      'server-side-fields',
      'dependencies',
      'pagination',
      'wire-format',
      'production',
    ];
    expect(guides()).toEqual(expect.arrayContaining(tasks.map((task) => `docs/${task}.md`)));
  });

  it('type-checks every block that is not marked as a fragment', () => {
    const failures = [...typeCheck(checked).values()].flat();
    expect(
      failures,
      `README and guide code blocks that do not compile (run \`npx tsc -p test/docs/.snippets/tsconfig.json\` to see them all):\n${failures.join('\n')}`,
    ).toEqual([]);
  }, 90_000);
});

import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

// A user's project, made outside the repository from the packed tarballs and installed
// with `npm ci --offline`: nothing is downloaded and nothing links back into the repository.
// npm ci can install offline (its tarballs are in npm's cache since the repository's own
// install) but cannot resolve a version range without registry metadata, so the project
// gets a lockfile: the closure of the third-party packages it needs, taken from the
// repository's package-lock.json (the versions every other suite tests), plus one entry
// per tarball.

export const repoRoot = resolve(__dirname, '..', '..');

/** What `npm pack --json` reports of one package. */
export interface Packed {
  name: string;
  version: string;
  filename: string;
  integrity: string;
  files: { path: string }[];
  /** Its folder in the repository, and its package.json there. */
  dir: string;
  manifest: Manifest;
}

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  main?: string;
  types?: string;
  exports?: Record<string, string | Record<string, string>>;
  typesVersions?: Record<string, Record<string, string[]>>;
  files?: string[];
  engines?: Record<string, string>;
  repository?: { type: string; url: string; directory?: string };
  sideEffects?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin?: Record<string, string>;
}

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  os?: string[];
  cpu?: string[];
  [key: string]: unknown;
}

interface Lockfile {
  packages: Record<string, LockEntry>;
}

export interface Run {
  stdout: string;
  stderr: string;
}

/**
 * The environment of every tool the test starts: none of the test runner's NODE_OPTIONS
 * (a loader would hide what plain node does) and none of `npm test`'s npm_* settings
 * (they describe the repository's workspace, not the user's project).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      key === 'NODE_OPTIONS' ||
      key.toLowerCase().startsWith('npm_') ||
      key.startsWith('VITEST') ||
      key === 'TSX_TSCONFIG_PATH'
    )
      continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to its end; a failure (or a missing tool) throws with everything it printed. */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) =>
      fail(new Error(`${command} could not start (${error.message}): the packaging test needs it`)),
    );
    child.on('close', (code) => {
      if (code === 0) done({ stdout, stderr });
      else
        fail(new Error(`${command} ${args.join(' ')} failed (exit ${code}) in ${options.cwd}\n${stdout}\n${stderr}`));
    });
  });
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** The folders `npm run build` builds: the references of tsconfig.build.json. */
export function publishableDirs(): string[] {
  const file = join(repoRoot, 'tsconfig.build.json');
  const { config, error } = ts.parseConfigFileTextToJson(file, readFileSync(file, 'utf8'));
  if (error) throw new Error(`tsconfig.build.json: ${ts.flattenDiagnosticMessageText(error.messageText, '\n')}`);
  return (config.references as { path: string }[]).map((reference) => dirname(reference.path));
}

export function manifestOf(dir: string): Manifest {
  return readJson<Manifest>(join(repoRoot, dir, 'package.json'));
}

/** Builds every package, then packs each into `dest` (no scripts: the build just ran). */
export async function buildAndPack(dest: string): Promise<Packed[]> {
  await run('npm', ['run', 'build'], { cwd: repoRoot });
  mkdirSync(dest, { recursive: true });
  const dirs = publishableDirs();
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', dest, ...dirs.flatMap((dir) => ['-w', dir])],
    { cwd: repoRoot },
  );
  const reports = JSON.parse(stdout) as Omit<Packed, 'dir' | 'manifest'>[];
  return dirs.map((dir) => {
    const manifest = manifestOf(dir);
    const report = reports.find((r) => r.name === manifest.name);
    if (!report) throw new Error(`npm pack reported nothing for ${manifest.name}`);
    return { ...report, dir, manifest };
  });
}

/** The package name of a lockfile path (`node_modules/a/node_modules/@s/b` → `@s/b`). */
function nameAt(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** Where the registry keeps a version's tarball. */
function tarballUrl(name: string, version: string): string {
  const registry = (process.env.npm_config_registry ?? 'https://registry.npmjs.org/').replace(/\/?$/, '/');
  return `${registry}${name}/-/${name.split('/').pop()}-${version}.tgz`;
}

/** Where node would find `name` from the package at `from`, in the repository's lockfile. */
function locate(lock: Lockfile, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const nested = base.lastIndexOf('/node_modules/');
    base = nested >= 0 ? base.slice(0, nested) : '';
  }
}

function fitsPlatform(entry: LockEntry): boolean {
  const fits = (list: string[] | undefined, value: string) =>
    !list || (list.some((item) => !item.startsWith('!')) ? list.includes(value) : !list.includes(`!${value}`));
  return fits(entry.os, process.platform) && fits(entry.cpu, process.arch);
}

// Whether the repository's install is only a dev, optional or peer one says nothing of the
// user's project: there, every package is a plain dependency.
const FLAGS = ['dev', 'devOptional', 'optional', 'peer', 'extraneous', 'inBundle'];

/**
 * The lockfile entries (at their paths in the user's project) of everything `roots` and
 * the packed packages need: dependencies, optional dependencies that fit this platform,
 * and required peers, each found where node would find it from its dependent.
 */
export function lockClosure(roots: string[], packed: Packed[]): Record<string, LockEntry> {
  const lock = readJson<Lockfile>(join(repoRoot, 'package-lock.json'));
  const workspaces = new Map(packed.map((p) => [p.dir, `node_modules/${p.name}`]));
  // A workspace's own nested node_modules lands under its package in the user's project.
  const target = (path: string) => {
    const slash = path.indexOf('/node_modules/');
    const head = slash >= 0 ? path.slice(0, slash) : path;
    const mapped = workspaces.get(head);
    return mapped ? mapped + path.slice(head.length) : path;
  };
  const out: Record<string, LockEntry> = {};
  const seen = new Set<string>();
  const visit = (from: string, name: string, optional: boolean) => {
    const path = locate(lock, from, name);
    if (!path) {
      if (optional) return;
      throw new Error(`${name} (needed by ${from || 'the project'}) is not in package-lock.json`);
    }
    const entry = lock.packages[path];
    // Our own packages come from their tarballs.
    if (entry.link || workspaces.has(path)) return;
    if (optional && !fitsPlatform(entry)) return;
    if (seen.has(path)) return;
    seen.add(path);
    const copy: LockEntry = { ...entry };
    for (const flag of FLAGS) delete copy[flag];
    // The repository's lockfile names no tarball URLs (omit-lockfile-registry-resolved),
    // and without one npm needs the registry's metadata to find the tarball, which an
    // offline install may not have. With the URL and the integrity it takes the tarball
    // from its cache.
    copy.resolved ??= tarballUrl(entry.name ?? nameAt(path), entry.version!);
    if (optional) copy.optional = true;
    out[target(path)] = copy;
    walk(path, entry);
  };
  const walk = (path: string, entry: LockEntry) => {
    for (const name of Object.keys(entry.dependencies ?? {})) visit(path, name, false);
    for (const name of Object.keys(entry.optionalDependencies ?? {})) visit(path, name, true);
    for (const name of Object.keys(entry.peerDependencies ?? {})) {
      if (!entry.peerDependenciesMeta?.[name]?.optional) visit(path, name, false);
    }
  };
  for (const root of roots) visit('', root, false);
  for (const p of packed) walk(p.dir, { dependencies: p.manifest.dependencies });
  return out;
}

/** The exact version the repository installed (and tests) of a third-party package. */
export function lockedVersion(name: string): string {
  const entry = readJson<Lockfile>(join(repoRoot, 'package-lock.json')).packages[`node_modules/${name}`];
  if (!entry?.version) throw new Error(`${name} is not installed at the root of package-lock.json`);
  return entry.version;
}

/**
 * Writes the user's project (package.json and package-lock.json: the tarballs plus `roots`
 * at the repository's versions) and installs it offline, without install scripts.
 */
export async function installProject(
  project: string,
  packDir: string,
  packed: Packed[],
  roots: string[],
): Promise<void> {
  mkdirSync(project, { recursive: true });
  const tarball = (p: Packed) => `file:${relative(project, join(packDir, p.filename))}`;
  const dependencies: Record<string, string> = {};
  for (const p of packed) dependencies[p.name] = tarball(p);
  for (const name of roots) dependencies[name] = lockedVersion(name);
  const manifest = { name: 'crudsmith-consumer', version: '1.0.0', private: true, dependencies };
  const packages: Record<string, LockEntry> = { '': { name: manifest.name, version: manifest.version, dependencies } };
  for (const p of packed) {
    const m = p.manifest;
    packages[`node_modules/${p.name}`] = {
      version: p.version,
      resolved: tarball(p),
      integrity: p.integrity,
      license: m.license,
      dependencies: m.dependencies,
      peerDependencies: m.peerDependencies,
      peerDependenciesMeta: m.peerDependenciesMeta,
      engines: m.engines,
      // npm ci links node_modules/.bin from the lockfile's entries, not from the tarballs.
      bin: m.bin,
    };
  }
  Object.assign(packages, lockClosure(roots, packed));
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(project, 'package-lock.json'),
    JSON.stringify(
      { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages },
      null,
      2,
    ),
  );
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: project });
  // better-sqlite3 builds its native addon in an install script, from source on this
  // machine (there is no prebuilt binary to download, and the install is offline and
  // without scripts): the repository's build of the same version is the one the user's
  // install would make.
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(join(repoRoot, addon)))
    throw new Error(`${addon} is missing in the repository: run npm ci there first`);
  mkdirSync(dirname(join(project, addon)), { recursive: true });
  copyFileSync(join(repoRoot, addon), join(project, addon));
}

import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { Engine } from '../lib/db';
import type { RequestKind } from './load';
import type { Peer } from './protocol';

// What the suites that run the peers (peers, http-taught) share: installing bench/peers,
// the table default the Nest app relies on, and crudsmith's requests in each peer's own
// query syntax.

const PEERS_DIR = join(__dirname, '..', 'peers');

/** The peers a suite runs, each once per engine. */
export const PEERS: readonly Peer[] = ['feathers', 'nest'];

/** Installs bench/peers from its lockfile unless it is there, and builds the Nest app unless its build is current. */
export function installPeers(): void {
  if (
    !existsSync(join(PEERS_DIR, 'node_modules', '@feathersjs', 'knex')) ||
    !existsSync(join(PEERS_DIR, 'node_modules', '@dataui', 'crud'))
  ) {
    console.log('  installing the peers: npm ci in bench/peers');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS_DIR, stdio: 'inherit' });
  }
  const built = join(PEERS_DIR, 'dist', 'nest-app.js');
  if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(PEERS_DIR, 'nest-app.ts')).mtimeMs) {
    console.log('  building the Nest app: tsc -p bench/peers/tsconfig.build.json');
    execFileSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', join(PEERS_DIR, 'tsconfig.build.json')],
      { stdio: 'inherit' },
    );
  }
}

/**
 * What the Nest app's own migration declares for its CreateDateColumn (TypeORM inserts
 * DEFAULT there); the other sides always write the creation time themselves.
 */
export async function allowNestCreates(knex: Knex, engine: Engine): Promise<void> {
  if (engine === 'postgres') await knex.raw('alter table items alter column created_at set default now()');
}

type Request = ReturnType<RequestKind['next']>;

/** crudsmith's list query in @dataui/crud's syntax: `filter=col||$op||value`, `sort=col,DESC`. */
function nestRequest(request: Request): Request {
  const [path, search] = request.path.split('?');
  if (search === undefined) return request;
  const query = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(search)) {
    if (key === 'price__gte') query.append('filter', `price||$gte||${value}`);
    else if (key === 'sort')
      query.append('sort', `${value.replace(/^-/, '')},${value.startsWith('-') ? 'DESC' : 'ASC'}`);
    else if (key === 'offset' || key === 'limit') query.append(key, value);
    else query.append('filter', `${key}||$eq||${value}`);
  }
  return { ...request, path: `${path}?${query}` };
}

/** crudsmith's list query in Feathers' syntax: `price[$gte]`, `$sort`, `$skip`, `$limit`. */
function feathersRequest(request: Request): Request {
  const [path, search] = request.path.split('?');
  if (search === undefined) return request;
  const query = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(search)) {
    if (key === 'price__gte') query.append('price[$gte]', value);
    else if (key === 'sort') query.append(`$sort[${value.replace(/^-/, '')}]`, value.startsWith('-') ? '-1' : '1');
    else if (key === 'offset') query.append('$skip', value);
    else if (key === 'limit') query.append('$limit', value);
    else query.append(key, value);
  }
  return { ...request, path: `${path}?${query}` };
}

/** A request sequence in a peer's own syntax (the same requests, the same order). */
export function peerKind(kind: RequestKind, peer: Peer): RequestKind {
  const translate = peer === 'feathers' ? feathersRequest : nestRequest;
  return { ...kind, next: () => translate(kind.next()) };
}

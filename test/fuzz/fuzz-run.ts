// Runs the fuzz: for every operation of the documents, a bounded number of generated
// requests (fast-check), each answer judged against the operation's documentation.
// Failures are collected, not thrown at the first, so one run shows them all.
import { request } from 'node:http';
import fc from 'fast-check';
import { answerProblem, type Received } from './answer-check';
import type { Callers } from './callers';
import { requestsFor, type FuzzRequest, type KnownValues } from './fuzz-request';
import type { Operation } from './operations';

/** How long and how hard to fuzz (environment: FUZZ_SEED, FUZZ_RUNS, FUZZ_SECONDS, FUZZ_SLOW_MS, FUZZ_ONLY). */
export interface FuzzSettings {
  /** Every operation's seed derives from it, so a run replays (default: random, printed). */
  seed: number;
  /** Requests per operation per round (default 3). */
  runs: number;
  /** Keep starting rounds until this many seconds have passed (default 0: one round). */
  seconds: number;
  /** An answer slower than this fails (default 5000 ms). */
  slowMs: number;
  /** Only operations whose operationId contains this. */
  only?: string;
}

/** The settings from the environment. */
export function fuzzSettings(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const number = (name: string, fallback: number) => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    if (!/^-?\d+$/.test(value)) throw new Error(`${name}=${value} is not an integer`);
    return Number(value);
  };
  return {
    seed: number('FUZZ_SEED', Math.floor(Math.random() * 2 ** 31)),
    runs: number('FUZZ_RUNS', 3),
    seconds: number('FUZZ_SECONDS', 0),
    slowMs: number('FUZZ_SLOW_MS', 5000),
    only: env.FUZZ_ONLY || undefined,
  };
}

/** A server to fuzz. */
export interface FuzzTarget {
  /** `http://host:port`. */
  base: string;
  callers: Callers;
  known: KnownValues;
  /** Names the target in messages (adapter and engine). */
  label: string;
}

/** The seed of one operation in one round: a stable hash of the run's seed and the operation. */
function operationSeed(seed: number, round: number, op: Operation): number {
  let hash = 0x811c9dc5;
  for (const char of `${seed}/${round}/${op.document}/${op.operationId}`)
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash | 0;
}

/** Sends one request with node:http (fetch refuses a body on GET), within `timeoutMs`. */
function send(base: string, req: FuzzRequest, headers: Record<string, string>, timeoutMs: number): Promise<Received> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    const outgoing = request(
      `${base}${req.url}`,
      {
        method: req.method,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString(),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** One failure: where, what was sent, what came back, and how to replay it. */
export interface FuzzFailure {
  operation: string;
  message: string;
}

/** What a fuzz run found: its failures, and how often each operation answered each status. */
export interface FuzzOutcome {
  failures: FuzzFailure[];
  statuses: Map<string, Map<number, number>>;
}

/** Fuzzes every operation (rounds until `settings.seconds` pass); answers the failures found. */
export async function fuzzOperations(
  target: FuzzTarget,
  operations: Operation[],
  settings: FuzzSettings,
): Promise<FuzzOutcome> {
  const chosen = operations.filter((op) => !settings.only || op.operationId.includes(settings.only));
  const failures: FuzzFailure[] = [];
  const statuses = new Map<string, Map<number, number>>();
  const count = (op: Operation, status: number) => {
    const key = `${op.document} ${op.operationId}`;
    const seen = statuses.get(key) ?? statuses.set(key, new Map()).get(key)!;
    seen.set(status, (seen.get(status) ?? 0) + 1);
  };
  const deadline = Date.now() + settings.seconds * 1000;
  for (let round = 0; round === 0 || Date.now() < deadline; round++) {
    for (const op of chosen) {
      if (failures.some((f) => f.operation === op.operationId)) continue;
      const seed = operationSeed(settings.seed, round, op);
      const property = fc.asyncProperty(requestsFor(op, target.known), async (req) => {
        const credentials = await target.callers.headers(req.caller, req.method);
        let answer: Received;
        try {
          answer = await send(target.base, req, { ...req.headers, ...credentials, ...req.forged }, settings.slowMs * 2);
        } catch (error) {
          throw new Error(`${describe(op, req)}\n  no answer: ${(error as Error).message}`, { cause: error });
        }
        count(op, answer.status);
        if (answer.status === 401 && req.caller.who !== 'anonymous' && Object.keys(req.forged).length === 0)
          target.callers.refused(req.caller);
        learnCursor(target.known, answer);
        learnCreated(target.known, op, answer);
        const problem = answerProblem(op, answer, settings.slowMs);
        if (problem) throw new Error(`${describe(op, req)}\n  ${problem}\n  body: ${answer.text.slice(0, 600)}`);
      });
      const result = await fc.check(property, { seed, numRuns: settings.runs, endOnFailure: true });
      if (result.failed) {
        const why = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        failures.push({
          operation: op.operationId,
          message: `[${target.label}] ${why}\n  replay: FUZZ_SEED=${settings.seed} FUZZ_ONLY=${op.operationId} (round ${round}, operation seed ${seed})`,
        });
      }
    }
    if (settings.seconds === 0) break;
  }
  return { failures, statuses };
}

/** One line per operation: how often it answered each status. */
export function statusSummary(statuses: FuzzOutcome['statuses']): string {
  return [...statuses]
    .map(
      ([op, seen]) =>
        `${op}: ${[...seen]
          .sort(([a], [b]) => a - b)
          .map(([status, n]) => `${status}×${n}`)
          .join(' ')}`,
    )
    .join('\n');
}

// Cursors the app issued, so later requests send real ones (and others' to other lists).
function learnCursor(known: KnownValues, answer: Received): void {
  const match = /"next_cursor":"([^"]{1,2000})"/.exec(answer.text);
  if (!match) return;
  const cursors = (known.cursor ??= []);
  if (!cursors.includes(match[1])) cursors.push(match[1], `${match[1].slice(0, -2)}A${match[1].slice(-1)}`);
  if (cursors.length > 40) cursors.splice(0, cursors.length - 40);
}

// A row a create answered (201 with an id) becomes a known value of the parameter that
// names it in the collection's item path (`/items` → `/items/{id}`), so later requests
// reach live rows rather than only the few made at start.
function learnCreated(known: KnownValues, op: Operation, answer: Received): void {
  if (op.method !== 'POST' || answer.status !== 201) return;
  const id = /^\{"id":(\d{1,15})[,}]/.exec(answer.text)?.[1] ?? /"id":(\d{1,15})[,}]/.exec(answer.text)?.[1];
  if (!id) return;
  const collection = op.path.replace(/\/$/, '');
  const itemPath = Object.keys(op.root.paths ?? {}).find(
    (path) => path.startsWith(`${collection}/{`) && path.indexOf('}') === path.length - 1,
  );
  const name = itemPath?.slice(collection.length + 2, -1);
  if (!name) return;
  const values = (known[name] ??= []);
  if (!values.includes(id)) values.push(id);
  if (values.length > 40) values.splice(0, values.length - 40);
}

function describe(op: Operation, req: FuzzRequest): string {
  const body =
    req.body === undefined
      ? ''
      : ` body(${req.body.length}): ${(typeof req.body === 'string' ? req.body : `<${req.body.length} bytes>`).slice(0, 200)}`;
  return `${op.document} ${op.operationId}: ${req.method} ${req.url.slice(0, 300)} as ${req.caller.who}/${req.caller.transport} [${req.kind}] ${JSON.stringify({ ...req.headers, ...req.forged }).slice(0, 400)}${body}`;
}

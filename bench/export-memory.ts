import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ENGINES, openDatabase, type Engine } from './lib/db';
import { createItems, seedItems } from './lib/items';
import { formatTable, type Column } from './lib/table';
import type { Suite } from './lib/suite';
import type { MemoryPeaks } from './http/protocol';
import { startServer, stopServers, type ServerProcess } from './http/server';

// The export's memory: one crudsmith server (Koa, the bench item with `export: true`,
// keyset pages of 500) streams the whole table while a client here reads every byte, and
// the server reports the highest resident set and V8 heap it reached. The table grows
// from 10,000 to 1,000,000 rows under the same server; a streamed export should peak
// alike at every size, so each peak is also given as a ratio to the smallest size's.

const SIZES = (process.env.BENCH_EXPORT_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const FORMATS = ['csv', 'ndjson'] as const;

/** One export measured: the server's peaks while it streamed `rows` rows. */
export interface MemoryRow {
  engine: Engine;
  format: (typeof FORMATS)[number];
  size: number;
  rows: number;
  megabytes: number;
  seconds: number;
  peaks: MemoryPeaks;
  /** The heap in use after a full collection once the export ended (bytes). */
  after: number;
  /** The smallest size's peaks, for the ratios. */
  first?: MemoryPeaks;
}

/** Reads a whole export, answering its byte and line counts. */
function readExport(port: number, format: string): Promise<{ bytes: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/items/export?format=${format}` }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ bytes, lines }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function measure(server: ServerProcess, format: MemoryRow['format'], live: number) {
  await server.ask({ type: 'memory', reset: true }, 'memory');
  const start = performance.now();
  const { bytes, lines } = await readExport(server.port, format);
  const seconds = (performance.now() - start) / 1000;
  const { peaks } = await server.ask({ type: 'memory', reset: false }, 'memory');
  // What the export left behind: the heap in use once garbage is collected again.
  const after = (await server.ask({ type: 'memory', reset: true }, 'memory')).peaks.heap;
  // No seeded cell holds a line break: NDJSON has a line per row, CSV one more (its header).
  const rows = format === 'csv' ? lines - 1 : lines;
  if (rows !== live) throw new Error(`the ${format} export answered ${rows} rows, ${live} are live`);
  return { rows, megabytes: bytes / 1e6, seconds, peaks, after };
}

async function runEngine(engine: Engine): Promise<MemoryRow[]> {
  const db = await openDatabase(engine);
  if (!db) return [];
  const rows: MemoryRow[] = [];
  let server: ServerProcess | undefined;
  try {
    await createItems(db.knex);
    if (engine === 'sqlite') await db.knex.raw('PRAGMA journal_mode = WAL');
    server = await startServer({ framework: 'koa', side: 'crudsmith', engine, connection: db.connection }, [
      '--expose-gc',
    ]);
    let seeded = 0;
    for (const size of SIZES) {
      const started = performance.now();
      await seedItems(db.knex, size - seeded, seeded);
      seeded = size;
      if (engine === 'postgres') await db.knex.raw('ANALYZE items');
      const seedS = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`  ${engine}: ${size.toLocaleString('en-US')} rows (seeded in ${seedS} s)`);
      const live = Number((await db.knex('items').where({ is_deleted: false }).count({ n: '*' }))[0].n);
      // The first size is exported once untimed per format, so that loading and compiling
      // the code falls on no measured peak.
      if (size === SIZES[0]) for (const format of FORMATS) await measure(server, format, live);
      for (const format of FORMATS) {
        const result = await measure(server, format, live);
        const first = rows.find((r) => r.engine === engine && r.format === format)?.peaks;
        rows.push({ engine, format, size, first, ...result });
        console.log(`    ${format}: ${line(rows[rows.length - 1])}`);
      }
    }
  } finally {
    if (server) await stopServers([server.child]);
    await db.close();
  }
  return rows;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const ratio = (row: MemoryRow, key: 'rss' | 'heap') => (row.peaks[key] / (row.first ?? row.peaks)[key]).toFixed(2);

function line(row: MemoryRow): string {
  return `peak rss ${mb(row.peaks.rss)} MiB (${ratio(row, 'rss')}×), peak heap ${mb(row.peaks.heap)} MiB (${ratio(row, 'heap')}×), ${mb(row.after)} MiB after gc, ${row.megabytes.toFixed(1)} MB in ${row.seconds.toFixed(1)} s`;
}

const columns: Column<MemoryRow>[] = [
  { title: 'engine', value: (r) => r.engine },
  { title: 'format', value: (r) => r.format },
  { title: 'table rows', value: (r) => r.size.toLocaleString('en-US'), right: true },
  { title: 'exported', value: (r) => r.rows.toLocaleString('en-US'), right: true },
  { title: 'MB sent', value: (r) => r.megabytes.toFixed(1), right: true },
  { title: 's', value: (r) => r.seconds.toFixed(1), right: true },
  { title: 'rss at start', value: (r) => mb(r.peaks.baseRss), right: true },
  { title: 'peak rss MiB', value: (r) => mb(r.peaks.rss), right: true },
  { title: 'rss ratio', value: (r) => ratio(r, 'rss'), right: true },
  { title: 'heap at start', value: (r) => mb(r.peaks.baseHeap), right: true },
  { title: 'peak heap MiB', value: (r) => mb(r.peaks.heap), right: true },
  { title: 'heap ratio', value: (r) => ratio(r, 'heap'), right: true },
  { title: 'heap after gc', value: (r) => mb(r.after), right: true },
];

/** `npm run bench -- export-memory`: the export server's memory peaks from 10,000 to 1,000,000 rows. */
export const exportMemorySuite: Suite<MemoryRow> = {
  name: 'export-memory',
  async run() {
    const rows: MemoryRow[] = [];
    for (const engine of ENGINES) rows.push(...(await runEngine(engine)));
    return rows;
  },
  table: (rows) => formatTable(columns, rows),
};

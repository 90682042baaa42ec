// Benchmark of the file store (issue 10). Run: npm run bench (builds first).
// For the file store with 100 and with 100,000 payouts stored (the data file seeded directly by the
// project's own code: bench/seed.js), the real CLI pinned to CPU 0 (taskset, when present) is
// driven by autocannon from this process: initialize V2 and the status check, 16 and 64 in
// flight, a warm-up then BENCH_SECONDS (default 10) each. Bare Express 5 answering similar JSON
// bodies (bench/bare-express.js) is measured in the same run as the baseline. Also: start-up to the
// first healthy answer, data file and log sizes, RSS after the load, and, in-process, how long a
// compaction of the 100k store blocks the event loop. Every request goes to 127.0.0.1.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openSandbox } from '../dist/index.js';
import { firstLine, initializeBody, load, pinned } from './lib.js';
import { seedDataFile } from './seed.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = [16, 64];
const SIZES = [100, 100_000];
const CAPS = ['--max-records', '100000000', '--max-records-per-merchant', '10000000'];

const rssMiB = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
const mib = (bytes) => Math.round((bytes / 1024 ** 2) * 10) / 10;
const sizeOf = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

async function measure(base, headers, account, ref) {
  const out = {};
  for (const connections of CONNECTIONS) {
    out[`initialize@${connections}`] = await load(`${base}/api/v2/public/payment/transfer`, {
      method: 'POST', headers, connections, requests: [{ setupRequest: (req) => ({ ...req, body: initializeBody(account) }) }],
    }, SECONDS);
    out[`status@${connections}`] = await load(`${base}/api/v1/public/payment/transfer/status?ref_id=${ref}`, { headers, connections }, SECONDS);
  }
  return out;
}

async function bare() {
  const child = pinned(['bench/bare-express.js']);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  const base = `http://127.0.0.1:${port}`;
  const results = await measure(base, { 'content-type': 'application/json' }, 'X', '1234567890');
  child.kill('SIGTERM');
  await once(child, 'exit');
  return results;
}

async function fileStore(size, dir) {
  const data = join(dir, `db-${size}.json`);
  const seeding = performance.now();
  const seed = await seedDataFile(data, size);
  const seededMs = performance.now() - seeding;
  copyFileSync(data, join(dir, `copy-${size}.json`));
  const started = performance.now();
  const child = pinned(['bin/payout-sandbox.js', '--port', '0', '--data', data, '--clock', 'manual', '--no-rate-limits', '--log-level', 'silent', ...CAPS]);
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  for (let i = 0; i < 1000 && !(await fetch(`${base}/__sandbox/health`).then((r) => r.ok, () => false)); i++);
  const startup = performance.now() - started;
  const results = await measure(base, { ...seed.headers, 'content-type': 'application/json' }, seed.account, seed.ref);
  const rss = rssMiB(child.pid);
  const files = { data: sizeOf(data), log: sizeOf(`${data}.log`) };
  const stopping = performance.now();
  child.kill('SIGTERM');
  await once(child, 'exit');
  return { size, seed, seededMs, startup, results, rss, files, stopMs: performance.now() - stopping };
}

/** In-process: a compaction of the seeded store, with the event loop's longest stall meanwhile. */
async function compaction(dir, size) {
  const sb = await openSandbox({ data: join(dir, `copy-${size}.json`), clock: 'manual', logLevel: 'silent', rateLimits: false, maxRecords: 1e8, maxRecordsPerMerchant: 1e7 });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = performance.now();
  sb.store.state = sb.store.state; // a whole-state replacement: the next write is a compaction
  await sb.store.persist();
  const total = performance.now() - started;
  delay.disable();
  await sb.close();
  return { total, maxBlockMs: delay.max / 1e6 };
}

const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-bench-'));
try {
  const baseline = await bare();
  const runs = [];
  for (const size of SIZES) runs.push(await fileStore(size, dir));
  const compact = await compaction(dir, SIZES[SIZES.length - 1]);
  const rows = [];
  for (const [name, r] of Object.entries(baseline)) rows.push({ what: `bare Express ${name}`, rps: Math.round(r.rps), p50: r.p50, p99: r.p99, 'x bare rps': 1 });
  for (const run of runs) {
    for (const [name, r] of Object.entries(run.results)) {
      rows.push({ what: `file store, ${run.size} stored, ${name}`, rps: Math.round(r.rps), p50: r.p50, p99: r.p99, 'x bare rps': Math.round((r.rps / baseline[name].rps) * 100) / 100 });
    }
  }
  console.log(`file store vs bare Express 5, ${SECONDS} s per row (latency in ms)`);
  console.table(rows);
  const [small, big] = runs;
  const ratios = Object.keys(big.results).map((name) => ({ what: name, 'p99(100k) / p99(100)': Math.round((big.results[name].p99 / Math.max(1, small.results[name].p99)) * 100) / 100 }));
  console.table(ratios);
  console.table(runs.map((r) => ({
    stored: r.size, 'seeded (ms)': Math.round(r.seededMs), 'start-up to healthy (ms)': Math.round(r.startup), 'RSS after load (MiB)': r.rss,
    'data file (MiB)': mib(r.files.data), 'log (MiB)': mib(r.files.log), 'stop incl. compaction (ms)': Math.round(r.stopMs), ...r.seed.counts,
  })));
  console.log(`compaction of the ${SIZES[SIZES.length - 1]} store in-process: ${Math.round(compact.total)} ms in all, event loop blocked at most ${Math.round(compact.maxBlockMs)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

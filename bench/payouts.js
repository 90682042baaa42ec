// Benchmark of the file store (issue 10). Run: npm run bench (builds first).
// For the file store with 100 and with 100,000 payouts stored (the data file seeded directly by the
// project's own code: bench/seed.js), the real CLI is driven by autocannon from this process
// (neither pinned to a core: with the server pinned to one core, V8's parallel scavenges contend
// with their own helper threads there, which at 100k payouts' heap doubles p99, an artefact of
// the pinning that no user sees; bare Express runs the same way): initialize V2 and the status check, 16 and 64 in
// flight, a warm-up then BENCH_SECONDS (default 10) each. Bare Express 5 answering similar JSON
// bodies (bench/bare-express.js) is measured in the same run as the baseline. Also: start-up to the
// first healthy answer, data file and log sizes, RSS after the load, and, in-process, how long a
// compaction of the 100k store blocks the event loop. And one merchant's own control-API calls
// (its creation, snapshot, restore, reset and lists), one after another, on a store where another
// merchant holds all those payouts: each should cost what that merchant holds, whatever is stored.
// Every request goes to 127.0.0.1.
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openSandbox } from '../dist/index.js';
import { firstLine, initializeBody, load, unpinned as pinned } from './lib.js';
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

const OPERATIONS = {
  initialize: (base, seed, connections) =>
    load(
      `${base}/api/v2/public/payment/transfer`,
      {
        method: 'POST',
        headers: { ...seed.headers, 'content-type': 'application/json' },
        connections,
        requests: [{ setupRequest: (req) => ({ ...req, body: initializeBody(seed.account) }) }],
      },
      SECONDS,
    ),
  status: (base, seed, connections) =>
    load(`${base}/api/v1/public/payment/transfer/status?ref_id=${seed.ref}`, { headers: seed.headers, connections }, SECONDS),
};

async function bare() {
  const child = pinned(['bench/bare-express.js']);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  const base = `http://127.0.0.1:${port}`;
  const seed = { headers: {}, account: 'X', ref: '1234567890' };
  const results = {};
  for (const connections of CONNECTIONS) {
    for (const [name, run] of Object.entries(OPERATIONS)) results[`${name}@${connections}`] = await run(base, seed, connections);
  }
  child.kill('SIGTERM');
  await once(child, 'exit');
  return results;
}

/** The CLI on a fresh copy of the seeded file: start-up to the first healthy answer. */
async function startOn(seeded, data) {
  copyFileSync(seeded, data);
  rmSync(`${data}.log`, { force: true });
  const started = performance.now();
  const child = pinned(['bin/payout-sandbox.js', '--port', '0', '--data', data, '--clock', 'manual', '--no-rate-limits', '--log-level', 'silent', ...CAPS]);
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  for (
    let i = 0;
    i < 1000 &&
    !(await fetch(`${base}/__sandbox/health`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  );
  return { child, base, startup: performance.now() - started };
}

/** Each operation and load on its own fresh copy, so every row starts with exactly `size` payouts stored. */
async function fileStore(size, dir) {
  const seeded = join(dir, `seed-${size}.json`);
  const data = join(dir, `db-${size}.json`);
  const seeding = performance.now();
  const seed = await seedDataFile(seeded, size);
  const seededMs = performance.now() - seeding;
  const results = {};
  const rows = [];
  const merchant = await merchantCalls(seeded, data);
  for (const connections of CONNECTIONS) {
    for (const [name, run] of Object.entries(OPERATIONS)) {
      const { child, base, startup } = await startOn(seeded, data);
      results[`${name}@${connections}`] = await run(base, seed, connections);
      rows.push({ row: `${name}@${connections}`, startup, rss: rssMiB(child.pid), files: { data: sizeOf(data), log: sizeOf(`${data}.log`) } });
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  // A clean stop compacts the log into the data file.
  const { child } = await startOn(seeded, data);
  const stopping = performance.now();
  child.kill('SIGTERM');
  await once(child, 'exit');
  return { size, seed, seededMs, results, rows, merchant, stopMs: performance.now() - stopping };
}

const MERCHANT_CALLS = 20;

/**
 * One merchant's control-API calls, MERCHANT_CALLS of each, one after another, timed one by one
 * (p50 and max, ms): made on a fresh copy of the seeded store, whose payouts are another
 * merchant's.
 */
async function merchantCalls(seeded, data) {
  const { child, base } = await startOn(seeded, data);
  const control = `${base}/__sandbox`;
  const call = async (method, path, body) => {
    const r = await fetch(`${control}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await r.json();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const made = await call('POST', '/merchants', { clock: { mode: 'manual' } });
  const m = `/merchants/${made.merchant_id}`;
  const kinds = {
    'create a merchant': () => call('POST', '/merchants', {}),
    'snapshot it': (i) => call('POST', `${m}/snapshots`, { name: `s${i}` }),
    'restore its snapshot': (i) => call('POST', `${m}/snapshots/s${i}/restore`),
    'reset it': () => call('POST', `${m}/reset`),
    'list its payouts': () => call('GET', `${m}/payouts`),
    'list its beneficiaries': () => call('GET', `${m}/beneficiaries`),
    'list its webhooks': () => call('GET', `/webhooks?merchant_id=${made.merchant_id}`),
  };
  const out = {};
  for (const [kind, run] of Object.entries(kinds)) {
    const ms = [];
    for (let i = 0; i < MERCHANT_CALLS; i++) {
      const t = performance.now();
      await run(i);
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    out[kind] = { p50: Math.round(ms[Math.floor(ms.length / 2)] * 10) / 10, max: Math.round(ms[ms.length - 1] * 10) / 10 };
  }
  child.kill('SIGKILL');
  await once(child, 'exit');
  return out;
}

/** In-process: a compaction of the seeded store, with the event loop's longest stall meanwhile. */
async function compaction(dir, size) {
  const sb = await openSandbox({
    data: join(dir, `seed-${size}.json`),
    clock: 'manual',
    logLevel: 'silent',
    rateLimits: false,
    maxRecords: 1e8,
    maxRecordsPerMerchant: 1e7,
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = performance.now();
  const state = sb.store.state;
  sb.store.state = state; // a whole-state replacement: the next write is a compaction
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
  for (const [name, r] of Object.entries(baseline))
    rows.push({ what: `bare Express ${name}`, rps: Math.round(r.rps), p50: r.p50, p99: r.p99, 'x bare rps': 1 });
  for (const run of runs) {
    for (const [name, r] of Object.entries(run.results)) {
      rows.push({
        what: `file store, ${run.size} stored, ${name}`,
        rps: Math.round(r.rps),
        p50: r.p50,
        p99: r.p99,
        'x bare rps': Math.round((r.rps / baseline[name].rps) * 100) / 100,
      });
    }
  }
  console.log(`file store vs bare Express 5, ${SECONDS} s per row (latency in ms)`);
  console.table(rows);
  const [small, big] = runs;
  const ratios = Object.keys(big.results).map((name) => ({
    what: name,
    'p99(100k) / p99(100)': Math.round((big.results[name].p99 / Math.max(1, small.results[name].p99)) * 100) / 100,
  }));
  console.table(ratios);
  console.log(`one merchant's control-API calls, ${MERCHANT_CALLS} of each one after another (ms), another merchant holding the stored payouts`);
  console.table(
    Object.keys(big.merchant).map((kind) => ({
      call: kind,
      [`${small.size} stored p50`]: small.merchant[kind].p50,
      [`${small.size} stored max`]: small.merchant[kind].max,
      [`${big.size} stored p50`]: big.merchant[kind].p50,
      [`${big.size} stored max`]: big.merchant[kind].max,
    })),
  );
  console.table(
    runs.flatMap((r) =>
      r.rows.map((row) => ({
        stored: r.size,
        after: row.row,
        'start-up to healthy (ms)': Math.round(row.startup),
        'RSS after the load (MiB)': row.rss,
        'data file (MiB)': mib(row.files.data),
        'log (MiB)': mib(row.files.log),
      })),
    ),
  );
  console.table(
    runs.map((r) => ({ stored: r.size, 'seeded in (ms)': Math.round(r.seededMs), 'clean stop with compaction (ms)': Math.round(r.stopMs), ...r.seed.counts })),
  );
  console.log(
    `compaction of the ${SIZES[SIZES.length - 1]} store in-process: ${Math.round(compact.total)} ms in all, event loop blocked at most ${Math.round(compact.maxBlockMs)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

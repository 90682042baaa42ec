// Shared by the benchmark scripts: starting the CLI (or bare Express) as a child process pinned to
// CPU 0 when taskset is there, reading its banner, and driving it with autocannon.
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuSeconds, machine as host } from './fleet-lib.js';

export { cpuSeconds };

export const ROOT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** `node args…` in the repository, on CPU 0 when taskset is there (the load generator gets the other core); `options`: spawn's (stdio). */
export function pinned(args, options = {}) {
  return hasTaskset ? spawn('taskset', ['-c', '0', process.execPath, ...args], { cwd: ROOT_DIR, ...options }) : unpinned(args, options);
}

/** `node args…` in the repository, free to use every core (V8's parallel GC threads included). */
export function unpinned(args, options = {}) {
  return spawn(process.execPath, args, { cwd: ROOT_DIR, ...options });
}

/**
 * A warm-up (2 s unless `warmUp` says), then `seconds` of load: req/s, p50 and p99 in ms, and,
 * given the server's pid, the server's CPU milliseconds per 1,000 requests (less sensitive to a
 * busy machine than req/s). `measuring` is called between the two. Any non-2xx or error while
 * measured fails the run.
 */
export async function load(url, opts = {}, seconds = 10, pid = null, { warmUp = 2, measuring } = {}) {
  const connections = opts.connections ?? 50;
  await autocannon({ url, duration: warmUp, ...opts, connections });
  measuring?.();
  const before = pid === null ? null : cpuSeconds(pid);
  const r = await autocannon({ url, duration: seconds, ...opts, connections });
  const after = pid === null ? null : cpuSeconds(pid);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const cpuMsPer1k = before === null || after === null ? null : ((after - before) * 1e6) / r.requests.total;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMsPer1k };
}

/** The machine and the tree, printed beside every figure (and written with it). */
export function machine() {
  const git = (args) => spawnSync('git', args, { cwd: ROOT_DIR, encoding: 'utf8' }).stdout?.trim() ?? null;
  return {
    date: new Date().toISOString(),
    commit: git(['rev-parse', '--short', 'HEAD']) || null,
    tree_clean: git(['status', '--porcelain', '--untracked-files=no']) === '',
    ...host(),
    load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** One line of the machine, for a benchmark's output. */
export const machineLine = (m) =>
  `${m.date.slice(0, 10)}, commit ${m.commit}${m.tree_clean ? '' : ' (with uncommitted changes)'}; ${m.cpu_model}, ${m.cores} cores, ${Math.round(m.total_memory_bytes / 2 ** 30)} GiB, Node ${m.node}, Linux ${m.kernel}; load average ${m.load_average.join(' ')} at start`;

let seq = 0;
/** The sandbox as bench:http starts it, as a user does: memory store, manual clock, no rate limits, silent (the review, the journal and the scenario on). */
export const BENCH_SANDBOX = ['bin/payout-sandbox.js', '--port', '0', '--data', 'memory', '--log-level', 'silent', '--no-rate-limits', '--clock', 'manual'];

/** The sandbox the hot-path benchmarks load: as BENCH_SANDBOX, without the journal. */
export const HOT_PATH_SANDBOX = [...BENCH_SANDBOX, '--journal-size', '0'];

/** An initialize body: a new client_ref_id each time, always the same payee and amount (₹1). */
export function initializeBody(account) {
  seq += 1;
  return JSON.stringify({
    client_ref_id: `BENCH${process.pid}${String(seq).padStart(10, '0')}`,
    transfer_type: 'BANK',
    amount: 1,
    payment_method: '1001',
    debit_from: account,
    beneficiary_email: 'b@example.com',
    beneficiary_name: 'Bench Payee',
    account_number: '123456789012',
    ifsc_code: 'HDFC0000001',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'bench',
  });
}

const ROOT = new URL('..', import.meta.url);

/** Resolves with the first match of `pattern` in the child's stdout. */
export async function firstLine(child, pattern) {
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    const m = pattern.exec(out);
    if (m) return m;
  }
  throw new Error(`process ended before printing ${pattern}: ${out}`);
}

/** Starts `bin/payout-sandbox.js` with `args` (through `launcher`, e.g. taskset, when given) and waits for its API base URL. */
export async function startCliProcess(args, launcher = []) {
  const [cmd, ...pre] = launcher.length ? launcher : [process.execPath];
  const child = spawn(cmd, [...pre, ...(launcher.length ? [process.execPath] : []), 'bin/payout-sandbox.js', ...args], { cwd: ROOT });
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  return { child, base };
}

/** A merchant of the sandbox at base with room for any load, its request headers, and one payout initialized (to check the status of). */
export async function merchantWithPayout(base) {
  const m = await (
    await fetch(`${base}/__sandbox/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ balance: 1e12, per_transaction_limit: 1e6 }),
    })
  ).json();
  const headers = { ...m.headers, 'content-type': 'application/json' };
  const first = await (await fetch(`${base}/api/v2/public/payment/transfer`, { method: 'POST', headers, body: initializeBody(m.account_no) })).json();
  return { m, headers, first };
}

// --- the servers of the hot-path benchmarks (bench/http.js, bench/cpu-ab.js) ---------------------

/**
 * The headers every server gets, the sandbox's merchant's (the same request to each server: the
 * credentials cost the parser on all three, and only the sandbox reads them).
 */
const HEADERS = {
  'x-merchant-email': 'bench@payout-sandbox.test',
  'x-api-key': 'sbx_key_bench_00000000000000',
  'x-api-secret': 'sbx_secret_bench_000000000000000000000',
  'content-type': 'application/json',
};

/** A stateless server of bench/http.js (bare Express or node:http; `args` its options), pinned like the others: its three URLs and requests, with the same headers as the sandbox's. */
export async function statelessServer(script, args = []) {
  const child = pinned([script, ...args]);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  const base = `http://127.0.0.1:${port}`;
  return {
    child,
    status: [`${base}/api/v1/public/payment/transfer/status?ref_id=1234567890`, { headers: HEADERS }],
    balance: [`${base}/api/v1/public/balance/check?account_no=DEMOVAN0000000000001`, { headers: HEADERS }],
    initialize: [`${base}/api/v2/public/payment/transfer`, { method: 'POST', headers: HEADERS, body: initializeBody('DEMOVAN0000000000001') }],
  };
}

/**
 * The sandbox (of the checkout `tree`, as a user starts it, with `extra` options) with a merchant
 * and one payout: the status of that payout, its balance, new payouts.
 */
export async function sandboxServer(tree = ROOT_DIR, extra = []) {
  const args = [...BENCH_SANDBOX, ...extra];
  const child = pinned(args, { cwd: tree });
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  const { m, headers, first } = await merchantWithPayout(base);
  return {
    child,
    status: [`${base}/api/v1/public/payment/transfer/status?ref_id=${first.data.ref_id}`, { headers }],
    balance: [`${base}/api/v1/public/balance/check?account_no=${m.account_no}`, { headers }],
    initialize: [
      `${base}/api/v2/public/payment/transfer`,
      { method: 'POST', headers, requests: [{ setupRequest: (req) => ({ ...req, body: initializeBody(m.account_no) }) }] },
    ],
  };
}

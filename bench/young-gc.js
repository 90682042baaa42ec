// What V8's young-generation collections cost the sandbox under bench:http's load, with and
// without the V8 flag the command sets on itself (src/v8-tuning.ts, docs/performance.md "V8's
// allocation-site pretenuring"). Run: npm run bench:young-gc (builds first), or
// node bench/young-gc.js [--rounds 3] [--seconds 5] [--json FILE]
//
// Each round starts the sandbox CLI twice, one after the other, as bench:http does (pinned to CPU 0
// with taskset when present; memory store, manual clock, no rate limits; the review, the journal
// with bodies and the default scenario on): once as the command runs, once with V8's default given
// to node (`node --allocation-site-pretenuring bin/payout-sandbox.js`, which the command leaves
// alone). Each is driven by autocannon from this process (50 connections) as bench:http drives it,
// in the same order: the status check, then the balance check, then initialize V2, each for a 2 s
// warm-up and --seconds. Node's `--trace-gc` goes to a file; counted are the collections while
// initialize is measured (after its warm-up): how many, their pauses in all, the 90th percentile
// and the longest; beside them, initialize's rate and p99, and the server's CPU per 1,000
// initializes. The server's own health says which V8 flags it set, and the benchmark checks it;
// under `--trace-pretenuring-statistics` V8 itself says whether it weighed allocation sites at all
// (its lines from the banner on are counted: none when the flag took).
// Every request goes to 127.0.0.1; every loop is bounded.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { stopChild } from './fleet-lib.js';
import { BENCH_SANDBOX, hasTaskset, initializeBody, load, machine, machineLine, merchantWithPayout, pinned } from './lib.js';

const { values: opt } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    'warm-up': { type: 'string', default: '2' },
    json: { type: 'string' },
  },
});
const ROUNDS = Number(opt.rounds);
const SECONDS = Number(opt.seconds);
const WARM_UP = Number(opt['warm-up']);
for (const [name, v, lo, hi] of [
  ['--rounds', ROUNDS, 1, 20],
  ['--seconds', SECONDS, 1, 60],
  ['--warm-up', WARM_UP, 1, 30],
]) {
  if (!Number.isInteger(v) || v < lo || v > hi) {
    console.error(`${name}: a whole number from ${lo} to ${hi}`);
    process.exit(2);
  }
}
const CONNECTIONS = 50;
const VARIANTS = {
  'as the command runs': { nodeArgs: [], flags: ['--no-allocation-site-pretenuring'] },
  "V8's default (--allocation-site-pretenuring)": { nodeArgs: ['--allocation-site-pretenuring'], flags: [] },
};

/** `--trace-gc` lines of a log: kind and pause (ms) of each collection. */
function collections(log) {
  return [...log.matchAll(/: (Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Compact)\b[^\n]*?, ([\d.]+) \/ [\d.]+ ms/g)].map((m) => ({
    kind: m[1],
    ms: Number(m[2]),
  }));
}

const round1 = (x) => Math.round(x * 10) / 10;
function pauses(list) {
  const ms = list.map((c) => c.ms).sort((a, b) => a - b);
  return {
    count: ms.length,
    total_ms: round1(ms.reduce((a, b) => a + b, 0)),
    p90_ms: ms.length ? ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.9))] : null,
    max_ms: ms.length ? ms[ms.length - 1] : null,
  };
}

async function run(name, { nodeArgs, flags }, dir) {
  const logPath = join(dir, 'gc.log');
  const fd = openSync(logPath, 'w');
  const child = pinned([...nodeArgs, '--trace-gc', '--trace-pretenuring-statistics', ...BENCH_SANDBOX], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  try {
    let base = null;
    // Where the banner ends: the command sets its V8 flags before it listens, so V8's lines after it are the flags' doing.
    let served = 0;
    for (let i = 0; i < 300 && base === null; i++) {
      await delay(50);
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${name}: the sandbox exited (${child.exitCode ?? child.signalCode}):\n${readFileSync(logPath, 'utf8')}`);
      const text = readFileSync(logPath, 'utf8');
      const m = /API base URL:\s+(\S+)/.exec(text);
      if (m) [base, served] = [m[1], text.length];
    }
    if (base === null) throw new Error(`${name}: no banner within 15 s`);
    const health = await (await fetch(`${base}/__sandbox/health`, { signal: AbortSignal.timeout(10_000) })).json();
    if (JSON.stringify(health.v8_flags) !== JSON.stringify(flags))
      throw new Error(`${name}: the sandbox says it set ${JSON.stringify(health.v8_flags)}, expected ${JSON.stringify(flags)}`);
    const { m, headers, first } = await merchantWithPayout(base);
    const drive = (url, more = {}, hooks = {}) => load(url, { connections: CONNECTIONS, headers, ...more }, SECONDS, child.pid, { warmUp: WARM_UP, ...hooks });
    await drive(`${base}/api/v1/public/payment/transfer/status?ref_id=${first.data.ref_id}`);
    await drive(`${base}/api/v1/public/balance/check?account_no=${m.account_no}`);
    // The collections counted are those after initialize's warm-up.
    let from = 0;
    const r = await drive(
      `${base}/api/v2/public/payment/transfer`,
      { method: 'POST', requests: [{ setupRequest: (req) => ({ ...req, body: initializeBody(m.account_no) }) }] },
      { measuring: () => (from = readFileSync(logPath, 'utf8').length) },
    );
    const log = readFileSync(logPath, 'utf8');
    const during = collections(log.slice(from));
    // V8's own word on the flag: with pretenuring off it weighs no allocation site at all (from the
    // banner on; before the command set it, at start-up, V8 may have).
    const pretenuringLines = (log.slice(served).match(/\] pretenuring: /g) ?? []).length;
    if (flags.includes('--no-allocation-site-pretenuring') && pretenuringLines > 0)
      throw new Error(`${name}: V8 weighed allocation sites ${pretenuringLines} times: the flag did not take`);
    return {
      v8_flags: health.v8_flags,
      pretenuring_lines: pretenuringLines,
      initialize: {
        rps: Math.round(r.rps),
        p50_ms: r.p50,
        p99_ms: r.p99,
        cpu_ms_per_1k: r.cpuMsPer1k === null ? null : Math.round(r.cpuMsPer1k),
      },
      young: pauses(during.filter((c) => c.kind === 'Scavenge')),
      full: pauses(during.filter((c) => c.kind !== 'Scavenge')),
    };
  } finally {
    await stopChild(child, 10_000);
  }
}

const m = machine();
const dir = mkdtempSync(join(os.tmpdir(), 'payout-sandbox-young-gc-'));
const rounds = [];
try {
  for (let i = 0; i < ROUNDS; i++) {
    const round = {};
    for (const [name, v] of Object.entries(VARIANTS)) round[name] = await run(name, v, dir);
    rounds.push(round);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(machineLine(m));
console.log(
  `the sandbox CLI pinned to CPU 0: ${hasTaskset}; autocannon, ${CONNECTIONS} connections; status, balance, then initialize V2, each ${WARM_UP} s of warm-up then ${SECONDS} s; collections counted while initialize is measured`,
);
console.log(
  '| round | sandbox | initialize req/s | p99 ms | CPU ms per 1,000 | young collections: count, in all ms, p90 ms, longest ms | full collections: count, in all ms | pretenuring lines of V8 (once serving) |',
);
console.log('|---|---|---|---|---|---|---|---|');
rounds.forEach((round, i) => {
  for (const [name, r] of Object.entries(round)) {
    const { initialize: x, young: y, full: f } = r;
    console.log(
      `| ${i + 1} | ${name} | ${x.rps} | ${x.p99_ms} | ${x.cpu_ms_per_1k ?? 'n/a'} | ${y.count}, ${y.total_ms}, ${y.p90_ms}, ${y.max_ms} | ${f.count}, ${f.total_ms} | ${r.pretenuring_lines} |`,
    );
  }
});
if (opt.json) {
  const out = {
    benchmark: 'bench:young-gc',
    machine: m,
    command: `node bench/young-gc.js ${process.argv.slice(2).join(' ')}`.trim(),
    seconds: SECONDS,
    warm_up_seconds: WARM_UP,
    connections: CONNECTIONS,
    pinned: hasTaskset,
    rounds,
  };
  writeFileSync(opt.json, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`written: ${opt.json}`);
}

// Benchmark of the hot path and start-up (issues 11 and 37). Run: npm run bench:http (builds
// first); BENCH_SECONDS (default 5) and BENCH_ROUNDS (default 3) change its length; `--json FILE`
// writes the figures with the machine and the commit.
//
// Four servers, each a separate process pinned to CPU 0 with taskset when present, driven by
// autocannon from this process (not pinned: pinned to CPU 1 its own pauses showed as every
// server's latency, docs/performance.md), 50 connections, a 2 s warm-up, then BENCH_SECONDS:
//  - bare Express 5 (bench/bare-express.js): the same body parsers, a JSON body like the answer's,
//    no state: the baseline every ratio is against, measured in the same run;
//  - the sandbox as a user starts it (`--data memory --clock manual --no-rate-limits`; the review,
//    the journal with bodies and the default scenario on);
//  - bare Express with the sandbox's server setting (`--server-classes`: requests and responses
//    made with Express's prototypes, docs/performance.md): what that one setting buys any Express
//    app, so that nobody takes it for the sandbox's own doing;
//  - the peers' method (bench/bare-node.js): a pre-serialised body from node:http, as a stub
//    server answers a stubbed call: the headroom a framework leaves, not a bar for the sandbox.
// The servers take turns, round by round, so that a busy moment of the machine spreads over all
// of them; each figure is the median of the rounds. Besides req/s and latency, the server's CPU
// milliseconds per 1,000 requests (from /proc), which a busy machine moves less.
// Then: `npm start` → first healthy answer (median of 5), startSandbox() ready, advance('24h')
// over 10,000 due items. Every request goes to 127.0.0.1; every loop is bounded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { startSandbox } from '../dist/index.js';
import { firstLine, hasTaskset, initializeBody, load as loadFor, machine, machineLine, ROOT_DIR as ROOT, sandboxServer, statelessServer } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;
const JSON_OUT = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : null;
const OPS = ['status', 'balance', 'initialize'];

const SERVERS = {
  express: () => statelessServer('bench/bare-express.js'),
  sandbox: () => sandboxServer(),
  'express+classes': () => statelessServer('bench/bare-express.js', ['--server-classes']),
  'node:http': () => statelessServer('bench/bare-node.js'),
};

/** Each server in turn, ROUNDS times; per server and operation the runs of each round. */
async function hotPath() {
  const runs = Object.fromEntries(Object.keys(SERVERS).map((k) => [k, Object.fromEntries(OPS.map((op) => [op, []]))]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, start] of Object.entries(SERVERS)) {
      const server = await start();
      for (const op of OPS) {
        const [url, opts] = server[op];
        runs[name][op].push(await loadFor(url, { connections: CONNECTIONS, ...opts }, DURATION, server.child.pid));
      }
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const figures = {};
  for (const [name, byOp] of Object.entries(runs)) {
    figures[name] = {};
    for (const [op, rs] of Object.entries(byOp)) {
      figures[name][op] = {
        rps: Math.round(median(rs.map((r) => r.rps))),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        cpu_ms_per_1k: rs[0].cpuMsPer1k === null ? null : Math.round(median(rs.map((r) => r.cpuMsPer1k))),
        rounds_rps: rs.map((r) => Math.round(r.rps)),
      };
    }
  }
  return figures;
}

/** `npm start` (as a user runs it, from an installed checkout) → first 200 from /__sandbox/health. */
async function startToHealthy() {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    // A process group of its own: npm does not pass SIGTERM on to the sandbox it started.
    const child = spawn('npm', ['start', '--silent', '--', '--port', '0', '--data', 'memory', '--log-level', 'silent'], { cwd: ROOT, detached: true });
    const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
    for (let tries = 0; tries < 500; tries++) {
      const ok = await fetch(`${base}/__sandbox/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
    }
    times.push(performance.now() - started);
    const exited = once(child, 'exit');
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  return times.sort((a, b) => a - b)[2];
}

/** A webhook receiver in a process of its own (answers 200 at once), for the advance measurement. */
async function receiver() {
  const code =
    "const s=require('http').createServer((q,r)=>{q.resume();q.on('end',()=>r.end('ok'))});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))";
  const child = spawn(process.execPath, ['-e', code]);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  return { url: `http://127.0.0.1:${port}/hooks`, stop: () => child.kill('SIGTERM') };
}

async function inProcess() {
  const hooks = await receiver();
  const started = performance.now();
  const sb = await startSandbox({ clock: 'manual', rateLimits: false });
  const ready = performance.now() - started;
  const m = await sb.admin.createMerchant({ balance: 1e9, webhook_url: hooks.url });
  const headers = { ...m.headers, 'content-type': 'application/json' };
  // 10,000 due items: 3,000 payouts (a settlement step each, then a webhook attempt each) and
  // 4,000 beneficiaries (an activation each).
  for (let i = 0; i < 4000; i++) {
    if (i < 3000) await fetch(`${sb.url}/api/v2/public/payment/transfer`, { method: 'POST', headers, body: initializeBody(m.account_no) });
    await fetch(`${sb.url}/api/v1/public/beneficiary/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        beneficiary_name: 'Bench Payee',
        beneficiary_email: 'b@example.com',
        beneficiary_mobile: '9876543210',
        account_number: String(100000000000 + i),
        ifsc_code: 'HDFC0000001',
        transfer_type: 'BANK',
      }),
    });
  }
  const pending = sb.app.sandbox.scheduler.pending().length;
  const t = performance.now();
  await sb.advance('24h');
  const advance = performance.now() - t;
  await sb.settleWebhooks();
  const delivered = sb.admin.deliveries({ limit: 1000 }).deliveries.filter((d) => d.state === 'delivered').length;
  const attempts = sb.app.sandbox.webhooks.list({ limit: 100000 }).length;
  await sb.stop();
  hooks.stop();
  return { ready, advance, items: pending + attempts, attempts, delivered };
}

const m = machine();
const figures = await hotPath();
console.log(machineLine(m));
console.log(
  `autocannon, ${CONNECTIONS} connections, ${DURATION} s after a 2 s warm-up, ${ROUNDS} rounds taking turns (medians); servers pinned to CPU 0: ${hasTaskset}`,
);
console.log('| operation | server | req/s | p50 ms | p99 ms | CPU ms per 1,000 requests | × bare Express (req/s) |');
console.log('|---|---|---|---|---|---|---|');
for (const op of OPS) {
  const base = figures.express[op];
  for (const name of Object.keys(SERVERS)) {
    const f = figures[name][op];
    console.log(`| ${op} | ${name} | ${f.rps} | ${f.p50} | ${f.p99} | ${f.cpu_ms_per_1k ?? 'n/a'} | ${(f.rps / base.rps).toFixed(2)} |`);
  }
}
const started = await startToHealthy();
console.log(`npm start → healthy (median of 5): ${started.toFixed(0)} ms`);
const ip = await inProcess();
console.log(`startSandbox() ready: ${ip.ready.toFixed(1)} ms`);
console.log(
  `advance('24h') over ${ip.items} due items (${ip.attempts} of them webhook attempts): ${ip.advance.toFixed(0)} ms; delivered after settleWebhooks(): ${ip.delivered} of the newest 1000`,
);
if (JSON_OUT) {
  const out = {
    benchmark: 'bench:http',
    machine: m,
    command: 'npm run bench:http',
    seconds: DURATION,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    figures,
    start_to_healthy_ms: Math.round(started),
    in_process: ip,
  };
  writeFileSync(JSON_OUT, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`written: ${JSON_OUT}`);
}

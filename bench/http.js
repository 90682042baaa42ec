// Benchmark of the hot path and start-up (issue 11). Run: npm run bench:http (builds first).
// Starts bare Express 5 (bench/bare-express.js) and the sandbox as separate processes, each pinned
// to CPU 0 with taskset when present, and drives each with autocannon from this process (CPU 1):
// 50 connections, a warm-up, then DURATION seconds. Prints req/s, p50, p99 and the ratio to bare
// Express for the status check, the balance check and initialize V2 (memory store). Then:
// `npm start` → first healthy answer (median of 5), startSandbox() ready, advance('24h') over
// 10,000 due items. Every request goes to 127.0.0.1; every loop is bounded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startSandbox } from '../dist/index.js';
import { firstLine, hasTaskset, initializeBody, load as loadFor, merchantWithPayout, pinned, ROOT_DIR as ROOT } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const load = (url, opts = {}) => loadFor(url, { connections: CONNECTIONS, ...opts }, DURATION);

async function bareExpress() {
  const child = pinned(['bench/bare-express.js']);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  const base = `http://127.0.0.1:${port}`;
  const results = {
    status: await load(`${base}/api/v1/public/payment/transfer/status?ref_id=1234567890`),
    balance: await load(`${base}/api/v1/public/balance/check?account_no=X`),
    initialize: await load(`${base}/api/v2/public/payment/transfer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: initializeBody('X'),
    }),
  };
  child.kill('SIGTERM');
  return results;
}

async function sandbox() {
  const child = pinned(['bin/payout-sandbox.js', '--port', '0', '--data', 'memory', '--log-level', 'silent', '--no-rate-limits', '--clock', 'manual']);
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  const { m, headers, first } = await merchantWithPayout(base);
  const results = {
    status: await load(`${base}/api/v1/public/payment/transfer/status?ref_id=${first.data.ref_id}`, { headers }),
    balance: await load(`${base}/api/v1/public/balance/check?account_no=${m.account_no}`, { headers }),
    initialize: await load(`${base}/api/v2/public/payment/transfer`, {
      method: 'POST',
      headers,
      requests: [{ setupRequest: (req) => ({ ...req, body: initializeBody(m.account_no) }) }],
    }),
  };
  child.kill('SIGTERM');
  await once(child, 'exit');
  return results;
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

const fmt = (r, base) =>
  `${String(Math.round(r.rps)).padStart(7)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(3)} ms  ${(r.rps / base.rps).toFixed(2)}× bare Express`;
const bare = await bareExpress();
const sbx = await sandbox();
console.log(`autocannon, ${CONNECTIONS} connections, ${DURATION} s after a 2 s warm-up; servers pinned to CPU 0: ${hasTaskset}`);
for (const k of ['status', 'balance', 'initialize']) {
  console.log(`${k.padEnd(10)} bare Express ${String(Math.round(bare[k].rps)).padStart(7)} req/s | sandbox ${fmt(sbx[k], bare[k])}`);
}
console.log(`npm start → healthy (median of 5): ${(await startToHealthy()).toFixed(0)} ms`);
const ip = await inProcess();
console.log(`startSandbox() ready: ${ip.ready.toFixed(1)} ms`);
console.log(
  `advance('24h') over ${ip.items} due items (${ip.attempts} of them webhook attempts): ${ip.advance.toFixed(0)} ms; delivered after settleWebhooks(): ${ip.delivered} of the newest 1000`,
);

// Benchmark: initialize-payout latency and throughput over HTTP, with the store empty and with
// many payouts already stored, for the memory and the file store. Run: npm run bench
// (builds first). Requests go to 127.0.0.1 only, a bounded number of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSandbox } from '../dist/index.js';

const CONCURRENCY = 16;
const MEASURED = 2000;
const SIZES = [0, 20000];

let seq = 0;
function body(account) {
  seq += 1;
  return JSON.stringify({
    client_ref_id: `BENCH${String(seq).padStart(9, '0')}`,
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

async function run(sb, count) {
  const headers = { ...sb.merchant.headers, 'content-type': 'application/json' };
  const latencies = [];
  let next = 0;
  const started = performance.now();
  async function worker() {
    while (next < count) {
      next += 1;
      const t0 = performance.now();
      const res = await fetch(`${sb.url}/api/v1/public/payment/transfer`, { method: 'POST', headers, body: body(sb.merchant.accounts[0]) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2);
  return { rps: Math.round(count / seconds), p50: pct(50), p99: pct(99) };
}

const rows = [];
for (const store of ['memory', 'file']) {
  for (const size of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-bench-'));
    const sb = await startSandbox({
      data: store === 'memory' ? 'memory' : join(dir, 'db.json'),
      clock: 'manual',
      rateLimits: false,
      seed: 1,
    });
    // A balance that never runs out.
    await fetch(`${sb.controlUrl}/accounts/${sb.merchant.accounts[0]}/credit`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: 100000000 }),
    });
    if (size > 0) await run(sb, size);
    const r = await run(sb, MEASURED);
    rows.push({ store, stored_before: size, requests: MEASURED, ...r });
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`initialize payout, ${CONCURRENCY} in flight, ${MEASURED} measured requests (latency in ms)`);
console.table(rows);

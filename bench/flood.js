// A flood (issue 15): one client creates merchants and payouts as fast as it can for FLOOD_SECONDS
// (default 60) against the CLI with its default caps, while this script samples the server's RSS
// every second. Prints what was created, what the caps refused, and the highest RSS.
// Run: npm run bench:flood. Everything goes to 127.0.0.1; the loop ends by itself.

import { readFileSync } from 'node:fs';
import { startCliProcess } from './lib.js';

const SECONDS = Number(process.env.FLOOD_SECONDS ?? 60);
const { child, base } = await startCliProcess(['--port', '0', '--data', 'memory', '--log-level', 'silent', '--no-rate-limits', ...process.argv.slice(2)]);
const rss = () => Number(readFileSync(`/proc/${child.pid}/statm`, 'utf8').split(' ')[1]) * 4096;
let maxRss = rss();
const sampler = setInterval(() => (maxRss = Math.max(maxRss, rss())), 1000);
const counts = { merchants: 0, merchantsRefused: 0, payouts: 0, payoutsRefused: 0 };
const end = Date.now() + SECONDS * 1000;
let seq = 0;
let m = null;
const json = { 'content-type': 'application/json' };
while (Date.now() < end) {
  if (m === null || m.payouts >= 50) {
    const r = await fetch(`${base}/__sandbox/merchants`, { method: 'POST', headers: json, body: JSON.stringify({ balance: 1e9 }) });
    if (r.status === 201) {
      m = { ...(await r.json()), payouts: 0 };
      counts.merchants += 1;
    } else {
      await r.arrayBuffer();
      counts.merchantsRefused += 1;
    }
    if (m === null) continue;
  }
  seq += 1;
  const r = await fetch(`${base}/api/v2/public/payment/transfer`, {
    method: 'POST',
    headers: { ...m.headers, ...json },
    body: JSON.stringify({
      client_ref_id: `FLOOD${String(seq).padStart(9, '0')}`,
      transfer_type: 'BANK',
      amount: 1,
      payment_method: '1001',
      debit_from: m.account_no,
      beneficiary_email: 'b@example.com',
      beneficiary_name: 'Flood',
      account_number: '123456789012',
      ifsc_code: 'HDFC0000001',
      purpose: 'VENDOR_PAYOUT',
      remarks: 'flood',
    }),
  });
  await r.arrayBuffer();
  if (r.status === 200) {
    counts.payouts += 1;
    m.payouts += 1;
  } else counts.payoutsRefused += 1;
}
clearInterval(sampler);
maxRss = Math.max(maxRss, rss());
console.log(
  `${SECONDS} s flood: ${counts.merchants} merchants created (${counts.merchantsRefused} refused), ${counts.payouts} payouts (${counts.payoutsRefused} refused)`,
);
console.log(`highest RSS: ${(maxRss / 1024 / 1024).toFixed(0)} MiB`);
child.kill('SIGKILL');

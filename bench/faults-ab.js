// A/B of the status check with and without the failure-everywhere machinery (issue 25: fault rules
// and chaos that do not fire cost nothing): this tree with --no-review against an older build
// (OLD_TREE, a checkout built with npm ci, e.g. commit 1e444cb, before fault rules existed), both
// with the journal off, alternating round by round in one run, beside bare Express.
// Run: OLD_TREE=/path/to/old/checkout node bench/faults-ab.js (after npm run build).
import { once } from 'node:events';
import { join } from 'node:path';
import { firstLine, load as loadFor, merchantWithPayout, pinned } from './lib.js';

const OLD = process.env.OLD_TREE;
if (!OLD) throw new Error('OLD_TREE: the path of an older checkout, built');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const FLAGS = ['--port', '0', '--data', 'memory', '--log-level', 'silent', '--no-rate-limits', '--clock', 'manual', '--journal-size', '0'];

async function statusRps(args) {
  const child = pinned(args);
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  const { headers, first } = await merchantWithPayout(base);
  const r = await loadFor(`${base}/api/v1/public/payment/transfer/status?ref_id=${first.data.ref_id}`, { connections: 50, headers }, SECONDS);
  child.kill('SIGTERM');
  await once(child, 'exit');
  return r.rps;
}

async function bare() {
  const child = pinned(['bench/bare-express.js']);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  const r = await loadFor(`http://127.0.0.1:${port}/api/v1/public/payment/transfer/status?ref_id=1234567890`, { connections: 50 }, SECONDS);
  child.kill('SIGTERM');
  await once(child, 'exit');
  return r.rps;
}

const rows = { bare: [], old: [], now: [] };
for (let round = 1; round <= ROUNDS; round++) {
  rows.bare.push(await bare());
  rows.old.push(await statusRps([join(OLD, 'bin/payout-sandbox.js'), ...FLAGS]));
  rows.now.push(await statusRps(['bin/payout-sandbox.js', ...FLAGS, '--no-review']));
  console.log(`round ${round}: bare ${rows.bare.at(-1).toFixed(0)}, old ${rows.old.at(-1).toFixed(0)}, now ${rows.now.at(-1).toFixed(0)} req/s`);
}
const b = median(rows.bare);
console.log(
  `status check, median of ${ROUNDS} rounds of ${SECONDS} s: old ${(median(rows.old) / b).toFixed(2)}× bare Express, now (fault rules, no chaos, --no-review) ${(median(rows.now) / b).toFixed(2)}×`,
);

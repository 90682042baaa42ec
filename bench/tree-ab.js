// Two builds of the sandbox side by side in one run (this tree and another checkout, built), to
// tell a change's cost from the machine's drift: initialize V2 (50 connections, BENCH_SECONDS each,
// the server pinned to one core), review on and off, alternating tree by tree, BENCH_ROUNDS rounds.
// Run: npm run build, then `node bench/tree-ab.js /path/to/other/checkout` (built there, e.g. a
// `git worktree add /tmp/old <commit>` with node_modules linked and `npm run build` run in it).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { firstLine, HOT_PATH_SANDBOX, initializeBody, load, merchantWithPayout, ROOT_DIR } from './lib.js';

const other = process.argv[2];
if (!other) throw new Error('usage: node bench/tree-ab.js /path/to/other/checkout');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

async function initializeRps(root, review) {
  const child = spawn('taskset', ['-c', '0', process.execPath, ...HOT_PATH_SANDBOX, ...(review ? [] : ['--no-review'])], { cwd: root });
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  const { m, headers } = await merchantWithPayout(base);
  const r = await load(
    `${base}/api/v2/public/payment/transfer`,
    { method: 'POST', headers, connections: 50, requests: [{ setupRequest: (req) => ({ ...req, body: initializeBody(m.account_no) }) }] },
    SECONDS,
  );
  child.kill('SIGTERM');
  await once(child, 'exit');
  return r.rps;
}

const runs = { thisOn: [], otherOn: [], thisOff: [], otherOff: [] };
for (let i = 0; i < ROUNDS; i++) {
  runs.thisOn.push(await initializeRps(ROOT_DIR, true));
  runs.otherOn.push(await initializeRps(other, true));
  runs.thisOff.push(await initializeRps(ROOT_DIR, false));
  runs.otherOff.push(await initializeRps(other, false));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (a, b) => `${(((a - b) / b) * 100).toFixed(1)} %`;
console.log(JSON.stringify(runs));
console.log(
  `initialize V2, median of ${ROUNDS}: review on ${median(runs.thisOn)} req/s here, ${median(runs.otherOn)} there (${pct(median(runs.thisOn), median(runs.otherOn))}); ` +
    `review off ${median(runs.thisOff)} here, ${median(runs.otherOff)} there (${pct(median(runs.thisOff), median(runs.otherOff))})`,
);

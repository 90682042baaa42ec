// A/B of built trees on the hot path by the server's CPU per 1,000 requests (issue 37): bare
// Express and each tree's sandbox take turns, round by round, each pinned to CPU 0 with taskset,
// autocannon from this process (50 connections, a 2 s warm-up, then AMOUNT requests, 20,000 by
// default). Prints, per server, the rates and the CPU per 1,000 requests of each round and the
// least of them over bare Express's least (noise on a shared machine only ever adds CPU time).
// Run on built trees (npm run build in each):
//   node bench/cpu-ab.js status|balance|initialize ROUNDS TREE…
//   e.g. git worktree add /tmp/old <commit> && (cd /tmp/old && npm ci) && node bench/cpu-ab.js status 5 /tmp/old .
// EXTRA="--journal-size 0 --no-review" adds options to every sandbox (an ablation). A TREE of
// `bare+classes` is bare Express with the sandbox's server setting (bench/bare-express.js --server-classes).

import { once } from 'node:events';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { cpuSeconds, sandboxServer, statelessServer } from './lib.js';

const [op = 'status', rounds = '3', ...trees] = process.argv.slice(2);
const extra = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
const AMOUNT = Number(process.env.AMOUNT ?? 20000);

/** Bare Express, or the sandbox of a tree: the URL and request of the operation measured. */
async function server(tree) {
  const s =
    tree === 'bare'
      ? await statelessServer('bench/bare-express.js')
      : tree === 'bare+classes'
        ? await statelessServer('bench/bare-express.js', ['--server-classes'])
        : await sandboxServer(resolve(tree), extra);
  const [url, opts] = s[op];
  return { child: s.child, url, opts };
}

const runs = {};
for (let i = 0; i < Number(rounds); i++) {
  for (const tree of ['bare', ...trees]) {
    const { child, url, opts } = await server(tree);
    await autocannon({ url, duration: 2, connections: 50, ...opts });
    const before = cpuSeconds(child.pid);
    const r = await autocannon({ url, amount: AMOUNT, connections: 50, ...opts });
    const ms = (cpuSeconds(child.pid) - before) * 1000;
    if (r.non2xx || r.errors) throw new Error(`${tree}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    (runs[tree] ??= []).push({ rps: r.requests.average, cpk: (ms / r.requests.total) * 1000 });
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
const least = (tree) => Math.min(...runs[tree].map((r) => r.cpk));
for (const [tree, rs] of Object.entries(runs)) {
  console.log(
    `${op} ${tree.padEnd(20)} req/s ${rs.map((r) => Math.round(r.rps)).join(' ')} | CPU ms per 1,000: ${rs.map((r) => r.cpk.toFixed(0)).join(' ')} | least ${least(tree).toFixed(0)}, ${(least(tree) / least('bare')).toFixed(2)}× bare Express`,
  );
}

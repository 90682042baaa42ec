// What the integration review's facts cost on the hot paths (issue 23: at most 5 %), and what the
// fault rules and chaos cost when none fires (issue 25: nothing): the status check and initialize
// V2 on the sandbox (memory store) with the review on and with --no-review, round after round in
// the same run (A B, B A, A B, … so that drift of the machine falls on both), beside bare Express.
// Run: npm run bench:review (builds first). BENCH_SECONDS (default 8) and BENCH_ROUNDS (default 3).
import { once } from 'node:events';
import { firstLine, HOT_PATH_SANDBOX, initializeBody, load as loadFor, merchantWithPayout, pinned } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const load = (url, opts = {}) => loadFor(url, { connections: 50, ...opts }, SECONDS);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function bare() {
  const child = pinned(['bench/bare-express.js']);
  const [, port] = await firstLine(child, /^(\d+)\n/);
  const status = await load(`http://127.0.0.1:${port}/api/v1/public/payment/transfer/status?ref_id=1234567890`);
  child.kill('SIGTERM');
  await once(child, 'exit');
  return status.rps;
}

async function sandbox(review) {
  const child = pinned(review ? HOT_PATH_SANDBOX : [...HOT_PATH_SANDBOX, '--no-review']);
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  const { m, headers, first } = await merchantWithPayout(base);
  const status = await load(`${base}/api/v1/public/payment/transfer/status?ref_id=${first.data.ref_id}`, { headers });
  const initialize = await load(`${base}/api/v2/public/payment/transfer`, {
    method: 'POST',
    headers,
    requests: [{ setupRequest: (req) => ({ ...req, body: initializeBody(m.account_no) }) }],
  });
  child.kill('SIGTERM');
  await once(child, 'exit');
  return { status: status.rps, initialize: initialize.rps };
}

const on = { status: [], initialize: [] };
const off = { status: [], initialize: [] };
const bareRps = [];
for (let round = 1; round <= ROUNDS; round++) {
  bareRps.push(await bare());
  // Which goes first alternates, so that what comes second in a round (a warmer machine, a
  // colder one) falls on both alike.
  let a;
  let b;
  if (round % 2 === 1) {
    a = await sandbox(true);
    b = await sandbox(false);
  } else {
    b = await sandbox(false);
    a = await sandbox(true);
  }
  for (const k of ['status', 'initialize']) {
    on[k].push(a[k]);
    off[k].push(b[k]);
  }
  console.log(
    `round ${round}: bare ${bareRps.at(-1).toFixed(0)} req/s; review on: status ${a.status.toFixed(0)}, initialize ${a.initialize.toFixed(0)}; off: status ${b.status.toFixed(0)}, initialize ${b.initialize.toFixed(0)}`,
  );
}
const cost = (k) => (1 - median(on[k]) / median(off[k])) * 100;
console.log(`median of ${ROUNDS} rounds of ${SECONDS} s, 50 connections, memory store, ${new Date().toISOString().slice(0, 10)}:`);
console.log(
  `  status check: review on ${median(on.status).toFixed(0)} req/s, off ${median(off.status).toFixed(0)} req/s: the review costs ${cost('status').toFixed(1)} %`,
);
console.log(
  `  initialize V2: review on ${median(on.initialize).toFixed(0)} req/s, off ${median(off.initialize).toFixed(0)} req/s: the review costs ${cost('initialize').toFixed(1)} %`,
);
console.log(`  status check / bare Express (review on, fault rules of the default scenario, no chaos): ${(median(on.status) / median(bareRps)).toFixed(2)}×`);

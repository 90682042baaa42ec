// Slow and idle clients (issue 15): opens 1,000 connections to the sandbox that send their request
// head one byte every 200 ms (and 100 that connect and send nothing), and meanwhile measures a
// normal client's balance checks against the same figures with no slow clients. Prints p50/p99
// for both and how many slow connections the server cut off (408) at its headers time-out.
// Run: npm run bench:slow. Everything goes to 127.0.0.1; every loop is bounded.

import { connect } from 'node:net';
import { startCliProcess } from './lib.js';

const SLOW = 1000;
const IDLE = 100;
const { child, base } = await startCliProcess(['--port', '0', '--data', 'memory', '--log-level', 'silent', '--no-rate-limits', '--headers-timeout', '5000']);
const { hostname, port } = new URL(base);
const headers = { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001' };
const url = `${base}/api/v1/public/balance/check?account_no=DEMOVAN0000000000001`;

async function latencies(n) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fetch(url, { headers });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`status ${r.status}`);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(n * 0.5)], p99: ms[Math.floor(n * 0.99)] };
}

const quiet = await latencies(500);
const head = 'GET /api/v1/public/balance/check HTTP/1.1\r\nHost: x\r\n';
let cut = 0;
const sockets = [];
for (let i = 0; i < SLOW + IDLE; i++) {
  const s = connect(Number(port), hostname);
  s.on('error', () => {});
  s.on('data', (d) => {
    if (String(d).startsWith('HTTP/1.1 408')) cut += 1;
  });
  sockets.push(s);
}
let pos = 0;
const dribble = setInterval(() => {
  pos += 1;
  for (let i = 0; i < SLOW; i++) if (pos < head.length && !sockets[i].destroyed) sockets[i].write(head[pos - 1]);
}, 200);
await new Promise((r) => setTimeout(r, 500));
const loaded = await latencies(500);
await new Promise((r) => setTimeout(r, 6000));
clearInterval(dribble);
const f = (x) => x.toFixed(1).padStart(6);
console.log(`balance check, 500 sequential requests (ms):`);
console.log(`  no slow clients:                      p50 ${f(quiet.p50)}  p99 ${f(quiet.p99)}`);
console.log(`  ${SLOW} slow + ${IDLE} idle connections open: p50 ${f(loaded.p50)}  p99 ${f(loaded.p99)}`);
console.log(`slow connections cut off with 408 at the 5 s headers time-out: ${cut} of ${SLOW + IDLE}`);
for (const s of sockets) s.destroy();
child.kill('SIGKILL');

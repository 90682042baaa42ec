// How fast a trace of 10,000 requests is written, and how fast the viewer opens it (issue 28).
// A sandbox in this process (dist/, memory store, manual clock, --journal-size 10000, rate limits
// off, webhooks to a receiver on 127.0.0.1): 5,000 payouts initialized and 5,000 status checks,
// then the clock advanced 1 h (their timelines and webhooks). Measured: writing the merchant's
// trace as --trace-dir does at shutdown (gather, build, serialize, write; median of 5); then
// `payout-sandbox show-trace FILE` (the real CLI, a new process each time) until headless Chromium
// (Debian's `chromium`, through playwright-core), opening the URL it prints, shows the sequence view
// of the run: its newest 150 events (median of 5).
// Run: npm run bench:trace (builds first).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startSandbox } from '../dist/index.js';
import { writeTraces } from '../dist/sandbox/traces.js';
import { firstLine, ROOT_DIR } from './lib.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000);
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end('ok'));
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hooks = `http://127.0.0.1:${receiver.address().port}/hooks`;

const sb = await startSandbox({ clock: 'manual', journalSize: REQUESTS, rateLimits: false, webhookUrl: hooks, seed: 1 });
const m = sb.merchant;
const headers = { ...m.headers, 'content-type': 'application/json' };
let n = 0;
async function initialize() {
  n += 1;
  const body = {
    client_ref_id: `TRACEBENCH${String(n).padStart(8, '0')}`,
    transfer_type: 'BANK',
    amount: 100 + (n % 50),
    payment_method: '1001',
    debit_from: m.accounts[0],
    beneficiary_name: 'Bench Payee',
    beneficiary_email: 'payee@example.com',
    beneficiary_mobile: '9876543210',
    // A payee of its own each: the same payee again and again would be a double payout to the review.
    account_number: String(100000000000 + n),
    ifsc_code: 'HDFC0001234',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'bench',
  };
  const res = await fetch(`${sb.url}/api/v2/public/payment/transfer`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (!json.data) throw new Error(`initialize refused: ${JSON.stringify(json)}`);
  return json.data.ref_id;
}
const status = async (ref) => (await fetch(`${sb.url}/api/v1/public/payment/transfer/status?ref_id=${ref}`, { headers: m.headers })).arrayBuffer();
for (let i = 0; i < REQUESTS / 2; i += 50) {
  await Promise.all(Array.from({ length: 50 }, async () => status(await initialize())));
}
await sb.advance('1h');
await sb.settleWebhooks();

const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-trace-bench-'));
const writes = [];
let file;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  [file] = await writeTraces(sb.app.sandbox, dir);
  writes.push(performance.now() - t0);
}
const trace = sb.admin.traces.trace(m.merchantId);
await sb.stop();
receiver.close();
console.log(
  `trace of ${trace.requests.length} requests, ${trace.payouts.length} payouts, ${trace.deliveries.length} deliveries (${Math.round(statSync(file).size / 1024)} KiB): written in ${Math.round(median(writes))} ms (median of 5; worst ${Math.round(Math.max(...writes))} ms)`,
);

if (!executablePath) {
  console.log('viewer: skipped (no Chromium: apt-get install chromium, or set CHROMIUM_PATH)');
  process.exit(0);
}
// The sequence view of the run shows its newest 150 events: on screen once the 150th is.
const shownAtFirst = Math.min(150, trace.requests.length);
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const opens = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['bin/payout-sandbox.js', 'show-trace', file, '--port', '0'], { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'inherit'] });
  const [, url] = await firstLine(child, /Dashboard:\s+(\S+)/);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page
      .locator('[data-testid="sequence"] .seq-body > *')
      .nth(shownAtFirst - 1)
      .waitFor({ timeout: 30_000 });
    opens.push(performance.now() - t0);
    await page.close();
  } finally {
    child.kill('SIGTERM');
  }
}
await browser.close();
console.log(
  `viewer: from running show-trace to the run's sequence view on screen (its newest 150 events) in ${Math.round(median(opens))} ms (median of 5; best ${Math.round(Math.min(...opens))} ms, worst ${Math.round(Math.max(...opens))} ms)`,
);

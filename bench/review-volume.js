// The integration review at volume (issue 33): 2,000 payouts of one payment, each a double of the
// ones before, then how long the review takes to answer (JSON and Markdown), how big it is, and
// how long the dashboard's Review tab takes to show its first findings in headless Chromium.
// Run: npm run bench:review-volume (builds first). BENCH_PAYOUTS changes the count.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { firstLine, initializeBody, unpinned } from './lib.js';

const COUNT = Number(process.env.BENCH_PAYOUTS ?? 2000);
const child = unpinned(['bin/payout-sandbox.js', '--port', '0', '--data', 'memory', '--clock', 'manual', '--log-level', 'silent']);
const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
const json = (r) => r.json();
try {
  const m = await fetch(`${base}/__sandbox/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ balance: 100_000_000 }),
  }).then(json);
  for (let i = 0; i < COUNT; i++) {
    const res = await fetch(`${base}/api/v2/public/payment/transfer`, {
      method: 'POST',
      headers: { ...m.headers, 'content-type': 'application/json' },
      body: initializeBody(m.account_no),
    });
    if (res.status !== 200) throw new Error(`initialize ${i}: ${res.status} ${await res.text()}`);
  }
  const timed = async (path) => {
    const times = [];
    let size = 0;
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const text = await (await fetch(`${base}${path}`)).text();
      times.push(performance.now() - t0);
      size = Buffer.byteLength(text);
    }
    times.sort((a, b) => a - b);
    return { median: times[5], worst: times[9], size };
  };
  const review = `/__sandbox/merchants/${m.merchant_id}/review`;
  const j = await timed(review);
  const md = await timed(`${review}?format=markdown`);
  let paint = null;
  const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (executablePath) {
    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      // Each time a new tab of a new browser context (nothing cached): the page, its files and the
      // review loaded from nothing, as when a presenter opens the link.
      const times = [];
      let nodes = 0;
      for (let i = 0; i < 5; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        const t0 = Date.now();
        await page.goto(`${base}/__sandbox/ui#/m/${m.merchant_id}/review`);
        await page.getByTestId('finding').first().waitFor();
        times.push(Date.now() - t0);
        nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
        await context.close();
      }
      times.sort((a, b) => a - b);
      paint = { median: times[2], worst: times[4], nodes };
    } finally {
      await browser.close();
    }
  }
  console.log(
    `${COUNT} payouts of one payment: review JSON ${j.median.toFixed(0)} ms median (${j.worst.toFixed(0)} worst of 10), ${(j.size / 1024).toFixed(1)} KiB; ` +
      `Markdown ${md.median.toFixed(0)} ms, ${(md.size / 1024).toFixed(1)} KiB; ` +
      (paint
        ? `Review tab in a new tab, first finding on screen ${paint.median} ms median (${paint.worst} worst of 5), ${paint.nodes} DOM nodes`
        : 'no Chromium: Review tab not measured'),
  );
} finally {
  child.kill('SIGTERM');
}

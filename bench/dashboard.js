// How fast the dashboard's payouts view renders with 100,000 payouts stored (issue 12): the data
// file seeded by bench/seed.js, the real CLI on it, headless Chromium (Debian's `chromium`,
// through playwright-core) opening /__sandbox/ui; measured: from clicking "Payouts" (coming from
// another view) to its first page of rows on screen, median of 10, and the control API's answer
// for that page. Run: npm run bench:dashboard (builds first).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { firstLine, unpinned } from './lib.js';
import { seedDataFile } from './seed.js';

const STORED = Number(process.env.BENCH_PAYOUTS ?? 100_000);
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!executablePath) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');

const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-dash-'));
const data = join(dir, 'db.json');
await seedDataFile(data, STORED);
const child = unpinned([
  'bin/payout-sandbox.js',
  '--port',
  '0',
  '--data',
  data,
  '--clock',
  'manual',
  '--log-level',
  'silent',
  '--max-records',
  '100000000',
  '--max-records-per-merchant',
  '10000000',
]);
const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${base}/__sandbox/ui`);
  await page.getByRole('row').nth(50).waitFor();
  const times = [];
  for (let i = 0; i < 10; i++) {
    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.getByText('agrees with the balance').first().waitFor();
    const t0 = Date.now();
    await page.getByRole('link', { name: 'Payouts', exact: true }).click();
    await page.getByRole('row').nth(50).waitFor();
    times.push(Date.now() - t0);
  }
  times.sort((a, b) => a - b);
  const api = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await (await fetch(`${base}/__sandbox/merchants/SBXDEMO0001/payouts?limit=50`)).json();
    api.push(performance.now() - t0);
  }
  api.sort((a, b) => a - b);
  console.log(
    `${STORED} payouts stored: payouts view rendered (50 rows) in ${times[5]} ms median, ${times[9]} ms worst of 10; GET .../payouts?limit=50 ${api[10].toFixed(1)} ms median`,
  );
} finally {
  await browser.close();
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}

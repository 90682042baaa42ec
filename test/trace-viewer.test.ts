import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startSandbox } from '../src/index.js';
import type { Trace } from '../src/observe/trace.js';
import { BIN } from './cli-helpers.js';
import { startReceiver } from './receiver.js';

/**
 * `payout-sandbox show-trace` in a real browser (headless Chromium, as test/dashboard.test.ts):
 * the trace of a reversal payout opened read-only, its payout page and sequence view, the
 * controls hidden, a write refused; a 10,000-request trace opened in time. Needs `npm run build`
 * (the real CLI, and the dashboard's files). With SCREENSHOTS=1 (`npm run screenshots`) the
 * sequence view's pictures go to docs/.
 */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHOTS = process.env.SCREENSHOTS === '1' ? join(ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'payout-sandbox-shots-'));
const run = CHROMIUM || process.env.CI === 'true' ? describe : describe.skip;
if (!CHROMIUM && process.env.CI !== 'true') {
  console.log('trace viewer browser test skipped: no Chromium found; install it (Debian: apt-get install chromium) or set CHROMIUM_PATH');
}

const DIR = mkdtempSync(join(tmpdir(), 'payout-sandbox-viewer-'));
let browser: Browser;
let trace: Trace;
let ref: string;
const file = join(DIR, 'SBXDEMO0001.trace.json');

/** A run worth looking at: a reversal (2002.05) with its webhooks, a refusal, and a payout sent twice after a 500 (a finding). */
async function makeTrace(): Promise<void> {
  const receiver = await startReceiver(() => 200);
  const sb = await startSandbox({ clock: 'manual', seed: 5, webhookUrl: receiver.url });
  try {
    const m = sb.merchant;
    const headers = { ...m.headers, 'content-type': 'application/json' };
    const pay = async (amount: number, clientRef: string) =>
      (await fetch(`${sb.url}/api/v2/public/payment/transfer`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          client_ref_id: clientRef,
          transfer_type: 'BANK',
          amount,
          payment_method: '1001',
          debit_from: m.accounts[0],
          beneficiary_name: 'Asha Rao',
          beneficiary_email: 'asha@example.com',
          beneficiary_mobile: '9876543210',
          account_number: '123456789012',
          ifsc_code: 'HDFC0001234',
          purpose: 'VENDOR_PAYOUT',
          remarks: 'invoice 42',
        }),
      }).then((r) => r.json())) as { data?: { ref_id: string } };
    ref = String((await pay(2002.05, 'INV-2026-0042')).data?.ref_id);
    const poll = () => fetch(`${sb.url}/api/v1/public/payment/transfer/status?ref_id=${ref}`, { headers: m.headers });
    await poll();
    await sb.advance('1m');
    await sb.settleWebhooks();
    await poll();
    await pay(1001.02, 'INV-2026-0043');
    await pay(3003.01, 'INV-2026-0044');
    await pay(3003.01, 'INV-2026-0045');
    await sb.advance('1h');
    await sb.settleWebhooks();
    await poll();
    trace = sb.admin.traces.trace(m.merchantId);
    writeFileSync(file, JSON.stringify(trace));
  } finally {
    await sb.stop();
    await receiver.close();
  }
}

const viewers = new Set<ChildProcess>();

/** The viewer (the real CLI) on a free port, once it prints the dashboard's URL (at most 15 s). */
function viewer(path: string): Promise<{ ui: string; base: string; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, [BIN, 'show-trace', path, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  viewers.add(proc);
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const stop = () =>
    new Promise<void>((resolve) => {
      viewers.delete(proc);
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no dashboard URL within 15 s:\n${out}`)), 15_000);
    proc.stdout.on('data', () => {
      const m = /Dashboard:\s+(\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ ui: m[1], base: new URL(m[1]).origin, stop });
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`show-trace exited ${code}:\n${out}`));
    });
  });
}

async function pageAt(url: string, width = 1280, height = 800): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  page.setDefaultTimeout(10_000);
  await page.goto(url);
  return page;
}

beforeAll(async () => {
  await makeTrace();
  if (!CHROMIUM) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  for (const p of viewers) p.kill('SIGKILL');
  await browser?.close();
});

run('the sequence view in the live dashboard', () => {
  test('a payout made through the API is on the Sequence tab, with the controls of a live sandbox still there', async () => {
    const sb = await startSandbox({ clock: 'manual', seed: 9 });
    try {
      const m = sb.merchant;
      await fetch(`${sb.url}/api/v1/public/balance/check?account_no=${m.accounts[0]}`, { headers: m.headers });
      const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${m.merchantId}/sequence`);
      await page.getByTestId('sequence').getByTestId('seq-request').first().waitFor();
      expect(await page.getByTestId('seq-request').first().textContent()).toMatch(/GET\s*\/api\/v1\/public\/balance\/check/);
      expect(await page.getByTestId('readonly').count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Stories', exact: true }).count()).toBe(1);
      expect(await page.getByRole('button', { name: '+1 min' }).count()).toBe(1);
      await page.close();
    } finally {
      await sb.stop();
    }
  }, 30_000);
});

run('show-trace: the dashboard over a trace, read-only', () => {
  test('the payout, its timeline and deliveries and its sequence; no controls; a write is refused (405)', async () => {
    const v = await viewer(file);
    try {
      expect(v.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const page = await pageAt(`${v.base}/__sandbox/ui#/m/SBXDEMO0001/payouts/${ref}`);
      const heading = page.getByRole('heading', { level: 2, name: `Payout ${ref}` });
      await heading.waitFor();
      await heading.getByText('Failed', { exact: true }).waitFor();
      await heading.getByText('reversed', { exact: true }).waitFor();
      expect(await page.getByTestId('readonly').textContent()).toContain('Read-only trace');
      expect(await page.getByTestId('delivery').count()).toBe(2);
      // The controls are gone: force-status, redeliver, the clock's buttons, the demo and sandbox tabs.
      expect(await page.getByLabel('Force status').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Redeliver' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: '+1 min' }).count()).toBe(0);
      for (const tab of ['Demo', 'Sandbox', 'Outages & chaos']) expect(await page.getByRole('link', { name: tab, exact: true }).count()).toBe(0);
      // Its sequence: the initialize and its answer with the rule, the three steps, both webhooks and their answers.
      const seq = page.getByTestId('sequence');
      await seq.getByTestId('seq-request').first().waitFor();
      expect(await seq.getByTestId('seq-request').first().textContent()).toMatch(
        /POST\s*\/api\/v2\/public\/payment\/transfer.*₹2,002\.05.*200.*rule\s*2002\.05/,
      );
      expect(await seq.getByTestId('seq-step').allTextContents()).toEqual([
        expect.stringContaining('Pending'),
        expect.stringContaining('Success'),
        expect.stringMatching(/Failed.*reversed/),
      ]);
      expect(await seq.getByTestId('seq-delivery').count()).toBe(2);
      expect(await seq.getByTestId('seq-clock').count()).toBe(2);
      // A write from the page is refused, and nothing else answers one either.
      const status = await page.evaluate(async (r) => (await fetch(`/__sandbox/payouts/${r}/status`, { method: 'POST', body: '{}' })).status, ref);
      expect(status).toBe(405);
      const reset = await fetch(`${v.base}/__sandbox/reset`, { method: 'POST' });
      expect(reset.status).toBe(405);
      expect(((await reset.json()) as { error: string }).error).toMatch(/^Read-only: this is a trace/);
      expect((await fetch(`${v.base}/api/v2/public/payment/transfer`, { method: 'POST' })).status).toBe(405);
      await page.close();
    } finally {
      await v.stop();
    }
  }, 60_000);

  test('the sequence view of the whole run: faults and the finding marked; it fits 1280×800 and a 390-px phone', async () => {
    const v = await viewer(file);
    try {
      const page = await pageAt(`${v.base}/__sandbox/ui#/m/SBXDEMO0001/sequence`);
      const seq = page.getByTestId('sequence');
      await seq.getByTestId('seq-finding').waitFor();
      expect(await seq.getByTestId('seq-request').count()).toBe(trace.requests.length);
      expect(await seq.getByText('⚡ fault').count()).toBe(2);
      expect(await seq.getByTestId('seq-finding').textContent()).toContain('double-payout-after-timeout');
      expect(await seq.getByTestId('seq-request').filter({ hasText: 'INSUFFICIENT_BALANCE' }).count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, 'trace-sequence.png'), fullPage: false });
      // A request opens to its headers and bodies, credentials redacted.
      await seq.getByText('request and answer').first().click();
      const opened = await seq.locator('details[open] pre').first().textContent();
      expect(opened).toContain('"amount": 2002.05');
      expect(opened).toContain('x-api-secret: [redacted]');
      await page.close();

      const phone = await pageAt(`${v.base}/__sandbox/ui#/m/SBXDEMO0001/sequence`, 390, 844);
      await phone.getByTestId('seq-finding').waitFor();
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await phone.screenshot({ path: join(SHOTS, 'trace-sequence-phone.png'), fullPage: false });
      await phone.close();
    } finally {
      await v.stop();
    }
  }, 60_000);

  test('a 10,000-request trace: from starting show-trace to its newest request on screen in the sequence view, well under 2 s (a generous margin asserted; bench/trace.js gives the figure)', async () => {
    // A suite that polls: the last status check, 10,000 times, a millisecond apart.
    const last = trace.requests.at(-1)!;
    const requests = Array.from({ length: 10_000 }, (_, i) => ({
      ...last,
      request_id: `${last.request_id.slice(0, 24)}${String(i).padStart(12, '0')}`,
      real_at: new Date(Date.parse(last.real_at!) + i).toISOString(),
    }));
    const big = join(DIR, 'big.trace.json');
    writeFileSync(big, JSON.stringify({ ...trace, requests }));
    const started = performance.now();
    const v = await viewer(big);
    try {
      const page = await pageAt(`${v.base}/__sandbox/ui#/m/SBXDEMO0001/sequence`);
      await page.locator(`[data-request="${requests.at(-1)!.request_id}"]`).waitFor({ timeout: 20_000 });
      const ms = performance.now() - started;
      console.log(`show-trace of a 10,000-request trace: its newest request on screen ${Math.round(ms)} ms after the command started`);
      expect(ms).toBeLessThan(6000);
      await page.close();
    } finally {
      await v.stop();
    }
  }, 60_000);
});

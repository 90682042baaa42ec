import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSandbox, type StartedSandbox } from '../src/index.js';
import { startReceiver } from './receiver.js';

/**
 * The dashboard in a real browser: headless Chromium (Debian's `chromium`) through playwright-core.
 * In CI (CI=true) it must run; on a machine without Chromium it is skipped with one line saying how
 * to install it. Screenshots go to a temporary directory, or to docs/ with SCREENSHOTS=1
 * (`npm run screenshots`).
 */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHOTS = process.env.SCREENSHOTS === '1' ? join(ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'payout-sandbox-shots-'));
const run = CHROMIUM || process.env.CI === 'true' ? describe : describe.skip;
if (!CHROMIUM && process.env.CI !== 'true') {
  console.log('dashboard browser test skipped: no Chromium found; install it (Debian: apt-get install chromium) or set CHROMIUM_PATH');
}

let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) throw new Error('CI=true but no Chromium: install it (apt-get install chromium) or set CHROMIUM_PATH');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

async function pageAt(url: string, width = 1280, height = 800): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  page.setDefaultTimeout(10_000);
  await page.goto(url);
  return page;
}

run('the dashboard, driven in Chromium', () => {
  let sb: StartedSandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver(() => 200);
    sb = await startSandbox({ clock: 'manual', seed: 1, webhookUrl: receiver.url });
  });
  afterAll(async () => {
    await sb?.stop();
    await receiver?.close();
  });

  test('pick a tenant, demo a payout that goes Pending then Failed as the clock moves, redeliver its webhook, restore a snapshot', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui`);
    await page.getByTestId('tenant').selectOption('SBXDEMO0001');
    // A snapshot of the start, from the page.
    await page.getByRole('button', { name: 'Sandbox', exact: true }).click();
    await page.getByLabel('Name').fill('before');
    await page.getByRole('button', { name: 'Snapshot', exact: true }).click();
    await page.getByRole('button', { name: 'Restore before' }).waitFor();

    await page.getByRole('button', { name: 'Demo', exact: true }).click();
    await page.getByTestId('demo-2002.01').waitFor();
    await page.screenshot({ path: join(SHOTS, 'dashboard-demo.png'), fullPage: false });
    await page.getByTestId('demo-2002.01').click();
    const heading = page.getByRole('heading', { level: 2 }).filter({ hasText: 'Payout' });
    await heading.getByText('Pending', { exact: true }).waitFor();
    const before = await page.getByTestId('clock-now').textContent();

    // The clock moves from the page; the status changes without a reload (the event stream).
    await page.getByRole('button', { name: '+1 min' }).click();
    await heading.getByText('Failed', { exact: true }).waitFor();
    expect(await page.getByTestId('clock-now').textContent()).not.toBe(before);
    await page.getByRole('cell', { name: 'Invalid account number' }).first().waitFor();

    // Its webhook delivery: attempted once, then redelivered from the page.
    const delivery = page.getByTestId('delivery').first();
    await delivery.getByTestId('attempt').first().waitFor();
    const attempts = await delivery.getByTestId('attempt').count();
    await page.screenshot({ path: join(SHOTS, 'dashboard-payout.png'), fullPage: true });
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await delivery.getByTestId('attempt').nth(attempts).waitFor();
    expect(await delivery.getByTestId('attempt').count()).toBe(attempts + 1);
    expect(receiver.received.length).toBeGreaterThanOrEqual(2);

    // A few more flows, so the list shows several lives.
    for (const demo of ['2002.02', '2002.03', '2002.05', '2002.06']) {
      await page.getByRole('button', { name: 'Demo', exact: true }).click();
      await page.getByTestId(`demo-${demo}`).click();
      await heading.waitFor();
    }
    await page.getByRole('button', { name: '+1 min' }).click();
    await page.getByRole('button', { name: '← Payouts' }).click();
    await page.getByRole('row').nth(5).waitFor();
    await page.getByRole('row').filter({ hasText: 'Unknown' }).first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'dashboard-payouts.png'), fullPage: false });

    // Back to the snapshot: the payout is gone.
    await page.getByRole('button', { name: 'Sandbox', exact: true }).click();
    await page.getByRole('button', { name: 'Restore before' }).click();
    await page.getByRole('button', { name: 'Payouts', exact: true }).click();
    await page.getByText('No payouts yet').waitFor();
    await page.close();
  }, 60_000);

  test('readable on a 390-px-wide phone screen: the views fit, tables scroll inside their card', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui`, 390, 844);
    await page.getByRole('button', { name: 'Accounts', exact: true }).click();
    await page.getByText('agrees with the balance').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.getByText('₹').first().isVisible()).toBe(true);
    await page.close();
  }, 30_000);
});

run('the dashboard behind --admin-token', () => {
  let sb: StartedSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ clock: 'manual', adminToken: 'dashboard-secret-token' });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  test('shows nothing but the prompt without the token; the right token opens it', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui`);
    await page.getByRole('heading', { name: 'Admin token' }).waitFor();
    expect(await page.getByTestId('tenant').count()).toBe(0);
    expect(await page.content()).not.toContain('SBXDEMO0001');
    await page.getByLabel('Token').fill('wrong');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByText('That token was refused.').waitFor();
    await page.getByLabel('Token').fill('dashboard-secret-token');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByTestId('tenant').waitFor();
    expect(await page.content()).toContain('SBXDEMO0001');
    await page.close();
  }, 30_000);
});

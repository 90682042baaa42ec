import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { type StartedSandbox, startSandbox } from '../src/index.js';
import { browserSuite, SHOTS, useBrowser } from './browser-helpers.js';
import { startReceiver } from './receiver.js';

/**
 * The dashboard in a real browser: headless Chromium (Debian's `chromium`) through playwright-core.
 * In CI (CI=true) it must run; on a machine without Chromium it is skipped with one line saying how
 * to install it. Screenshots go to a temporary directory, or to docs/ with SCREENSHOTS=1
 * (`npm run screenshots`).
 */
const run = browserSuite('dashboard browser test');
const getBrowser = useBrowser();

const TENANT = 'SBXDEMO0001';
const rupees = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2 });
/** Every time the dashboard shows, in its one format. */
const SHOWN_TIME = /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d IST$/;

async function pageAt(url: string, width = 1280, height = 800): Promise<Page> {
  const page = await getBrowser().newPage({ viewport: { width, height } });
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
    await page.getByRole('link', { name: 'Sandbox', exact: true }).click();
    await page.getByLabel('Name').fill('before');
    await page.getByRole('button', { name: 'Snapshot', exact: true }).click();
    await page.getByRole('button', { name: 'Restore before' }).waitFor();

    await page.getByRole('link', { name: 'Stories', exact: true }).click();
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
      await page.getByRole('link', { name: 'Stories', exact: true }).click();
      await page.getByTestId(`demo-${demo}`).click();
      await heading.waitFor();
    }
    await page.getByRole('button', { name: '+1 min' }).click();
    await page.getByRole('link', { name: '← Payouts' }).click();
    await page.getByRole('row').nth(5).waitFor();
    await page.getByRole('row').filter({ hasText: 'Unknown' }).first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'dashboard-payouts.png'), fullPage: false });

    // Back to the snapshot: the payout is gone.
    await page.getByRole('link', { name: 'Sandbox', exact: true }).click();
    await page.getByRole('button', { name: 'Restore before' }).click();
    await page.getByRole('link', { name: 'Payouts', exact: true }).click();
    await page.getByText('No payouts yet').waitFor();
    await page.close();
  }, 60_000);

  test('readable on a 390-px-wide phone screen: the views fit, tables scroll inside their card', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui`, 390, 844);
    // The first page of a fresh browser context, while the suite's other browser tests run beside
    // it on two cores, has taken over 10 s to paint (a clean-clone run, 2026-11-26): more room.
    page.setDefaultTimeout(25_000);
    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.getByText('agrees with the balance').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.locator('main').getByText('₹').first().isVisible()).toBe(true);
    await page.close();
  }, 60_000);

  /** The control API's answer to GET path. */
  async function control<T>(path: string): Promise<T> {
    return (await fetch(`${sb.controlUrl}${path}`)).json() as Promise<T>;
  }

  let made = 0;
  /** A payout of TENANT through the emulated API, as the demo picker makes one: its ref_id. */
  async function createPayout(amount: number): Promise<string> {
    const m = sb.tenant(TENANT);
    const res = await fetch(`${sb.url}/api/v2/public/payment/transfer`, {
      method: 'POST',
      headers: { ...m.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_ref_id: `LINK${Date.now()}${(made += 1)}`,
        transfer_type: 'BANK',
        amount,
        payment_method: '1001',
        debit_from: m.accounts[0],
        beneficiary_name: 'Linked Payee',
        beneficiary_email: 'payee@example.com',
        beneficiary_mobile: '9876543210',
        account_number: '123456789012',
        ifsc_code: 'HDFC0001234',
        purpose: 'VENDOR_PAYOUT',
        remarks: 'linked',
      }),
    });
    expect(res.status).toBe(200);
    return String(((await res.json()) as { data: { ref_id: string } }).data.ref_id);
  }

  const hash = (page: Page) => page.evaluate(() => location.hash);

  test('a link opens a payout: its data is asked for beside the tenant list (never after it) and is on screen with the page; Back and Forward move between views', async () => {
    const ref = await createPayout(2002.07);
    const page = await getBrowser().newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(10_000);
    // Whether "Loading payout …" was ever on screen.
    await page.addInitScript(() => {
      new MutationObserver(() => {
        if (document.getElementById('app')?.textContent?.includes('Loading payout')) document.documentElement.dataset.sawLoading = 'yes';
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    // The tenant list is held until the payout has been answered: a page that asked for the payout
    // only after the list would never get either.
    const payoutAnswered = page.waitForResponse((r) => r.url().endsWith(`/__sandbox/payouts/${ref}`));
    await page.route('**/__sandbox/merchants', async (route) => {
      await payoutAnswered;
      await route.continue();
    });
    await page.goto(`${sb.url}/__sandbox/ui#/m/${TENANT}/payouts/${ref}`);
    const heading = page.getByRole('heading', { level: 2, name: `Payout ${ref}` });
    await heading.waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.sawLoading)).toBeUndefined();
    expect(await page.getByTestId('tenant').inputValue()).toBe(TENANT);
    await page.unroute('**/__sandbox/merchants');

    // Into the list by the page's link, back to the payout with the browser's Back, and forward.
    await page.getByRole('link', { name: '← Payouts' }).click();
    await page.getByRole('link', { name: ref, exact: true }).waitFor();
    expect(await hash(page)).toBe(`#/m/${TENANT}/payouts`);
    await page.goBack();
    await heading.waitFor();
    expect(await hash(page)).toBe(`#/m/${TENANT}/payouts/${ref}`);
    await page.goForward();
    await page.getByRole('link', { name: ref, exact: true }).waitFor();
    // A tab is in the URL too.
    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.getByText('agrees with the balance').first().waitFor();
    expect(await hash(page)).toBe(`#/m/${TENANT}/accounts`);
    await page.goBack();
    await page.getByRole('link', { name: ref, exact: true }).click();
    await heading.waitFor();
    await page.close();
  }, 60_000);

  test('a payout page: the tenant balance in the header, one time format, force-status with nothing chosen until the user chooses', async () => {
    const ref = await createPayout(2002.07);
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/payouts/${ref}`);
    await page.getByRole('heading', { level: 2, name: `Payout ${ref}` }).waitFor();

    const { merchants } = await control<{ merchants: Array<{ merchant_id: string; accounts: Array<{ balance: number }> }> }>('/merchants');
    const total = merchants.find((m) => m.merchant_id === TENANT)!.accounts.reduce((sum, a) => sum + a.balance, 0);
    expect(await page.getByTestId('balance').textContent()).toBe(rupees.format(Math.round(total * 100) / 100));

    // Sandbox times in one format; real (wall-clock) times labelled and formatted otherwise (time.real).
    for (const at of await page.locator('time:not(.real)').allTextContents()) expect(at).toMatch(SHOWN_TIME);
    expect(await page.locator('time:not(.real)').count()).toBeGreaterThan(1);

    const force = page.getByLabel('Force status');
    const button = (disabled: boolean) => page.getByRole('button', { name: 'Force', exact: true, disabled });
    expect(await force.inputValue()).toBe('');
    expect(await button(true).count()).toBe(1);
    await force.selectOption('Failed');
    await button(false).click();
    await page.getByTestId('refund').getByText('Failed', { exact: false }).waitFor();
    await button(true).waitFor();
    expect(await force.inputValue()).toBe('');
    expect(await page.getByText('reversed', { exact: true }).count()).toBe(0);

    // The list shows its times the same way.
    await page.getByRole('link', { name: 'Payouts', exact: true }).click();
    await page.getByRole('link', { name: ref, exact: true }).waitFor();
    for (const at of await page.locator('main time:not(.real)').allTextContents()) expect(at).toMatch(SHOWN_TIME);
    expect(await page.locator('main').textContent()).not.toMatch(/\d{4}-\d\d-\d\d/);
    await page.close();
  }, 30_000);

  test('refused requests: a 1001.02 payout is refused INSUFFICIENT_BALANCE, and the Refused view lists it with its status, code and message', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/demo`);
    await page.getByTestId('demo-1001.02').click();
    const answer = page.getByRole('status');
    await answer.getByText('INSUFFICIENT_BALANCE').first().waitFor();
    const status = /HTTP (\d+)/.exec((await answer.getByRole('heading').textContent()) ?? '')![1];

    await page.getByRole('link', { name: 'Refused', exact: true }).click();
    expect(await hash(page)).toBe(`#/m/${TENANT}/refused`);
    const row = page.getByTestId('refused').filter({ hasText: 'INSUFFICIENT_BALANCE' }).first();
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[0]).toMatch(SHOWN_TIME);
    expect(cells.slice(1, 5)).toEqual(['POST /api/v2/public/payment/transfer', status, 'INSUFFICIENT_BALANCE', 'Insufficient balance in the account.']);
    await page.screenshot({ path: join(SHOTS, 'dashboard-refused.png'), fullPage: false });
    await page.close();
  }, 30_000);

  test('a 2002.05 payout advanced past 1 h shows it was reversed, and the refund', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/demo`);
    await page.getByTestId('demo-2002.05').click();
    const heading = page.getByRole('heading', { level: 2 }).filter({ hasText: 'Payout' });
    await heading.getByText('Pending', { exact: true }).waitFor();
    await page.getByRole('button', { name: '+1 min' }).click();
    await heading.getByText('Success', { exact: true }).waitFor();
    expect(await page.getByTestId('refund').count()).toBe(0);
    await page.getByRole('button', { name: '+1 h' }).click();
    await heading.getByText('Failed', { exact: true }).waitFor();
    await heading.getByText('reversed', { exact: true }).waitFor();

    const ref = /#\/m\/[^/]+\/payouts\/(\d+)$/.exec(await hash(page))![1];
    const { transaction: t } = await control<{ transaction: { amount: number; fees: number; tax: number } }>(`/payouts/${ref}`);
    const refund = page.getByTestId('refund');
    expect(await refund.textContent()).toContain('Reversed');
    expect(await refund.locator('strong').textContent()).toBe(rupees.format(Math.round((t.amount + t.fees + t.tax) * 100) / 100));
    await page.close();
  }, 30_000);

  test('a 3003.01 fault: the demo shows the 500 and the payout created all the same, whose page says how initialize was answered', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/demo`);
    await page.getByTestId('demo-3003.01').click();
    const answer = page.getByRole('status');
    await answer.getByRole('heading', { name: '3003.01: HTTP 500' }).waitFor();
    await answer.getByRole('link').click();
    await page.getByRole('heading', { level: 2 }).filter({ hasText: 'Payout' }).waitFor();
    expect(await page.getByTestId('fault').textContent()).toMatch(/Initialize answered with a fault \(rule 3003\.01\): HTTP 500/);
    await page.close();
  }, 30_000);

  test('the Review tab: a payout sent twice after a 500 is a high finding, its evidence links to the payouts', async () => {
    const m = (await (await fetch(`${sb.controlUrl}/merchants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
      merchant_id: string;
      account_no: string;
      headers: Record<string, string>;
    };
    const body = (ref: string) => ({
      client_ref_id: ref,
      transfer_type: 'BANK',
      amount: 3003.01,
      payment_method: '1001',
      debit_from: m.account_no,
      beneficiary_email: 'b@example.com',
      beneficiary_mobile: '9876543210',
      beneficiary_name: 'Payee',
      account_number: '123456789012',
      ifsc_code: 'HDFC0000001',
      purpose: 'VENDOR_PAYOUT',
      remarks: 'review',
    });
    for (const ref of ['REVIEW-1', 'REVIEW-2']) {
      await fetch(`${sb.url}/api/v2/public/payment/transfer`, {
        method: 'POST',
        headers: { ...m.headers, 'content-type': 'application/json' },
        body: JSON.stringify(body(ref)),
      });
    }
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${m.merchant_id}/review`);
    const group = page.getByTestId('rule-group').filter({ hasText: 'double-payout-after-timeout' });
    await group.waitFor();
    expect(await group.getByText('high', { exact: true }).count()).toBe(1);
    expect(await page.getByTestId('review-verdict').textContent()).toBe('not-ready');
    const finding = group.getByTestId('finding');
    expect(await finding.count()).toBe(1);
    expect(await finding.textContent()).toContain('₹3003.01 to 123456789012@HDFC0000001');
    await finding
      .getByRole('link', { name: /^payout \d+$/ })
      .first()
      .click();
    await page.getByRole('heading', { level: 2 }).filter({ hasText: 'Payout' }).waitFor();
    expect(await hash(page)).toMatch(new RegExp(`^#/m/${m.merchant_id}/payouts/\\d+$`));
    await page.close();
  }, 30_000);

  test('Outages & chaos: an outage started from the page is listed, and ended', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/failures`);
    const form = page.getByRole('form', { name: 'New outage' });
    await form.getByLabel('Bank (IFSC prefix)').fill('SBIN');
    await form.getByLabel('Effect').selectOption('hold');
    await form.getByRole('button', { name: 'Start outage' }).click();
    const row = page.getByTestId('outage').filter({ hasText: 'SBIN' });
    await row.getByText('down').waitFor();
    expect((await control<{ outages: Array<{ bank: string; effect: string }> }>('/outages')).outages).toEqual([
      expect.objectContaining({ bank: 'SBIN', effect: 'hold' }),
    ]);
    await row.getByRole('button', { name: 'End' }).click();
    await row.waitFor({ state: 'detached' });
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

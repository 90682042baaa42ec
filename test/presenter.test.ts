import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { type StartedSandbox, startSandbox } from '../src/index.js';
import { browserSuite, SHOTS, useBrowser } from './browser-helpers.js';
import { startReceiver } from './receiver.js';

/**
 * Presenter mode (docs/dashboard.md "Stories"), in headless Chromium at 1440×900 and 390×844:
 * every story of the shipped scenario played to its end with its narration; a sandbox on the real
 * clock tells its stories on a demo clock without waiting on wall time; no view wider than a
 * phone; the Review tab of 2,000 payouts painted within a second; no serious or critical axe-core
 * violation on any view, light or dark; copy-as-curl run with curl gets the same answer; the
 * dashboard's own files never in the journal. Screenshots of the story view (light, dark,
 * presenter, phone) go to docs/ with SCREENSHOTS=1 (`npm run screenshots`).
 */
const suite = browserSuite('presenter browser test');
const getBrowser = useBrowser();

const TENANT = 'SBXDEMO0001';
const TABS = [
  'payouts',
  'refused',
  'review',
  'accounts',
  'beneficiaries',
  'verifications',
  'checkout',
  'webhooks',
  'requests',
  'sequence',
  'demo',
  'failures',
  'sandbox',
];

interface Demo {
  name: string;
  amount: number;
  outcome: { kind: string };
  story: { title: string; summary?: string; steps?: Record<string, string> };
}

async function pageAt(url: string, width = 1440, height = 900, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  // A context of its own per page (axe-core's playwright builder asks for one).
  const page = await (await getBrowser().newContext({ viewport: { width, height }, colorScheme })).newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(url);
  return page;
}

const run = promisify(execFile);
/** Runs a command line with bash (async: the sandbox it calls answers from this process). */
const bash = (script: string, env: NodeJS.ProcessEnv = process.env) => run('bash', ['-c', script], { encoding: 'utf8', env, timeout: 15_000 });

/** Opens the stories, runs one, plays it to its end (a rejection is at its end at once). */
async function playStory(page: Page, base: string, name: string): Promise<void> {
  await page.goto(`${base}/__sandbox/ui?pause=0#/stories`);
  await page.getByTestId(`story-${name}`).click();
  await page.getByTestId('story-title').waitFor();
  const ended = page.getByTestId('story-ended');
  if (!(await ended.isVisible())) await page.getByTestId('story-play').click();
  await ended.waitFor();
}

/**
 * Waits (at most 10 s) for the page to show `selector`, then the caller reads what it shows: the
 * story's view says it ended as its last step returns, and shows the trace as of that step one
 * fetch later, which on a loaded machine comes after the test would otherwise read it.
 */
async function comesToShow(page: Page, selector: string, text?: string): Promise<void> {
  await page
    .waitForFunction(
      ([sel, t]) => {
        const el = document.querySelector(sel as string);
        return el !== null && (t === undefined || el.textContent === t);
      },
      [selector, text] as const,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
}

/** The view has its data: nothing on the page still "Loading…" (the page keeps its event stream open: never network-idle). */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !/Loading/.test(document.querySelector('main')?.textContent ?? 'Loading'));
}

/** Axe-core's serious and critical violations of the page as it is: rule, impact, the first element. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes[0]?.target.join(' ')} ${v.nodes[0]?.failureSummary?.split('\n')[1] ?? ''}`);
}

suite('presenter mode, driven in Chromium', () => {
  let sb: StartedSandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let demos: Demo[];
  beforeAll(async () => {
    receiver = await startReceiver(() => 200);
    sb = await startSandbox({ clock: 'manual', seed: 1, webhookUrl: receiver.url });
    demos = ((await (await fetch(`${sb.controlUrl}/demos`)).json()) as { demos: Demo[] }).demos;
  });
  afterAll(async () => {
    await sb?.stop();
    await receiver?.close();
  });

  test('every shipped story has a title and narration, plays to its end, and tells what the merchant code should do', async () => {
    expect(demos.length).toBe(20);
    const page = await pageAt(`${sb.url}/__sandbox/ui`);
    for (const demo of demos) {
      expect({ name: demo.name, title: demo.story.title.length > 0, answer: typeof demo.story.steps?.answer }).toEqual({
        name: demo.name,
        title: true,
        answer: 'string',
      });
      await playStory(page, sb.url, demo.name);
      await comesToShow(page, '[data-testid="moment-answer"][data-reached="yes"]');
      const answer = page.getByTestId('moment-answer');
      expect({ name: demo.name, reached: await answer.getAttribute('data-reached'), text: await answer.textContent() }).toEqual({
        name: demo.name,
        reached: 'yes',
        text: expect.stringContaining(demo.story.steps!.answer),
      });
      expect(await page.getByTestId('moment-end').getAttribute('data-reached')).toBe('yes');
      if (demo.outcome.kind === 'reject') {
        // A rejection: its envelope, beside what the code should do.
        expect(await page.getByTestId('story-envelope').textContent()).toMatch(/"(status|success)": false/);
        expect(await page.getByTestId('story-status').textContent()).toMatch(/Refused: [A-Z_]+/);
      }
    }
    // The ones that move: each status a payout took is a moment reached, in the end state.
    for (const [name, status, moments] of [
      ['2002.03', 'Success', ['Pending', 'Unknown', 'Success', 'webhook']],
      ['2002.05', 'Reversed', ['Success', 'Failed', 'reversed']],
      ['2002.08', 'Success', ['not_found', 'Success']],
      ['3003.02', 'Success', ['Pending', 'Success']],
    ] as const) {
      await playStory(page, sb.url, name);
      await comesToShow(page, '[data-testid="story-status"]', `Status: ${status}`);
      expect(await page.getByTestId('story-status').textContent()).toBe(`Status: ${status}`);
      for (const m of moments) {
        await comesToShow(page, `[data-testid="moment-${m}"][data-reached="yes"]`);
        expect({ name, m, reached: await page.getByTestId(`moment-${m}`).getAttribute('data-reached') }).toEqual({ name, m, reached: 'yes' });
      }
    }
    await page.close();
  }, 180_000);

  test('Step moves the story one event at a time; a moment has a link that opens the story at it', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui?pause=0#/stories`);
    await page.getByTestId('story-2002.03').click();
    await page.getByTestId('story-status').getByText('Pending').waitFor();
    await page.getByTestId('story-step').click();
    await page.getByTestId('story-status').getByText('Unknown').waitFor();
    expect(await page.getByTestId('moment-Success').getAttribute('data-reached')).toBe('no');
    const link = await page.getByTestId('moment-Unknown').getByRole('link', { name: 'link' }).getAttribute('href');
    expect(link).toMatch(/^#\/m\/SBX\w+\/story\/2002\.03\/Unknown$/);
    const other = await pageAt(`${sb.url}/__sandbox/ui${link}`);
    await other.locator('#moment-Unknown.target').waitFor();
    await other.close();
    await page.close();
  }, 60_000);

  test('on the real clock: the stories say they run on a demo clock of their own, and an hour-long story ends at once', async () => {
    const real = await startSandbox({ clock: 'real', seed: 2 });
    try {
      const page = await pageAt(`${real.url}/__sandbox/ui?pause=0#/stories`);
      await page.getByText('while the sandbox clock stays real').waitFor();
      expect(await page.getByRole('region', { name: 'Stories' }).textContent()).toMatch(/demo clock of its own/);
      const started = Date.now();
      await playStory(page, real.url, '2002.03'); // Unknown for an hour of its clock
      expect(await page.getByTestId('story-status').textContent()).toBe('Status: Success');
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(await page.getByTestId('demo-clock').textContent()).toMatch(/demo clock of its own \(manual\).*sandbox clock \(real\)/s);
      expect(((await (await fetch(`${real.controlUrl}/clock`)).json()) as { mode: string }).mode).toBe('real');
      await page.close();
    } finally {
      await real.stop();
    }
  }, 60_000);

  test('copy as curl: the command, run with curl, gets the same answer (placeholders by default, credentials when asked)', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui?pause=0#/stories`);
    await page.getByTestId('story-2002.01').click();
    await page.getByTestId('story-play').click();
    await page.getByTestId('story-ended').waitFor();
    const exchange = page.locator('[data-testid="seq-request"]').filter({ hasText: 'GET /api/v1/public/payment/transfer/status' }).last();
    await exchange.getByText('copy as curl').click();
    await exchange.getByTestId('curl').waitFor();
    const placeholder = (await exchange.getByTestId('curl').textContent())!;
    expect(placeholder).toContain('"x-api-key: $API_KEY"');
    expect(placeholder).not.toMatch(/sbx_key_/);
    await exchange.getByLabel("with this merchant's credentials").check();
    const real = (await exchange.getByTestId('curl').textContent())!;
    await exchange.getByText('request and answer').click();
    const recorded = (await exchange.locator('pre').last().textContent())!;
    const recordedBody = JSON.parse(recorded.slice(recorded.indexOf('{')));
    // Not spawnSync: the sandbox answering it runs in this process.
    const ran = await bash(real);
    expect(JSON.parse(ran.stdout)).toEqual(recordedBody);
    // The placeholders, given as variables: the same answer.
    const merchant = /#\/m\/([^/]+)/.exec(page.url())![1];
    const { merchants } = (await (await fetch(`${sb.controlUrl}/merchants`)).json()) as {
      merchants: Array<{ merchant_id: string; headers: Record<string, string> }>;
    };
    const h = merchants.find((m) => m.merchant_id === merchant)!.headers;
    const env = { ...process.env, MERCHANT_EMAIL: h['x-merchant-email'], API_KEY: h['x-api-key'], API_SECRET: h['x-api-secret'] };
    // Past the status check's rate limit (3 a minute per payout) on the story's clock: the payout itself is final, unchanged.
    await fetch(`${sb.controlUrl}/merchants/${merchant}/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"by":"1m"}',
    });
    const withVars = await bash(placeholder, env);
    expect(JSON.parse(withVars.stdout)).toEqual(recordedBody);
    await page.close();
  }, 60_000);

  test('no view is wider than a 390-px phone; the header is one line; tables scroll inside their card', async () => {
    // Something in every view: a refusal with the longest code, a payout, a story.
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/demo`, 390, 844);
    await page.getByTestId('demo-1001.04').click();
    await page.getByRole('status').getByText('TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE').first().waitFor();
    const widths: Array<[string, number]> = [];
    const header = async () => (await page.locator('header').boundingBox())!.height;
    for (const tab of TABS) {
      await page.goto(`${sb.url}/__sandbox/ui#/m/${TENANT}/${tab}`);
      await page.locator('main section, main .card, main p').first().waitFor();
      await settled(page);
      widths.push([tab, await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)]);
    }
    // One line: every part of the header on the same row.
    const tops = await page.locator('header > *:not(.skip)').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return Math.round((r.top + r.bottom) / 2 / 12);
      }),
    );
    expect(new Set(tops).size).toBe(1);
    expect(await header()).toBeLessThan(80);
    await playStory(page, sb.url, '3003.01');
    widths.push(['story', await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)]);
    await page.screenshot({ path: join(SHOTS, 'story-phone.png'), fullPage: false });
    expect(widths.filter(([, over]) => over > 0)).toEqual([]);
    await page.close();
  }, 120_000);

  test('axe-core: no serious or critical violation on any view, light and dark; the focus ring is 3:1 or more; a skip link; the title names the view', async () => {
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const page = await pageAt(`${sb.url}/__sandbox/ui`, 1440, 900, scheme);
      for (const tab of TABS) {
        await page.goto(`${sb.url}/__sandbox/ui#/m/${TENANT}/${tab}`);
        await page.locator('main section, main .card, main p').first().waitFor();
        await settled(page);
        found.push(...(await seriousViolations(page)).map((v) => `${scheme} ${tab}: ${v}`));
      }
      await playStory(page, sb.url, '2002.05');
      found.push(...(await seriousViolations(page)).map((v) => `${scheme} story: ${v}`));
      expect(await page.title()).toBe('Story 2002.05 · Story 2002.05 · payout-sandbox');
      await page.close();
    }
    expect(found).toEqual([]);

    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/accounts`);
    await page.locator('main .card').first().waitFor();
    expect(await page.title()).toBe('Accounts · Demo Merchant · payout-sandbox');
    // The first Tab stop skips to the view.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the view');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    // The focus ring against the page behind it.
    await page.keyboard.press('Tab');
    const ratio = await page.evaluate(() => {
      const lum = (c: string) => {
        const [r, g, b] = (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
          const s = Number(v) / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const ring = getComputedStyle(document.activeElement as Element).outlineColor;
      const behind = getComputedStyle(document.body).backgroundColor;
      const [a, b] = [lum(ring), lum(behind)].sort((x, y) => y - x);
      return (a + 0.05) / (b + 0.05);
    });
    expect(ratio).toBeGreaterThanOrEqual(3);
    await page.close();
  }, 180_000);

  test('themes: dark follows the system until switched; presenter type makes the sequence text 16 px or more; one colour per status, with its label', async () => {
    const page = await pageAt(`${sb.url}/__sandbox/ui?pause=0#/stories`, 1440, 900, 'dark');
    await page.getByTestId('theme').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    // The switch applies its theme as the view re-renders: waited for, not read at once.
    const themeBecomes = (t: string) => page.waitForFunction((want) => document.documentElement.dataset.theme === want, t);
    await page.getByTestId('theme').click();
    await themeBecomes('light');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await page.getByTestId('theme').click();
    await themeBecomes('dark');
    await playStory(page, sb.url, '2002.05');
    await page.screenshot({ path: join(SHOTS, 'story-dark.png'), fullPage: false });
    await page.getByTestId('theme').click();
    await page.screenshot({ path: join(SHOTS, 'story-light.png'), fullPage: false });
    await page.getByTestId('presenter').click();
    const size = await page
      .locator('.seq-label')
      .first()
      .evaluate((e) => Number.parseFloat(getComputedStyle(e).fontSize));
    expect(size).toBeGreaterThanOrEqual(16);
    await page.screenshot({ path: join(SHOTS, 'story-presenter.png'), fullPage: false });
    await page.getByTestId('presenter').click();
    const colours = await page.evaluate(() =>
      ['NEW', 'Pending', 'Unknown', 'Success', 'Failed', 'Reversed'].map((s) => {
        const el = document.createElement('span');
        el.className = `status status-${s}`;
        el.textContent = s;
        document.body.append(el);
        const colour = getComputedStyle(el).color;
        el.remove();
        return colour;
      }),
    );
    expect(new Set(colours).size).toBe(6);
    await page.close();
  }, 60_000);

  test("the dashboard's own requests (favicon, files) are never in the journal; /favicon.ico is an icon", async () => {
    const icon = await fetch(`${sb.url}/favicon.ico`);
    expect({ status: icon.status, type: icon.headers.get('content-type') }).toEqual({ status: 200, type: 'image/svg+xml; charset=utf-8' });
    const page = await pageAt(`${sb.url}/__sandbox/ui#/m/${TENANT}/requests`);
    await page.locator('main .card, main p').first().waitFor();
    await settled(page);
    const { requests } = (await (await fetch(`${sb.controlUrl}/requests?limit=500`)).json()) as { requests: Array<{ path?: string; url?: string }> };
    const paths = requests.map((r) => r.path ?? r.url ?? '');
    expect(paths.filter((p) => /favicon|\/__sandbox\/ui/.test(p))).toEqual([]);
    await page.close();
  }, 30_000);

  test('the Review tab of 2,000 payouts of one payment paints its first finding within a second', async () => {
    const m = (await (
      await fetch(`${sb.controlUrl}/merchants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ balance: 10_000_000, clock: { mode: 'manual' } }),
      })
    ).json()) as { merchant_id: string; account_no: string; headers: Record<string, string> };
    const body = (i: number) =>
      JSON.stringify({
        client_ref_id: `VOL${String(i).padStart(6, '0')}`,
        transfer_type: 'BANK',
        amount: 100,
        payment_method: '1001',
        debit_from: m.account_no,
        beneficiary_name: 'Payee',
        beneficiary_email: 'p@example.com',
        beneficiary_mobile: '9876543210',
        account_number: '123456789012',
        ifsc_code: 'HDFC0001234',
        purpose: 'VENDOR_PAYOUT',
        remarks: 'volume',
      });
    for (let i = 0; i < 2000; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, k) =>
          fetch(`${sb.url}/api/v1/public/payment/transfer`, {
            method: 'POST',
            headers: { ...m.headers, 'content-type': 'application/json' },
            body: body(i + k),
          }),
        ),
      );
    }
    const page = await getBrowser().newPage({ viewport: { width: 1440, height: 900 } });
    const started = Date.now();
    await page.goto(`${sb.url}/__sandbox/ui#/m/${m.merchant_id}/review`);
    await page.getByTestId('finding').first().waitFor();
    const ms = Date.now() - started;
    expect(ms).toBeLessThan(1000);
    expect(await page.evaluate(() => document.querySelectorAll('*').length)).toBeLessThan(3000);
    await page.close();
  }, 120_000);
});

import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

/**
 * Headless Chromium (Debian's `chromium`) through playwright-core for the browser tests: in CI
 * (CI=true) it must be there; elsewhere, without it, the file's tests are skipped with one line
 * saying how to install it. Screenshots go to a temporary directory, or to docs/ with
 * SCREENSHOTS=1 (`npm run screenshots`).
 */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SHOTS = process.env.SCREENSHOTS === '1' ? join(ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'payout-sandbox-shots-'));

/** `describe`, or `describe.skip` (said once) where there is no Chromium and this is not CI. */
export function browserSuite(what: string): jest.Describe {
  if (!CHROMIUM && process.env.CI !== 'true')
    console.log(`${what} skipped: no Chromium found; install it (Debian: apt-get install chromium) or set CHROMIUM_PATH`);
  return CHROMIUM || process.env.CI === 'true' ? describe : describe.skip;
}

/** Launches Chromium before the file's tests and closes it after; the browser, once launched. */
export function useBrowser(): () => Browser {
  let browser: Browser;
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('CI=true but no Chromium: install it (apt-get install chromium) or set CHROMIUM_PATH');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser;
}

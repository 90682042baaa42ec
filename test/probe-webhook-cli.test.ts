import { createHmac, timingSafeEqual } from 'node:crypto';
import { killAll, runCli } from './cli-helpers.js';
import { type Received, startReceiver } from './receiver.js';

/**
 * `payout-sandbox probe-webhook`: the receiver probe with no sandbox running, against receivers
 * on 127.0.0.1 (needs `npm run build`: it runs the real CLI).
 */

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SECRET = 'whsec_cli_probe_test_secret';
const CHECKS = ['valid-delivery', 'forged-signature', 'stale-timestamp', 'duplicate-delivery', 'unknown-field', 'answer-time'];

const receivers: Receiver[] = [];
afterEach(async () => {
  killAll();
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(respond?: (r: Received) => number): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** Verifies X-Sandbox-Signature-V2 (300 s tolerance) and acts on each delivery id once. */
function strict(): (r: Received) => number {
  const seen = new Set<string>();
  return (r) => {
    const parts = String(r.headers['x-sandbox-signature-v2'] ?? '')
      .split(',')
      .map((p) => p.split('='));
    const t = Number(parts.find(([k]) => k === 't')?.[1]);
    if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return 401;
    const expected = createHmac('sha256', SECRET).update(`${t}.${r.body}`).digest();
    if (!parts.some(([k, v]) => k === 'v1' && Buffer.from(v, 'hex').length === 32 && timingSafeEqual(Buffer.from(v, 'hex'), expected))) return 401;
    const id = String(r.headers['x-sandbox-delivery-id']);
    if (seen.has(id)) return 200;
    seen.add(id);
    return 204;
  };
}

test('a strict receiver passes every check: exit 0 and a readable table', async () => {
  const r = await receiver(strict());
  const { code, stdout } = await runCli(['probe-webhook', '--url', r.url, '--secret', SECRET]);
  expect(code).toBe(0);
  expect(stdout).toContain(`Probe of ${r.url}`);
  for (const check of CHECKS) expect(stdout).toMatch(new RegExp(`^${check}\\s+pass\\s`, 'm'));
  expect(stdout).toContain('OK: 6 of 6 checks passed.');
  expect(r.received.map((x) => x.headers['x-sandbox-probe'])).toEqual(CHECKS);
  // V2 by default.
  expect(JSON.parse(r.received[0].body)).toMatchObject({ success: true, data: { transaction: { status: 'Success' } } });
});

test('a naive receiver fails forged-signature and stale-timestamp: exit 1; --json gives { ok, url, checks }', async () => {
  const r = await receiver(() => 200);
  const table = await runCli(['probe-webhook', '--url', r.url, '--secret', SECRET]);
  expect(table.code).toBe(1);
  expect(table.stdout).toMatch(/^forged-signature\s+FAIL\s/m);
  expect(table.stdout).toMatch(/^stale-timestamp\s+FAIL\s/m);
  expect(table.stdout).toContain('FAILED: 4 of 6 checks passed.');

  const json = await runCli(['probe-webhook', '--url', r.url, '--secret', SECRET, '--json', '--version', 'v1']);
  expect(json.code).toBe(1);
  const result = JSON.parse(json.stdout);
  expect(result.ok).toBe(false);
  expect(result.url).toBe(r.url);
  expect(result.checks.map((c: { check: string; passed: boolean }) => [c.check, c.passed])).toEqual([
    ['valid-delivery', true],
    ['forged-signature', false],
    ['stale-timestamp', false],
    ['duplicate-delivery', true],
    ['unknown-field', true],
    ['answer-time', true],
  ]);
  expect(Object.keys(JSON.parse(r.received.at(-1)?.body ?? '{}'))).toEqual(['transaction']);
});

test('an unreachable receiver fails every check with the connection error (exit 1); a bad option exits 2', async () => {
  const closed = await receiver();
  await closed.close();
  const down = await runCli(['probe-webhook', '--url', closed.url, '--secret', SECRET, '--json']);
  expect(down.code).toBe(1);
  expect(JSON.parse(down.stdout).checks.map((c: { detail: string }) => c.detail)).toEqual(Array(6).fill('ECONNREFUSED'));

  const unknown = await runCli(['probe-webhook', '--url', closed.url, '--secret', SECRET, '--retries', '3']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/unknown option '--retries'/);
  expect((await runCli(['probe-webhook', '--secret', SECRET])).code).toBe(2);
  expect((await runCli(['probe-webhook', '--url', 'ftp://x', '--secret', SECRET])).code).toBe(2);
  // A URL nothing is sent to: a bad option (commander quotes the argument as typed, on the user's own terminal).
  const withPassword = await runCli(['probe-webhook', '--url', 'http://hooks:s3cret-pw@127.0.0.1:3000/h', '--secret', SECRET, '--json']);
  expect(withPassword.code).toBe(2);
  expect(withPassword.stderr).toMatch(/--url.*cannot be sent to: a URL with credentials \(user:password@\) is not sent to/);
  expect(withPassword.stdout).toBe('');
  const portZero = await runCli(['probe-webhook', '--url', 'http://127.0.0.1:0/h', '--secret', SECRET]);
  expect(portZero.code).toBe(2);
  expect(portZero.stderr).toMatch(/cannot be sent to: bad port: 0/);
  expect((await runCli(['probe-webhook', '--url', closed.url, '--secret', SECRET, '--version', 'v3'])).code).toBe(2);
});

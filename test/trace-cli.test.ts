import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Trace } from '../src/observe/trace.js';
import { BIN, killAll, runCli, startCli } from './cli-helpers.js';

/**
 * The trace from the command line (needs `npm run build`: it runs the real CLI): `--trace-dir` at
 * shutdown, `payout-sandbox trace` from a running sandbox, and `show-trace` refusing files it
 * cannot open (exit 2, naming the file and the problem; a damaged trace, the wrong field's JSON
 * path) and opening one as written. The viewer in a browser:
 * trace-viewer.test.ts.
 */

const require = createRequire(import.meta.url);
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> };
const TOKEN = 'trace-cli-admin-token';
const DEMO = { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001' };

const viewers = new Set<ChildProcess>();
afterEach(() => {
  killAll();
  for (const v of viewers) if (v.exitCode === null && v.signalCode === null) v.kill('SIGKILL');
  viewers.clear();
});

/** `show-trace FILE --port 0` until it prints the dashboard's URL (at most 15 s): its origin, and a stop that resolves to the exit code. */
function viewer(file: string): Promise<{ base: string; stop: () => Promise<number | null> }> {
  const proc = spawn(process.execPath, [BIN, 'show-trace', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  viewers.add(proc);
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const stop = () =>
    new Promise<number | null>((resolve) => {
      proc.once('exit', (code) => resolve(code));
      proc.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no dashboard URL within 15 s:\n${out}`)), 15_000);
    proc.stdout.on('data', () => {
      const m = /Dashboard:\s+(\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ base: new URL(m[1]).origin, stop });
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`show-trace exited ${code}:\n${out}`));
    });
  });
}

const dir = () => mkdtempSync(join(tmpdir(), 'payout-sandbox-trace-cli-'));

async function balance(url: string, headers: Record<string, string> = DEMO) {
  return fetch(`${url}/api/v1/public/balance/check?account_no=DEMOVAN0000000000001`, { headers });
}

test('--trace-dir: at SIGTERM, one trace per merchant that made a request (a 401 sent with its e-mail counts), and says so', async () => {
  const out = dir();
  const cli = await startCli(['--port', '0', '--data', 'memory', '--clock', 'manual', '--trace-dir', out, '--log-level', 'info']);
  await balance(cli.url);
  await balance(cli.url, { ...DEMO, 'x-api-secret': 'wrong' });
  expect(await cli.stop()).toBe(0);
  expect(readdirSync(out)).toEqual(['SBXDEMO0001.trace.json']);
  const t = JSON.parse(readFileSync(join(out, 'SBXDEMO0001.trace.json'), 'utf8')) as Trace;
  expect(t.requests.map((r) => r.status)).toEqual([200, 401]);
  expect(t.requests[1].auth_reason).toMatch(/secret/);
  expect(JSON.stringify(t)).not.toContain(DEMO['x-api-secret']);
  expect(cli.output()).toContain(`1 trace written to ${out}`);

  // The trace as written opens: checked against its schema, then served, its HAR too.
  const v = await viewer(join(out, 'SBXDEMO0001.trace.json'));
  const health = (await (await fetch(`${v.base}/__sandbox/health`)).json()) as { readonly: boolean; trace: { merchant_id: string } };
  expect(health).toMatchObject({ readonly: true, trace: { merchant_id: 'SBXDEMO0001' } });
  const har = await fetch(`${v.base}/__sandbox/merchants/SBXDEMO0001/trace?format=har`);
  expect(har.status).toBe(200);
  await expect(harValidator.har(await har.json())).resolves.toBeTruthy();
  expect(await v.stop()).toBe(0);
}, 30_000);

test('payout-sandbox trace: the JSON trace or HAR of a merchant from a running sandbox; an unknown merchant exits 1, a missing option 2', async () => {
  const cli = await startCli(['--port', '0', '--data', 'memory', '--clock', 'manual', '--admin-token', TOKEN]);
  await balance(cli.url);
  const out = dir();
  const json = join(out, 'demo.trace.json');
  const ok = await runCli(['trace', '--merchant', 'SBXDEMO0001', '-o', json, '--url', cli.url, '--admin-token', TOKEN]);
  expect(ok.code).toBe(0);
  expect(ok.stdout).toBe(
    `trace of 1 request, 0 payouts, 0 webhook deliveries of merchant SBXDEMO0001 written to ${json} (open it: payout-sandbox show-trace ${json})\n`,
  );
  const t = JSON.parse(readFileSync(json, 'utf8')) as Trace;
  expect(t).toMatchObject({ format: 'payout-sandbox-trace', merchant: { merchant_id: 'SBXDEMO0001' } });
  expect(readFileSync(json, 'utf8')).not.toContain(TOKEN);

  const har = join(out, 'demo.har');
  const h = await runCli(['trace', '--merchant', 'SBXDEMO0001', '-o', har, '--url', cli.url], { SANDBOX_ADMIN_TOKEN: TOKEN });
  expect(h.code).toBe(0);
  await expect(harValidator.har(JSON.parse(readFileSync(har, 'utf8')))).resolves.toBeTruthy();

  const unknown = await runCli(['trace', '--merchant', 'SBXNOSUCH0001', '-o', join(out, 'x.json'), '--url', cli.url, '--admin-token', TOKEN]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/HTTP 404.*SBXNOSUCH0001/);
  const noToken = await runCli(['trace', '--merchant', 'SBXDEMO0001', '-o', join(out, 'x.json'), '--url', cli.url]);
  expect(noToken.code).toBe(1);
  expect(noToken.stderr).toMatch(/HTTP 401.*--admin-token/);
  expect((await runCli(['trace', '-o', join(out, 'x.json'), '--url', cli.url])).code).toBe(2);
  expect(await cli.stop()).toBe(0);
}, 30_000);

describe('show-trace refuses a file it cannot open: exit 2, naming the file and the problem', () => {
  const out = dir();
  const good = (): Trace => ({
    format: 'payout-sandbox-trace',
    version: 1,
    generated_at: '2026-11-23T10:00:00.000+05:30',
    sandbox: { version: '0.1.0', scenario: 'default', journal_size: 1000, body_limits: { per_entry: 16384, per_merchant: 2097152 } },
    merchant: {
      merchant_id: 'SBXDEMO0001',
      name: 'Demo',
      email: 'demo@payout-sandbox.test',
      webhook_url: null,
      webhook_version: null,
      tax_rate_percent: 18,
      accounts: [],
      clock: { merchant_id: 'SBXDEMO0001', now: '2026-01-01T09:00:00.000+05:30', mode: 'manual', speed: 0, follows_sandbox_clock: true },
    },
    requests: [],
    payouts: [],
    deliveries: [],
    webhook_endpoint: null,
    probes: [],
    clock_moves: [],
    ledger: [],
    coverage: { merchant_id: 'SBXDEMO0001', summary: { covered: 0, total: 0, percent: 100 }, items: [] },
    review: null,
    cut: [],
  });
  const cases: Array<[string, string, RegExp]> = [
    ['not-json.trace.json', 'this is not JSON\n', /not a payout-sandbox trace \(not JSON/],
    ['other.json', '{"hello": "world"}', /not a payout-sandbox trace \(its "format" is not "payout-sandbox-trace"\)/],
    [
      'newer.trace.json',
      JSON.stringify({ ...good(), version: 99, sandbox: { ...good().sandbox, version: '9.0.0' } }),
      /trace version 99 is newer than this payout-sandbox reads \(up to 2\)/,
    ],
    ['cut.trace.json', JSON.stringify(good()).slice(0, 200), /truncated: the trace's JSON ends early/],
    ['a.har', '{"log": {"version": "1.2", "entries": []}}', /a HAR file, not a payout-sandbox trace/],
  ];
  test.each(cases)('%s', async (name, text, problem) => {
    const file = join(out, name);
    writeFileSync(file, text);
    const r = await runCli(['show-trace', file, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^payout-sandbox show-trace: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(r.stderr).toMatch(problem);
  });

  // Damaged or edited by hand: refused before anything is served, naming the first wrong field by
  // its JSON path, on one line; never a stack trace (these used to exit 1 with a TypeError, or
  // answer a 500 with an HTML stack trace on ?format=har).
  const damaged: Array<[string, (t: Record<string, unknown>) => void, string]> = [
    ['payouts: [null]', (t) => (t.payouts = [null]), '/payouts/0: must be object'],
    ['requests: [null, 1, "x"]', (t) => (t.requests = [null, 1, 'x']), '/requests/0: must be object'],
    ['no sandbox', (t) => delete t.sandbox, '/sandbox: is required'],
    ['merchant.clock a string', (t) => ((t.merchant as Record<string, unknown>).clock = '2026-01-01'), '/merchant/clock: must be object'],
    ['deliveries: [{}]', (t) => (t.deliveries = [{}]), '/deliveries/0/delivery_id: is required'],
    ['review a number', (t) => (t.review = 3), '/review: must be object or null'],
    ['generated_at not a time', (t) => (t.generated_at = 'yesterday'), '/generated_at: must match format "date-time"'],
  ];
  test.each(damaged)('damaged: %s', async (what, edit, problem) => {
    const file = join(out, `damaged-${what.replace(/\W+/g, '-')}.trace.json`);
    const t = good() as unknown as Record<string, unknown>;
    edit(t);
    writeFileSync(file, JSON.stringify(t));
    const r = await runCli(['show-trace', file, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`payout-sandbox show-trace: ${file}: not a valid trace (damaged, or edited by hand?): ${problem}\n`);
    expect(r.stderr).not.toMatch(/ {4}at |TypeError/);
  });

  test('the complete trace these damaged ones are made from opens', async () => {
    const file = join(out, 'good.trace.json');
    writeFileSync(file, JSON.stringify(good()));
    const v = await viewer(file);
    expect((await fetch(`${v.base}/__sandbox/merchants/SBXDEMO0001/trace?format=har`)).status).toBe(200);
    expect(await v.stop()).toBe(0);
  });

  test('a file that is not there; a bad port', async () => {
    const missing = await runCli(['show-trace', join(out, 'nope.trace.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.trace.json: cannot read it (no such file)');
    expect((await runCli(['show-trace', join(out, 'nope.trace.json'), '--port', 'x'])).code).toBe(2);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readHarText } from '../../src/fidelity/har.js';
import { startRecorder } from '../../src/fidelity/record.js';
import { verifySession } from '../../src/fidelity/verify.js';
import { type StartedSandbox, startSandbox } from '../../src/index.js';
import { killAll, runCli } from '../cli-helpers.js';
import { beneficiaryBody } from '../helpers.js';
import { startReceiver } from '../receiver.js';

afterAll(killAll);

/**
 * verify (docs/fidelity.md "Check the sandbox against the real service"): a recorded session
 * replayed against a fresh merchant of a sandbox, every behavioural difference reported.
 */

/** A merchant's calls to an API at `base` (a sandbox, a recorder): the answer's JSON. */
const caller = (base: string, headers: Record<string, string>) => async (method: string, path: string, b?: unknown) =>
  (
    await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: b === undefined ? undefined : JSON.stringify(b),
    })
  ).json();

const body = (over: Record<string, unknown> = {}) => ({
  client_ref_id: 'FID-0001',
  transfer_type: 'BANK',
  amount: 1500.5,
  payment_method: '1001',
  beneficiary_name: 'Ravi Kumar',
  beneficiary_email: 'ravi@example.com',
  beneficiary_mobile: '9876543210',
  account_number: '50100012345678',
  ifsc_code: 'HDFC0001234',
  purpose: 'VENDOR_PAYOUT',
  remarks: 'invoice 1',
  ...over,
});

/** A merchant's session on a sandbox: payouts and their statuses over time, a refusal, a balance, a beneficiary used once Active, a verification. */
async function session(sb: StartedSandbox): Promise<string> {
  const m = await sb.createMerchant({ clock: { mode: 'manual' }, balance: 500_000 });
  const call = caller(sb.url, m.headers);
  const van = m.accounts[0];
  const first = await call('POST', '/api/v2/public/payment/transfer', body({ debit_from: van }));
  await call('GET', `/api/v1/public/payment/transfer/status?ref_id=${first.data.ref_id}`);
  await m.advance('5s');
  await call('GET', '/api/v1/public/payment/transfer/status?client_ref_id=FID-0001');
  await call('POST', '/api/v1/public/payment/transfer', body({ debit_from: van, client_ref_id: 'FID-0002', amount: 1001.02 }));
  await call('POST', '/api/v1/public/payment/transfer', body({ debit_from: van, client_ref_id: 'FID-0003', amount: 2002.03 }));
  await m.advance('10s');
  await call('GET', '/api/v1/public/payment/transfer/status?client_ref_id=FID-0003');
  await call('GET', `/api/v1/public/balance/check?account_no=${van}`);
  const bene = await call('POST', '/api/v1/public/beneficiary/create', beneficiaryBody());
  await call('POST', '/api/v1/public/payment/transfer', { ...body({ debit_from: van, client_ref_id: 'FID-0004' }), beneficiary_id: bene.data.beneficiary_id });
  await m.advance('10s');
  await call('POST', '/api/v1/public/beneficiary/get', { beneficiary_id: bene.data.beneficiary_id });
  await call('POST', '/api/v1/public/payment/transfer', { ...body({ debit_from: van, client_ref_id: 'FID-0005' }), beneficiary_id: bene.data.beneficiary_id });
  await call('POST', '/api/v1/public/verification/', { debit_from: van, verification_type: 'PAN', pan: { pan_number: 'ABCDE1234F' } });
  return m.merchantId;
}

test('a trace (as HAR) of a session on the sandbox verifies at score 1 against the same sandbox', async () => {
  const sb = await startSandbox({ clock: 'manual' });
  try {
    const merchantId = await session(sb);
    const har = sb.admin.traces.har(merchantId);
    const report = await verifySession(har);
    expect(report.skipped).toEqual([]);
    expect(report.differences).toEqual([]);
    expect(report.score).toBe(1);
    expect(report.compared).toBe(12);
    expect(report.skipped).toEqual([]);
  } finally {
    await sb.stop();
  }
});

test('VANs are mapped in order of first use, one the service said was not active made inactive: three VANs verify at score 1', async () => {
  const sb = await startSandbox({ clock: 'manual' });
  try {
    const m = sb.merchant;
    const send = caller(sb.url, m.headers);
    const call = (path: string, b?: unknown) => send(b === undefined ? 'GET' : 'POST', path, b);
    // The demo merchant: two ACTIVE VANs and an INACTIVE one.
    await call('/api/v2/public/payment/transfer', body({ debit_from: 'DEMOVAN0000000000002', client_ref_id: 'VANS-0001' }));
    expect((await call('/api/v2/public/payment/transfer', body({ debit_from: 'DEMOVAN0000000000003', client_ref_id: 'VANS-0002' }))).error.code).toBe(
      'ACCOUNT_NOT_ACTIVE',
    );
    await call('/api/v2/public/payment/transfer', body({ debit_from: 'DEMOVAN0000000000001', client_ref_id: 'VANS-0003' }));
    await call('/api/v1/public/balance/check?account_no=DEMOVAN0000000000001');
    const report = await verifySession(sb.admin.traces.har(m.merchantId), { ignore: ['data.current_balance'] });
    expect([report.score, report.compared, report.differences]).toEqual([1, 4, []]);
  } finally {
    await sb.stop();
  }
});

test('a HAR with nothing of this API, or no HAR at all, is refused saying so', async () => {
  await expect(verifySession({ log: { version: '1.2', entries: [] } })).rejects.toThrow(/no entry to verify: 0 entries/);
  await expect(verifySession({ log: { version: '1.1', entries: [] } })).rejects.toThrow(/HAR version "1.1": only 1.2 is read/);
  await expect(verifySession({ log: { version: '1.2', entries: [{ response: { status: 200 } }] } })).rejects.toThrow(/entry 0: no request/);
  await expect(verifySession({})).rejects.toThrow(/not a HAR file/);
});

describe('a session recorded against a stand-in upstream that differs in known ways', () => {
  // The stand-in: settlement after 400 ms (real clock), amount 777 refused TRANSACTION_LIMIT_EXCEEDED,
  // 1001.02's message its own; and, through a proxy in front of it, a field the sandbox never answers.
  const STANDIN = {
    extends: 'default',
    name: 'stand-in',
    payouts: {
      default_timeline: [{ after: '400ms', status: 'Success' }],
      rules: [
        { name: 'limit-777', match: { amount: 777 }, reject: { code: 'TRANSACTION_LIMIT_EXCEEDED', message: 'Per-transaction limit breached.' } },
        { name: '1001.02', match: { amount: 1001.02 }, reject: { code: 'INSUFFICIENT_BALANCE', message: 'Low balance in your virtual account.' } },
      ],
    },
  };
  let dir: string;
  let upstream: StartedSandbox;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let proxy: Server;
  let har: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-verify-'));
    hooks = await startReceiver();
    upstream = await startSandbox({ scenario: STANDIN as never, webhookUrl: hooks.url });
    // A field the real service answers and the sandbox does not: added to every status check.
    proxy = createServer((req, res) => {
      const target = new URL(req.url ?? '/', upstream.url);
      const out = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (back) => {
        const chunks: Buffer[] = [];
        back.on('data', (c: Buffer) => chunks.push(c));
        back.on('end', () => {
          let text = Buffer.concat(chunks).toString('utf8');
          const json = JSON.parse(text);
          if (json?.data?.transaction) json.data.transaction.utr = 'UTR000000000001';
          text = JSON.stringify(json);
          res.writeHead(back.statusCode ?? 502, { 'content-type': 'application/json' }).end(text);
        });
      });
      req.pipe(out);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    har = join(dir, 'session.har');
    const recorder = await startRecorder({
      upstream: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      port: 0,
      out: har,
      allowLoopbackUpstream: true,
      scrub: ['account_number', 'beneficiary_mobile'],
    });
    const m = upstream.merchant;
    const call = caller(recorder.url, m.headers);
    try {
      const first = await call('POST', '/api/v2/public/payment/transfer', body({ debit_from: m.accounts[0], client_ref_id: 'STAND-0001' }));
      expect(first.success).toBe(true);
      await call('GET', '/api/v1/public/payment/transfer/status?client_ref_id=STAND-0001');
      // Wait on the event (its webhook), then look: Success about 400 ms after initialize.
      await hooks.waitFor(1);
      expect((await call('GET', `/api/v1/public/payment/transfer/status?ref_id=${first.data.ref_id}`)).data.transaction.status).toBe('Success');
      expect(
        (await call('POST', '/api/v2/public/payment/transfer', body({ debit_from: m.accounts[0], client_ref_id: 'STAND-0002', amount: 777 }))).error.code,
      ).toBe('TRANSACTION_LIMIT_EXCEEDED');
      await call('POST', '/api/v2/public/payment/transfer', body({ debit_from: m.accounts[0], client_ref_id: 'STAND-0003', amount: 1001.02 }));
      await call('GET', `/api/v1/public/balance/check?account_no=${m.accounts[0]}`);
    } finally {
      await recorder.close();
    }
  }, 30_000);

  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await upstream?.stop();
    await hooks?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const read = () => {
    const r = readHarText(readFileSync(har, 'utf8'));
    if ('problem' in r) throw new Error(r.problem);
    return r.har;
  };

  test('against the default scenario: exactly the known differences, and nothing else', async () => {
    const report = await verifySession(read());
    const found = report.differences.map((d) => [d.entry, d.kind, d.path]);
    expect(found).toEqual([
      [1, 'missing_field', 'data.transaction.utr'],
      [2, 'missing_field', 'data.transaction.utr'],
      // The sandbox never showed Success at those times: a sequence; a timing needs the status on both sides.
      [2, 'sequence', 'data.transaction.status'],
      [3, 'status', ''],
      [3, 'envelope', ''],
      [4, 'message', 'error.message'],
    ]);
    expect(report.differences.find((d) => d.kind === 'message')).toMatchObject({
      recorded: 'Low balance in your virtual account.',
      sandbox: 'Insufficient balance in the account.',
    });
    expect(report.compared).toBe(6);
    expect(report.score).toBe(Number((2 / 6).toFixed(4)));
  });

  test("against the stand-in's own scenario (its extra field ignored): score 1, and the command exits 0", async () => {
    const scenario = join(dir, 'standin.json');
    writeFileSync(scenario, JSON.stringify(STANDIN));
    const report = await verifySession(read(), { scenario, ignore: ['data.transaction.utr'] });
    expect(report.differences).toEqual([]);
    expect(report.score).toBe(1);
    const cli = await runCli(['verify', har, '--scenario', scenario, '--ignore', 'data.transaction.utr', '--report', join(dir, 'report.xml')]);
    expect(cli.code).toBe(0);
    expect(readFileSync(join(dir, 'report.xml'), 'utf8')).toContain('tests="6" failures="0"');
  });

  test('--suggest-scenario closes the delay, the message and the error code; the extra field needs a change to the sandbox', async () => {
    const suggested = join(dir, 'suggested.json');
    const first = await runCli(['verify', har, '--suggest-scenario', suggested, '--report', join(dir, 'report.md'), '--json']);
    expect(first.code).toBe(5);
    const scenario = JSON.parse(readFileSync(suggested, 'utf8'));
    expect(scenario.extends).toBe('default');
    expect(scenario.payouts.rules.map((r: { name: string }) => r.name)).toEqual([
      'recorded-amount-777-1001',
      'recorded-amount-1001.02-1001',
      'recorded-timeline-1001',
    ]);
    expect(scenario.payouts.rules[0].match).toEqual({ amount: 777, payment_method: '1001' });
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toMatch(/Needs a change to the sandbox[\s\S]*missing_field \| `data\.transaction\.utr`/);
    // Measured, not predicted: the session verified again with the suggestion, what remains is the field.
    const json = JSON.parse(first.stdout);
    expect(json.suggested_score).toBe(Number((4 / 6).toFixed(4)));
    expect(json.needs_sandbox_change.map((n: { kind: string; path: string; entries: number[] }) => [n.kind, n.path, n.entries])).toEqual([
      ['missing_field', 'data.transaction.utr', [1, 2]],
    ]);
    const again = await verifySession(read(), { scenario: suggested });
    expect(again.differences.map((d) => [d.kind, d.path])).toEqual([
      ['missing_field', 'data.transaction.utr'],
      ['missing_field', 'data.transaction.utr'],
    ]);
  });

  test('a recording cut short mid-write (a recorder killed) is verified: every whole entry, the one in flight left out', async () => {
    const text = readFileSync(har, 'utf8');
    const lines = text.trimEnd().split('\n');
    // The closing line gone and the last entry half written, as a SIGKILL during an append leaves it.
    const torn = [...lines.slice(0, -2), (lines.at(-2) as string).slice(0, 40)].join('\n');
    const cut = join(dir, 'cut.har');
    writeFileSync(cut, torn);
    const r = await runCli(['verify', cut, '--json']);
    expect(r.stderr).toMatch(/cut short/);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout).compared).toBe(5);
  });

  test('the recording holds none of the credentials used', () => {
    const text = readFileSync(har, 'utf8');
    const m = upstream.merchant;
    for (const secret of [m.apiKey, m.apiSecret, m.email, '50100012345678', '9876543210']) expect(text).not.toContain(secret);
  });
});

test('damaged HAR files: exit 2 naming the problem', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-verify-bad-'));
  try {
    const cases: Array<[string, string, RegExp]> = [
      ['not-json.har', 'this is not json', /not-json\.har: /],
      ['v11.har', JSON.stringify({ log: { version: '1.1', creator: { name: 'x', version: '1' }, entries: [] } }), /v11\.har: .*1\.1/],
      [
        'no-request.har',
        JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [{ response: { status: 200 } }] } }),
        /no-request\.har: .*request/,
      ],
      ['empty.har', JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [] } }), /empty\.har: no entry to verify/],
    ];
    for (const [name, text, message] of cases) {
      writeFileSync(join(dir, name), text);
      const r = await runCli(['verify', join(dir, name)]);
      expect([name, r.code]).toEqual([name, 2]);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarEntryLike } from '../../src/fidelity/calls.js';
import { substitute } from '../../src/fidelity/replay.js';
import { verifySession } from '../../src/fidelity/verify.js';
import { type StartedSandbox, startSandbox } from '../../src/index.js';
import { killAll, runCli } from '../cli-helpers.js';
import { beneficiaryBody, payoutBody } from '../helpers.js';

afterAll(killAll);

/**
 * verify on sessions as other tools and other clients write them (docs/fidelity.md "Check the
 * sandbox against the real service"): forms, a GET with a body, HAR `params` and base64 answers,
 * an upstream under a path, entries out of order, refusals, ids the session never made.
 */

/** One exchange with a sandbox over plain HTTP (a GET may carry a body), as a HAR entry. */
async function exchange(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; text?: string; mimeType?: string; at: number },
): Promise<HarEntryLike> {
  const url = new URL(path, base);
  const mimeType = options.mimeType ?? 'application/json';
  const headers: Record<string, string> = {
    ...(options.headers ?? {}),
    ...(options.text === undefined ? {} : { 'content-type': mimeType, 'content-length': String(Buffer.byteLength(options.text)) }),
  };
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(options.text);
  });
  return {
    startedDateTime: new Date(options.at).toISOString(),
    request: {
      method,
      url: url.href,
      headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
      ...(options.text === undefined ? {} : { postData: { mimeType, text: options.text } }),
    },
    response: { status: answer.status, content: { mimeType: 'application/json', text: answer.text } },
  };
}

const har = (entries: HarEntryLike[], info?: Record<string, unknown>) => ({
  log: { version: '1.2', creator: { name: 'test', version: '1' }, ...(info ? { _payout_sandbox: info } : {}), entries },
});

const T0 = Date.parse('2026-03-02T10:00:00Z');

describe('a session of forms, a GET with a body and an Aadhaar check', () => {
  let sb: StartedSandbox;
  let entries: HarEntryLike[];

  beforeAll(async () => {
    sb = await startSandbox({ clock: 'manual' });
    const m = await sb.createMerchant({ clock: { mode: 'manual' }, balance: 100_000 });
    const van = m.accounts[0] as string;
    const form = 'application/x-www-form-urlencoded';
    const at = (s: number) => T0 + s * 1000;
    const h = m.headers;
    const created = await exchange(sb.url, 'POST', '/api/v1/public/beneficiary/create', {
      headers: h,
      mimeType: form,
      text: new URLSearchParams(beneficiaryBody()).toString(),
      at: at(0),
    });
    const payout = await exchange(sb.url, 'POST', '/api/v2/public/payment/transfer', {
      headers: h,
      text: JSON.stringify(payoutBody({ client_ref_id: 'EDGE-0001', amount: 1500.5, debit_from: van })),
      at: at(1),
    });
    const refId = JSON.parse(payout.response.content?.text as string).data?.ref_id as string;
    if (refId === undefined) throw new Error(payout.response.content?.text);
    // The status check with its fields in a JSON body on the GET, as some clients send it.
    const status = await exchange(sb.url, 'GET', '/api/v1/public/payment/transfer/status', { headers: h, text: JSON.stringify({ ref_id: refId }), at: at(2) });
    const otp = await exchange(sb.url, 'POST', '/api/v1/public/verification/', {
      headers: h,
      mimeType: form,
      text: new URLSearchParams({ debit_from: van, verification_type: 'AADHAAR', 'aadhaar[aadhaar_number]': '234567890123' }).toString(),
      at: at(3),
    });
    const otpRef = JSON.parse(otp.response.content?.text as string).data.verify_response.ref_id as string;
    const verified = await exchange(sb.url, 'POST', '/api/v1/public/verification/', {
      headers: h,
      mimeType: form,
      text: new URLSearchParams({
        debit_from: van,
        verification_type: 'AADHAAR',
        'aadhaar[aadhaar_number]': '234567890123',
        'aadhaar[ref_id]': otpRef,
        'aadhaar[otp]': '123456',
      }).toString(),
      at: at(4),
    });
    // A call the real service refused for its credentials: replayed with the ones it was sent with.
    const refused = await exchange(sb.url, 'GET', `/api/v1/public/balance/check?account_no=${van}`, {
      headers: { ...h, 'x-api-key': 'scrubbed-x-api-key-9' },
      at: at(5),
    });
    entries = [created, payout, status, otp, verified, refused];
  }, 30_000);

  afterAll(async () => {
    await sb?.stop();
  });

  test('as recorded: the answers were what the test means (forms taken, the Aadhaar OTP verified, the bad key refused)', () => {
    const answers = entries.map((e) => [e.response.status, JSON.parse(e.response.content?.text as string)]);
    expect(answers.map(([s]) => s)).toEqual([200, 200, 200, 200, 200, 401]);
    expect(answers[4]?.[1].data.verify_response.valid).toBe(true);
    expect(answers[2]?.[1].data.transaction.client_ref_id).toBe('EDGE-0001');
  });

  test('replayed as sent (forms as forms, the GET body as its query, the OTP ref_id and the 401 credentials as recorded): score 1', async () => {
    const report = await verifySession(har(entries), { ignore: ['data.current_balance'] });
    expect(report.skipped).toEqual([]);
    expect(report.differences).toEqual([]);
    expect([report.score, report.compared]).toEqual([1, 6]);
  });

  test('what other tools write: a form as params only, a base64 answer, an upstream under a path, entries out of time order', async () => {
    const other = entries.map((e) => structuredClone(e));
    const created = other[0] as HarEntryLike;
    created.request.postData = {
      mimeType: 'application/x-www-form-urlencoded',
      params: [...new URLSearchParams(created.request.postData?.text)].map(([name, value]) => ({ name, value })),
    };
    const content = other[1]?.response.content as { text: string; encoding?: string };
    content.text = Buffer.from(content.text).toString('base64');
    content.encoding = 'base64';
    for (const e of other) e.request.url = e.request.url.replace(/^(http:\/\/[^/]+)/, '$1/gw/v1');
    const shuffled = [other[3], other[0], other[5], other[1], other[4], other[2]] as HarEntryLike[];
    const info = { upstream: 'https://uat.example.com/gw/v1', checkout_upstream: 'https://uat.example.com/gw/v1' };
    const report = await verifySession(har(shuffled, info), { ignore: ['data.current_balance'] });
    expect(report.differences).toEqual([]);
    expect([report.score, report.compared, report.not_api]).toEqual([1, 6, 0]);
    // Without the recorder's note of where the upstream was mounted, those paths are not this API's.
    expect((await verifySession(har([...shuffled, entries[0] as HarEntryLike]))).not_api).toBe(6);
  });

  test('a read of a payout or a verification the session did not make is not replayed, and says why; a path that does not decode neither', async () => {
    const status = structuredClone(entries[2]) as HarEntryLike;
    status.request.postData = { mimeType: 'application/json', text: JSON.stringify({ client_ref_id: 'MADE-ELSEWHERE' }) };
    const verification = structuredClone(entries[4]) as HarEntryLike;
    verification.request = { method: 'GET', url: `${new URL(entries[0]?.request.url as string).origin}/api/v1/public/verification/VRF0000000001` };
    const torn = structuredClone(entries[0]) as HarEntryLike;
    torn.request.method = 'GET';
    torn.request.url = `${new URL(entries[0]?.request.url as string).origin}/api/v1/public/verification/%E0%A4%A`;
    const report = await verifySession(har([entries[0] as HarEntryLike, status, verification, torn]));
    expect(report.skipped).toEqual([
      { entry: 1, reason: 'payout MADE-ELSEWHERE is read but was not initialized in this session' },
      { entry: 2, reason: 'verification VRF0000000001 is read but was not made in this session' },
      { entry: 3, reason: 'its path does not decode (/api/v1/public/verification/%E0%A4%A)' },
    ]);
    expect(report.compared).toBe(1);
  });
});

test('ids are substituted wherever they stand: strings, numbers (kept numbers while the id is digits), nested, in lists', () => {
  const ids = new Map([
    ['1234567890', '2000000001'],
    ['BENE1', 'BENE9'],
    ['OTP1', 'OTP9'],
  ]);
  expect(substitute({ ref_id: 1234567890, r: '1234567890', nested: { b: ['BENE1', 'other'] }, 'aadhaar[ref_id]': 'OTP1', n: 7 }, ids)).toEqual({
    ref_id: 2000000001,
    r: '2000000001',
    nested: { b: ['BENE9', 'other'] },
    'aadhaar[ref_id]': 'OTP9',
    n: 7,
  });
  expect(substitute({ ref_id: 1234567890 }, new Map([['1234567890', 'REF-A']]))).toEqual({ ref_id: 'REF-A' });
});

describe('the verify command refuses what it cannot do before it replays anything', () => {
  let dir: string;
  let file: string;
  let sb: StartedSandbox;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-verify-cli-'));
    sb = await startSandbox({ clock: 'manual', scenario: join(process.cwd(), 'scenarios', 'realistic.json') });
    const m = sb.merchant;
    const payout = await exchange(sb.url, 'POST', '/api/v2/public/payment/transfer', {
      headers: m.headers,
      text: JSON.stringify(payoutBody({ client_ref_id: 'CLI-00001', amount: 1500.5, debit_from: m.accounts[0] })),
      at: T0,
    });
    const payload = JSON.parse(payout.response.content?.text as string);
    payload.data.extra = 'only the real service says this';
    (payout.response.content as { text: string }).text = JSON.stringify(payload);
    file = join(dir, 'session.har');
    writeFileSync(file, JSON.stringify(har([payout])));
  }, 30_000);

  afterAll(async () => {
    await sb?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a report that cannot be written, a --scenario that is not there, --url with --scenario, a --url that is no URL: exit 2, no stack', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    const cases: Array<[string[], RegExp]> = [
      [['--report', join(dir, 'a-file', 'report.json')], /--report .*report\.json: cannot be written \(.*a-file is a file, not a directory/],
      [['--suggest-scenario', join(dir, 'a-file', 's.json')], /--suggest-scenario .*: cannot be written/],
      [['--scenario', join(dir, 'missing.json')], /--scenario .*missing\.json: it does not exist \(ENOENT\)/],
      [['--scenario', join(dir, 'a-file'), '--url', sb.url], /--scenario and --url do not go together/],
      [['--url', 'localhost:4010'], /--url localhost:4010: not an http\(s\) URL/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['verify', file, ...args]);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test('--ignore is repeatable (or comma-separated) and leaves the file where it stands', async () => {
    const r = await runCli(['verify', '--ignore', 'data.extra', '--ignore', 'data.none,data.other', file, '--json', '--url', sb.url]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ score: 1, compared: 1, differences: [] });
  });

  test("against a running sandbox (--url), the suggestion extends the scenario it runs, by the control API's name for it", async () => {
    const suggested = join(dir, 'suggested.json');
    const r = await runCli(['verify', file, '--url', sb.url, '--suggest-scenario', suggested, '--json']);
    expect(r.code).toBe(5);
    const report = JSON.parse(r.stdout);
    expect(report.differences.map((d: { kind: string; path: string }) => [d.kind, d.path])).toEqual([['missing_field', 'data.extra']]);
    expect(report.needs_sandbox_change).toHaveLength(1);
    expect(JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(suggested, 'utf8'))).extends).toBe('realistic');
  });
});

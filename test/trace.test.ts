import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StartedSandbox, startSandbox } from '../src/index.js';
import type { Har } from '../src/observe/har.js';
import { Journal, type RecordedEntry } from '../src/observe/journal.js';
import { narrowTrace, readTrace, redactUrl, TRACE_VERSION, type Trace, traceProblem } from '../src/observe/trace.js';
import { writeTraces } from '../src/sandbox/traces.js';
import { startReceiver } from './receiver.js';

/**
 * Traces (docs/trace.md): a merchant's run as one JSON document and as HAR, in-process against a
 * receiver on 127.0.0.1 and the manual clock. The viewer and the CLI verbs: trace-cli.test.ts.
 */

const require = createRequire(import.meta.url);
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> };

const ADMIN_TOKEN = 'trace-admin-token-0123456789';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let receiver: Receiver;
let sb: StartedSandbox;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  receiver = await startReceiver(() => 200);
  sb = await startSandbox({ clock: 'manual', seed: 7, adminToken: ADMIN_TOKEN });
});
afterAll(async () => {
  await sb?.stop();
  await receiver?.close();
});

async function control<T = Record<string, unknown>>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${sb.controlUrl}${path}`, { ...init, headers: { ...auth, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}

interface Made {
  merchant_id: string;
  account_no: string;
  api_secret: string;
  access_token: string;
  webhook_secret: string;
  headers: Record<string, string>;
}

async function merchant(): Promise<Made> {
  const { status, body } = await control<Made>('/merchants', { method: 'POST', body: JSON.stringify({ webhook_url: receiver.url, webhook_version: 'v2' }) });
  expect(status).toBe(201);
  return body;
}

function transfer(m: Made, amount: number, extra: Record<string, unknown> = {}) {
  return {
    client_ref_id: `TRACE-${amount}-${Math.random().toString(36).slice(2, 8)}`,
    transfer_type: 'BANK',
    amount,
    payment_method: '1001',
    debit_from: m.account_no,
    beneficiary_name: 'Trace Payee',
    beneficiary_email: 'payee@example.com',
    beneficiary_mobile: '9876543210',
    account_number: '123456789012',
    ifsc_code: 'HDFC0001234',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'trace test',
    ...extra,
  };
}

async function api(m: Made, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
  const res = await fetch(`${sb.url}${path}`, {
    method,
    headers: { ...m.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, id: res.headers.get('x-request-id') as string, json: (await res.json()) as { data: { ref_id: string | number } } };
}

describe('a reversal payout (2002.05) with webhooks to a receiver, on the manual clock', () => {
  let m: Made;
  let ref: string;
  let initializeId: string;
  let trace: Trace;

  beforeAll(async () => {
    m = await merchant();
    const made = await api(m, '/api/v2/public/payment/transfer', transfer(m, 2002.05));
    expect(made.status).toBe(200);
    ref = String(made.json.data.ref_id);
    initializeId = made.id;
    // A body field equal to a credential (a client that logs its config into remarks), and the admin token.
    await api(m, '/api/v2/public/payment/transfer', transfer(m, 1, { remarks: m.api_secret, client_ref_id: ADMIN_TOKEN }));
    await api(m, `/api/v1/public/payment/transfer/status?ref_id=${ref}`);
    // The sandbox clock first (the merchant follows it), then the merchant's own (it gets one).
    expect((await control('/clock/advance', { method: 'POST', body: JSON.stringify({ by: '1m' }) })).status).toBe(200);
    await control('/webhooks/settle', { method: 'POST' });
    expect((await control(`/merchants/${m.merchant_id}/clock/advance`, { method: 'POST', body: JSON.stringify({ by: '1h' }) })).status).toBe(200);
    await control('/webhooks/settle', { method: 'POST' });
    await api(m, `/api/v1/public/payment/transfer/status?ref_id=${ref}`);
    const got = await control<Trace>(`/merchants/${m.merchant_id}/trace`);
    expect(got.status).toBe(200);
    trace = got.body;
  });

  test('one versioned document: the merchant without secrets, every request with its bodies, rule, latency and both times', () => {
    expect(trace.format).toBe('payout-sandbox-trace');
    expect(trace.version).toBe(TRACE_VERSION);
    expect(trace.merchant).toMatchObject({ merchant_id: m.merchant_id, webhook_url: receiver.url });
    expect(Object.keys(trace.merchant)).not.toEqual(expect.arrayContaining(['api_secret']));
    const init = trace.requests.find((r) => r.request_id === initializeId);
    expect(init).toMatchObject({ method: 'POST', path: '/api/v2/public/payment/transfer', status: 200, rule: '2002.05', ref_id: ref });
    expect(JSON.parse(init!.request.body!)).toMatchObject({ amount: 2002.05, beneficiary_name: 'Trace Payee' });
    expect(JSON.parse(init!.response.body!)).toMatchObject({ success: true, data: { ref_id: ref } });
    expect(init!.request.headers['content-type']).toMatch(/^application\/json/);
    expect(init!.response.headers['x-sandbox-rule']).toBe('2002.05');
    expect(typeof init!.latency_ms).toBe('number');
    expect(init!.at).toMatch(/^2026-01-01T09:00:00\.000\+05:30$/);
    expect(Date.parse(init!.real_at!)).toBeGreaterThan(Date.now() - 60_000);
    const polls = trace.requests.filter((r) => r.path === '/api/v1/public/payment/transfer/status');
    expect(polls.map((p) => p.url)).toEqual([`/api/v1/public/payment/transfer/status?ref_id=${ref}`, `/api/v1/public/payment/transfer/status?ref_id=${ref}`]);
    expect(polls.map((p) => JSON.parse(p.response.body!).data.transaction.status)).toEqual(['Pending', 'Failed']);
  });

  test('the payout with both transitions on the sandbox clock, its deliveries with every attempt, the clock moves, ledger, coverage and review', () => {
    const p = trace.payouts.find((x) => x.ref_id === ref)!;
    expect(p.rule).toBe('2002.05');
    expect(p.reversed).toBe(true);
    expect(p.timeline.taken.map((s) => s.status)).toEqual(['Pending', 'Success', 'Failed']);
    expect(p.timeline.taken.map((s) => s.at)).toEqual(['2026-01-01T09:00:00.000+05:30', '2026-01-01T09:00:05.000+05:30', '2026-01-01T10:00:05.000+05:30']);
    for (const s of p.timeline.taken) expect(s.real_at).toEqual(expect.any(String));
    const mine = trace.deliveries.filter((d) => d.ref_id === ref);
    expect(mine.map((d) => d.event_status)).toEqual(['Success', 'Failed']);
    for (const d of mine) {
      expect(d.attempts).toEqual([expect.objectContaining({ n: 1, status: 200, kind: 'genuine', signature_valid: true, latency_ms: expect.any(Number) })]);
      expect(d.body).toMatchObject({ data: { transaction: { ref_id: Number(ref), status: d.event_status } } });
    }
    expect(receiver.received.length).toBeGreaterThanOrEqual(2);
    expect(trace.clock_moves.map((c) => [c.clock, c.by_ms, c.from])).toEqual([
      ['sandbox', 60_000, '2026-01-01T09:00:00.000+05:30'],
      ['merchant', 3_600_000, '2026-01-01T09:01:00.000+05:30'],
    ]);
    expect(trace.ledger[0]).toMatchObject({ account_no: m.account_no, balanced: true });
    expect(trace.ledger[0].entries.filter((e) => e.ref === ref).map((e) => e.type)).toEqual(['payout', 'fee', 'tax', 'refund', 'fee_refund', 'tax_refund']);
    expect(trace.coverage.merchant_id).toBe(m.merchant_id);
    expect(trace.coverage.items.find((i) => i.id === 'payout.reversed')?.hits).toBe(1);
    expect(trace.review).toMatchObject({ merchant_id: m.merchant_id });
    expect(trace.cut).toEqual([]);
  });

  test('no secret anywhere: API secret, access token, webhook secret and admin token redacted, credential headers too', () => {
    const text = JSON.stringify(trace);
    for (const secret of [m.api_secret, m.access_token, m.webhook_secret, ADMIN_TOKEN]) expect(text).not.toContain(secret);
    const logged = trace.requests.find((r) => r.request.body?.includes('"amount":1,'))!;
    expect(JSON.parse(logged.request.body!)).toMatchObject({ remarks: '[redacted]', client_ref_id: '[redacted]' });
    for (const r of trace.requests) expect(r.request.headers['x-api-secret']).toBe('[redacted]');
    expect(trace.requests[0].request.headers['x-merchant-email']).toBe(trace.merchant.email);
  });

  test('?format=har: HAR 1.2 of the same requests and the webhook attempts (marked), valid against the HAR schema', async () => {
    const { status, body: har, headers } = await control<Har>(`/merchants/${m.merchant_id}/trace?format=har`);
    expect(status).toBe(200);
    expect(headers.get('content-disposition')).toBe(`inline; filename="${m.merchant_id}.har"`);
    await expect(harValidator.har(har)).resolves.toBeTruthy();
    expect(har.log.version).toBe('1.2');
    const requests = har.log.entries.filter((e) => !e._webhook);
    const hooks = har.log.entries.filter((e) => e._webhook);
    expect(requests).toHaveLength(trace.requests.length);
    expect(hooks.map((e) => e._kind)).toEqual(trace.deliveries.flatMap((d) => d.attempts.map((a) => a.kind)));
    const init = requests.find((e) => e._request_id === initializeId)!;
    expect(init.request).toMatchObject({ method: 'POST', url: `${sb.url}/api/v2/public/payment/transfer` });
    expect(JSON.parse(init.request.postData?.text ?? '')).toMatchObject({ amount: 2002.05 });
    expect(init.response.status).toBe(200);
    expect(init._rule).toBe('2002.05');
    expect(hooks[0].request).toMatchObject({ method: 'POST', url: receiver.url });
    expect(JSON.stringify(har)).not.toContain(m.api_secret);
  });

  test('?ref_id= narrows it to one payout: its requests, deliveries and ledger entries; an unknown payout or merchant is a 404, a bad query a 400', async () => {
    const one = (await control<Trace>(`/merchants/${m.merchant_id}/trace?ref_id=${ref}`)).body;
    expect(one.ref_id).toBe(ref);
    expect(one.payouts.map((p) => p.ref_id)).toEqual([ref]);
    expect(one.requests.map((r) => r.ref_id)).toEqual([ref, ref, ref]);
    expect(one.deliveries).toHaveLength(2);
    expect(narrowTrace(trace, 'nope')).toBeNull();
    expect((await control(`/merchants/${m.merchant_id}/trace?ref_id=1`)).status).toBe(404);
    const unknown = await control<{ error: string }>('/merchants/SBXNOSUCH000/trace');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/SBXNOSUCH000/);
    const bad = await control<{ error: string }>(`/merchants/${m.merchant_id}/trace?format=pdf`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('The format field must be one of json, har.');
    // In-process, the same methods.
    expect(sb.admin.traces.trace(m.merchant_id).merchant.merchant_id).toBe(m.merchant_id);
    expect(sb.admin.traces.har(m.merchant_id, { ref_id: ref }).log.entries.length).toBeGreaterThan(0);
  });

  test('?last=N: the newest N of each list, with the payouts they name, and what was left out in cut (the dashboard pages with it)', async () => {
    const page = (await control<Trace>(`/merchants/${m.merchant_id}/trace?last=1`)).body;
    expect(page.requests).toEqual(trace.requests.slice(-1));
    expect(page.deliveries).toEqual(trace.deliveries.slice(-1));
    const named = new Set([...page.requests.map((r) => r.ref_id), ...page.deliveries.map((d) => d.ref_id), trace.payouts.at(-1)!.ref_id]);
    expect(page.payouts.map((p) => p.ref_id)).toEqual(trace.payouts.map((p) => p.ref_id).filter((id) => named.has(id)));
    expect(page.cut).toEqual(expect.arrayContaining([{ part: 'requests', kept: 1, left_out: trace.requests.length - 1, why: 'the newest 1 asked (last=1)' }]));
    // As many as there are: the whole trace, nothing cut.
    const all = (await control<Trace>(`/merchants/${m.merchant_id}/trace?last=100000`)).body;
    expect({ requests: all.requests.length, cut: all.cut }).toEqual({ requests: trace.requests.length, cut: trace.cut });
    expect((await control(`/merchants/${m.merchant_id}/trace?last=0`)).status).toBe(400);
  });

  test('the existing journal routes keep their shape: no bodies, no exchange', async () => {
    const entry = (await control<Record<string, unknown>>(`/requests/${initializeId}`)).body;
    expect(Object.keys(entry).sort()).toEqual(
      [
        'api',
        'at',
        'auth_reason',
        'error',
        'latency_ms',
        'merchant_id',
        'method',
        'path',
        'ref_id',
        'refused_transitions',
        'request_id',
        'rule',
        'status',
      ].sort(),
    );
  });

  test('readTrace reads back what was written; a trace of a newer version, a truncated one, or another JSON file is refused, saying why', () => {
    const text = JSON.stringify(trace);
    expect('trace' in readTrace(text)).toBe(true);
    expect(readTrace(JSON.stringify({ ...trace, version: TRACE_VERSION + 1 }))).toEqual({
      problem: expect.stringMatching(new RegExp(`^trace version ${TRACE_VERSION + 1} is newer than this payout-sandbox reads \\(up to ${TRACE_VERSION}\\)`)),
    });
    expect(readTrace(text.slice(0, text.length / 2))).toEqual({ problem: expect.stringMatching(/^truncated: /) });
    expect(readTrace('{"hello": 1}')).toEqual({ problem: expect.stringMatching(/^not a payout-sandbox trace/) });
    expect(readTrace('{"log": {"version": "1.2"}}')).toEqual({ problem: expect.stringMatching(/^a HAR file/) });
    expect(readTrace('col1,col2\n')).toEqual({ problem: expect.stringMatching(/^not a payout-sandbox trace \(not JSON/) });
  });
});

test("a webhook URL's password (from a data file written before such URLs were refused) and its credential-like query values are redacted; its user and the rest stay", () => {
  expect(redactUrl('http://hooks:s3cret@127.0.0.1:3000/in?token=abc&ok=1')).toBe('http://hooks:[redacted]@127.0.0.1:3000/in?token=[redacted]&ok=1');
  expect(redactUrl('https://:s3cret@hooks.example/in')).toBe('https://:[redacted]@hooks.example/in');
  // WHATWG URL ends the user part at the last @ before the path: all of it is the password.
  expect(redactUrl('http://u:s3cret@part@hooks.example/in')).toBe('http://u:[redacted]@hooks.example/in');
  for (const same of ['http://hooks@127.0.0.1:3000/in', 'http://127.0.0.1:3000/a:b@c', 'http://127.0.0.1:3000/in?x=a@b']) expect(redactUrl(same)).toBe(same);
});

describe('what show-trace reads back: every trace the sandbox writes passes the trace schema', () => {
  test('a run with webhook chaos, a receiver probe, scheduled and poll-driven steps, a fault, refusals and findings', async () => {
    const hooks = await startReceiver(() => 200);
    const run = await startSandbox({
      clock: 'manual',
      // Seed 5 draws every kind of chaotic attempt from these shares.
      seed: 5,
      webhookUrl: hooks.url,
      scenario: { extends: 'default', name: 'trace-chaos', webhooks: { chaos: { duplicate: 0.5, wrong_signature: 0.3, replay: 0.3, stale_timestamp: 0.3 } } },
    });
    try {
      const m = run.merchant;
      const pay = async (amount: number) => {
        const res = await fetch(`${run.url}/api/v2/public/payment/transfer`, {
          method: 'POST',
          headers: { ...m.headers, 'content-type': 'application/json' },
          body: JSON.stringify(transfer({ account_no: m.accounts[0] } as Made, amount)),
        });
        return String(((await res.json()) as { data?: { ref_id: string } }).data?.ref_id);
      };
      const poll = (ref: string) => fetch(`${run.url}/api/v1/public/payment/transfer/status?ref_id=${ref}`, { headers: m.headers });
      for (const amount of [100, 2002.05, 2002.02, 2002.07, 1001.02, 3003.01, 3003.01]) await pay(amount);
      await poll(await pay(2002.09));
      await fetch(`${run.url}/api/v1/public/balance/check?account_no=${m.accounts[0]}`, { headers: { ...m.headers, 'x-api-secret': 'wrong' } });
      const probed = await fetch(`${run.controlUrl}/merchants/${m.merchantId}/webhooks/probe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(probed.status).toBe(200);
      await run.advance('1m');
      await run.settleWebhooks();
      await run.advance('15m');
      await run.settleWebhooks();
      const t = run.admin.traces.trace(m.merchantId);
      // What the run is meant to hold, so the check below is of something.
      expect(new Set(t.deliveries.flatMap((d) => d.attempts.map((a) => a.kind)))).toEqual(new Set(['genuine', 'duplicate', 'forged', 'stale', 'replay']));
      expect(t.probes).toHaveLength(1);
      expect(t.payouts.some((p) => p.timeline.scheduled.some((s) => s.at !== null))).toBe(true);
      expect(t.payouts.some((p) => p.timeline.scheduled.some((s) => s.after_polls !== undefined))).toBe(true);
      expect(t.payouts.some((p) => p.initialize_fault !== null)).toBe(true);
      expect(t.review?.findings.length).toBeGreaterThan(0);
      expect(t.requests.some((r) => r.status === 401)).toBe(true);

      expect(traceProblem(t)).toBeNull();
      expect(readTrace(JSON.stringify(t))).toEqual({ trace: t });
      for (const p of t.payouts) expect(traceProblem(narrowTrace(t, p.ref_id))).toBeNull();
    } finally {
      await run.stop();
      await hooks.close();
    }
  }, 30_000);
});

describe('bounds: what was cut is said', () => {
  test('a journal smaller than the run: the trace says how many requests fell out, and why', async () => {
    const small = await startSandbox({ clock: 'manual', journalSize: 3 });
    try {
      const m = small.merchant;
      for (let i = 0; i < 5; i++) await fetch(`${small.url}/api/v1/public/balance/check?account_no=${m.accounts[0]}`, { headers: m.headers });
      const t = small.admin.traces.trace(m.merchantId);
      expect(t.requests).toHaveLength(3);
      expect(t.cut).toEqual([expect.objectContaining({ part: 'requests', kept: 3, left_out: 2, why: expect.stringContaining('--journal-size') })]);
      expect(traceProblem(t)).toBeNull();
    } finally {
      await small.stop();
    }
  });

  test('bodies: cut to the per-entry bound, and a merchant past its byte bound loses its oldest bodies first (another merchant keeps its own)', () => {
    const journal = new Journal(100, { perEntry: 100, perMerchant: 300 });
    const entry = (i: number, merchant: string, body: string) => journalEntry(i, merchant, body, '{}');
    journal.add(entry(0, 'A', 'a'.repeat(500)));
    expect(journal.exchangesOf('A', '')[0].x?.req_body).toHaveLength(100);
    for (let i = 1; i <= 4; i++) journal.add(entry(i, 'A', 'b'.repeat(90)));
    journal.add(entry(5, 'B', 'c'.repeat(90)));
    const kept = journal.exchangesOf('A', '').map((e) => e.x?.bodies_kept);
    expect(kept).toEqual([false, false, true, true, true]);
    expect(journal.exchangesOf('B', '')[0].x?.bodies_kept).toBe(true);
  });

  test('a merchant gone quiet keeps nothing once the ring has pushed its entries out (the journal holds --journal-size entries, not more)', () => {
    const journal = new Journal(50, { perEntry: 100, perMerchant: 1_000_000 });
    const entry = (i: number, merchant: string) => journalEntry(i, merchant, null, '{"ok":true}');
    // 100 quiet merchants, 40 requests each, then one busy merchant's 10,000.
    let i = 0;
    for (let m = 0; m < 100; m++) for (let k = 0; k < 40; k++) journal.add(entry(i++, `Q${m}`));
    for (let k = 0; k < 10_000; k++) {
      journal.add(entry(i++, 'BUSY'));
      expect(journal.heldEntries()).toBeLessThanOrEqual(50 + 65);
    }
    expect(journal.exchangesOf('Q0', '')).toHaveLength(0);
    expect(journal.exchangesOf('BUSY', '')).toHaveLength(50);
  });
});

describe('--trace-dir (in-process: traceDir)', () => {
  test('at stop, one trace per merchant that made a request; none for the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-traces-'));
    const s = await startSandbox({ clock: 'manual', traceDir: dir });
    const m = s.merchant;
    await fetch(`${s.url}/api/v1/public/balance/check?account_no=${m.accounts[0]}`, { headers: m.headers });
    await s.stop();
    expect(readdirSync(dir)).toEqual([`${m.merchantId}.trace.json`]);
    const t = JSON.parse(readFileSync(join(dir, `${m.merchantId}.trace.json`), 'utf8')) as Trace;
    expect(t.requests.map((r) => r.path)).toEqual(['/api/v1/public/balance/check']);
  });
});

describe('10,000 requests', () => {
  test('a 10,000-request trace is written in well under a second (asserted with a generous margin; bench/trace.js gives the figure)', async () => {
    const big = await startSandbox({ clock: 'manual', journalSize: 10_000, rateLimits: false, review: true });
    try {
      const m = big.merchant;
      const headers = { ...m.headers, 'content-type': 'application/json' };
      const one = async (i: number) => {
        if (i % 2 === 0) {
          const res = await fetch(`${big.url}/api/v2/public/payment/transfer`, {
            method: 'POST',
            headers,
            // Each to its own payee: the same payee again and again is a double payout to the review.
            body: JSON.stringify({
              ...transfer({ account_no: m.accounts[0] } as Made, 1),
              client_ref_id: `BULK${i}`,
              account_number: String(100000000000 + i),
            }),
          });
          await res.arrayBuffer();
        } else {
          await (await fetch(`${big.url}/api/v1/public/balance/check?account_no=${m.accounts[0]}`, { headers: m.headers })).arrayBuffer();
        }
      };
      for (let i = 0; i < 10_000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => one(i + k)));
      const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-traces-'));
      const started = performance.now();
      const files = await writeTraces(big.app.sandbox, dir);
      const ms = performance.now() - started;
      const t = JSON.parse(readFileSync(files[0], 'utf8')) as Trace;
      expect(t.requests).toHaveLength(10_000);
      expect(traceProblem(t)).toBeNull();
      console.log(`10,000-request trace written in ${Math.round(ms)} ms (${Math.round(readFileSync(files[0]).length / 1024)} KiB)`);
      expect(ms).toBeLessThan(3000);
    } finally {
      await big.stop();
    }
  }, 120_000);
});

/** A journal entry of the emulated API with the bodies given (as requestTracking records one). */
function journalEntry(i: number, merchant: string, reqBody: string | null, resBody: string): RecordedEntry {
  return {
    request_id: `r${i}`,
    method: 'POST',
    path: '/x',
    merchant_id: merchant,
    status: 200,
    at: 0,
    latency_ms: 1,
    rule: null,
    refused_transitions: [],
    ref_id: null,
    error: null,
    auth_reason: null,
    api: 'emulated',
    x: {
      real_at: 0,
      search: '',
      req_headers: {},
      req_body: reqBody,
      req_body_size: reqBody?.length ?? 0,
      res_headers: {},
      res_body: resBody,
      res_body_size: resBody.length,
      bodies_kept: true,
    },
  };
}

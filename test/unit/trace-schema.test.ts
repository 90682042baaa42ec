import { jest } from '@jest/globals';
import request from 'supertest';
import { viewerApp } from '../../src/client/show-trace.js';
import { traceHar } from '../../src/observe/har.js';
import { narrowTrace, readTrace, type Trace } from '../../src/observe/trace.js';
import type { TraceDocument } from '../../src/observe/trace-schema.js';

/**
 * A trace read back (`show-trace`) is checked against the trace document's schema before
 * anything is served: a damaged or hand-edited file is refused naming the first wrong field by
 * its JSON path, and whatever the schema lets through, the viewer, the HAR builder and
 * narrowTrace read without failing. Real traces, as the sandbox writes them, pass: trace.test.ts
 * and trace-cli.test.ts.
 */

// The schema and the type say the same thing: it admits every Trace, and what it admits is a
// Trace but for value lists (a cut's part, an attempt's kind), plain strings in the schema so the
// format can grow. A field added to one and not the other fails the type check.
type Loose<T> = T extends string ? string : T extends (infer U)[] ? Loose<U>[] : T extends object ? { [K in keyof T]: Loose<T[K]> } : T;
const admits = (t: Trace): TraceDocument => t;
const guarantees = (d: TraceDocument): Loose<Trace> => d;

const AT = '2026-01-01T09:00:00.000+05:30';
const REAL = '2026-11-23T10:00:00.000+05:30';

/** A trace with one of everything, every optional field present. */
function full(): Trace {
  const message = { headers: { host: '127.0.0.1:4010', 'content-type': 'application/json' }, body: '{}', body_size: 2, body_truncated: false };
  return {
    format: 'payout-sandbox-trace',
    version: 2,
    generated_at: REAL,
    sandbox: { version: '0.1.0', scenario: 'default', journal_size: 1000, body_limits: { per_entry: 16384, per_merchant: 2097152 } },
    merchant: {
      merchant_id: 'SBXDEMO0001',
      name: 'Demo',
      email: 'demo@payout-sandbox.test',
      webhook_url: 'http://127.0.0.1:9000/hook',
      webhook_version: 'v2',
      tax_rate_percent: 18,
      accounts: [{ account_no: 'DEMOVAN0000000000001', status: 'ACTIVE', balance: 1000 }],
      clock: { merchant_id: 'SBXDEMO0001', now: AT, mode: 'manual', speed: 0, follows_sandbox_clock: true },
    },
    requests: [
      {
        request_id: 'req-1',
        method: 'POST',
        path: '/api/v2/public/payment/transfer',
        url: '/api/v2/public/payment/transfer?x=1',
        status: 200,
        rule: '2002.05',
        refused_transitions: [{ id: 'req-1', from: 'Pending', to: 'Success', reason: 'forced' }],
        ref_id: '8936880018',
        error: { code: null, message: 'none' },
        auth_reason: null,
        latency_ms: 3.5,
        at: AT,
        real_at: REAL,
        request: message,
        response: { ...message, headers: { 'x-sandbox-rule': '2002.05' } },
        bodies_dropped: false,
      },
    ],
    payouts: [
      {
        ref_id: '8936880018',
        merchant_id: 'SBXDEMO0001',
        rule: '2002.05',
        version: 'v2',
        debit_from: 'DEMOVAN0000000000001',
        initialize_fault: null,
        reversed: false,
        refund: null,
        transaction: { status: 'Pending', payment_method: '1001', amount: 2002.05 },
        timeline: {
          taken: [{ status: 'Pending', at: AT, real_at: REAL, bank_res_msg: 'Pending' }],
          scheduled: [{ status: 'Success', at: null, bank_res_msg: null, after_polls: 2, polls: 0 }],
        },
      },
    ],
    deliveries: [
      {
        delivery_id: 'whd_1',
        merchant_id: 'SBXDEMO0001',
        ref_id: '8936880018',
        event_status: 'Success',
        version: 'v2',
        target_url: 'http://127.0.0.1:9000/hook',
        state: 'delivered',
        kind: 'genuine',
        created_at: AT,
        next_attempt_at: null,
        attempts: [{ n: 1, at: AT, status: 200, error: null, latency_ms: 4, signature_valid: true, kind: 'genuine', timestamp: 1795408200 }],
        body: { data: { transaction: { status: 'Success' } } },
      },
    ],
    webhook_endpoint: { merchant_id: 'SBXDEMO0001', state: 'enabled' },
    probes: [
      {
        at: AT,
        url: 'http://127.0.0.1:9000/hook',
        ok: true,
        checks: [{ check: 'valid-delivery', expected: '2xx', got: '200 in 3 ms', passed: true, detail: 'acknowledged' }],
      },
    ],
    clock_moves: [{ clock: 'sandbox', from: AT, to: '2026-01-01T09:01:00.000+05:30', by_ms: 60_000, real_at: REAL }],
    ledger: [
      {
        account_no: 'DEMOVAN0000000000001',
        status: 'ACTIVE',
        balance: 1000,
        ledger_sum: 1000,
        balanced: true,
        entries: [{ seq: 1, at: AT, type: 'payout', amount: -2002.05, balance_after: 1000, ref: '8936880018', note: 'payout' }],
      },
    ],
    coverage: {
      merchant_id: 'SBXDEMO0001',
      summary: { covered: 1, total: 1, percent: 100 },
      ignored: ['checkout'],
      items: [{ id: 'payout.reversed', group: 'payouts', description: 'a reversal', hits: 1, how: '2002.05' }],
    },
    review: {
      merchant_id: 'SBXDEMO0001',
      summary: { high: 1, medium: 0, low: 0, verdict: 'not-ready', rules: { failed: 1, passed: 0, unproven: 1 } },
      findings: [
        {
          rule: 'double-payout',
          severity: 'high',
          title: 'Paid twice',
          payment: '₹1.00 to 1@HDFC0000001',
          occurrences: 2,
          detail: 'd',
          advice: 'a',
          evidence: [
            { kind: 'request', id: 'req-1', url: '/__sandbox/requests/req-1' },
            { kind: 'delivery', id: 'whd_00000001', outbox_id: 'whd_00000002', delivery_kind: 'duplicate', attempt: 1, timestamp_age_s: null },
          ],
          more_evidence: 0,
          first_at: AT,
          at: AT,
          merchant_id: 'SBXDEMO0001',
        },
      ],
      findings_total: 1,
      rules: [
        { rule: 'double-payout', severity: 'high', title: 'Paid twice', result: 'failed', findings: 1, occurrences: 2 },
        { rule: 'forged', severity: 'high', title: 'Forged', result: 'unproven', findings: 0, occurrences: 0, how_to_exercise: 'the probe' },
      ],
      merchants: [{ merchant_id: 'SBXDEMO0001', verdict: 'not-ready', rules: [] }],
    },
    cut: [{ part: 'requests', kept: 1, left_out: 2, why: 'the journal' }],
    ref_id: '8936880018',
  };
}

/** The least the schema admits: optional fields absent, nullable ones null. */
function least(): Trace {
  const t = full();
  const r = t.requests[0];
  Object.assign(r, { status: null, rule: null, ref_id: null, error: null, real_at: null });
  r.request = { headers: {}, body: null, body_size: 0, body_truncated: false };
  r.response = { headers: {}, body: null, body_size: 0, body_truncated: false };
  r.refused_transitions = [];
  const p = t.payouts[0];
  delete p.timeline.taken[0].real_at;
  p.timeline.scheduled = [{ status: 'Success', at: null, bank_res_msg: null }];
  const a = t.deliveries[0].attempts[0];
  delete a.timestamp;
  Object.assign(a, { status: null, error: 'ECONNREFUSED' });
  delete t.coverage.ignored;
  delete t.review!.findings[0].merchant_id;
  delete t.ref_id;
  Object.assign(t.merchant, { webhook_url: null, webhook_version: null });
  return { ...t, webhook_endpoint: null, review: null, coverage: { ...t.coverage, merchant_id: null } };
}

/** Deletes the field, where an edit's value is DROP. */
const DROP = Symbol('drop');

/** `full()` with each JSON pointer of `edits` set to its value (or deleted), as the text of a file. */
function edited(edits: Record<string, unknown>): string {
  const t = full();
  for (const [pointer, value] of Object.entries(edits)) {
    const keys = pointer.split('/').slice(1);
    const last = keys.pop() as string;
    let at = t as unknown as Record<string, unknown>;
    for (const k of keys) at = at[k] as Record<string, unknown>;
    if (value === DROP) delete at[last];
    else at[last] = value;
  }
  return JSON.stringify(t);
}

const problemOf = (text: string) => {
  const read = readTrace(text);
  return 'problem' in read ? read.problem : null;
};

describe('readTrace: the document against its schema', () => {
  test('a trace with one of everything, and the least one, are read back', () => {
    expect(problemOf(JSON.stringify(full()))).toBeNull();
    expect(problemOf(JSON.stringify(least()))).toBeNull();
  });

  test('a version 1 trace (its review before verdicts and grouped findings) still opens, read as version 2', () => {
    const t = JSON.parse(JSON.stringify(full())) as Record<string, unknown> & { review: Record<string, unknown> };
    t.version = 1;
    t.review = {
      merchant_id: 'SBXDEMO0001',
      summary: { high: 1, medium: 0, low: 0 },
      findings: [{ rule: 'double-payout', severity: 'high', title: 'Paid twice', detail: 'd', advice: 'a', evidence: [{ kind: 'request', id: 'r' }], at: AT }],
      rules: [
        { rule: 'double-payout', severity: 'high', title: 'Paid twice' },
        { rule: 'other', severity: 'low', title: 'Other' },
      ],
    };
    const read = readTrace(JSON.stringify(t));
    if (!('trace' in read)) throw new Error(read.problem);
    expect(read.trace.review?.summary).toMatchObject({ verdict: 'not-ready', rules: { failed: 1, passed: 0, unproven: 1 } });
    expect(read.trace.review?.rules.map((r) => r.result)).toEqual(['failed', 'unproven']);
    expect(read.trace.review?.findings[0]).toMatchObject({ occurrences: 1, first_at: AT, more_evidence: 0 });
  });

  test('header names are data: a request that sent constructor or __proto__ headers still has a trace that opens', () => {
    const t = full();
    Reflect.set(t.requests[0].request.headers, 'constructor', 'x');
    const text = JSON.stringify(t).replace('"constructor":"x"', '"constructor":"x","__proto__":"y"');
    expect(problemOf(text)).toBeNull();
  });

  test('the schema and the Trace type agree (the compiler checks admits and guarantees)', () => {
    const t = full();
    expect(guarantees(admits(t))).toBe(t);
  });

  test('fields it does not know are allowed at every level (the format can grow)', () => {
    const text = edited({
      '/x_future': 1,
      '/merchant/fees': { IMPS: 5 },
      '/requests/0/x_future': { any: ['thing'] },
      '/requests/0/request/x_future': true,
      '/payouts/0/timeline/x_future': 1,
      '/deliveries/0/attempts/0/listener': 'http://127.0.0.1:3000/',
      '/cut/0/part': 'probes',
      '/deliveries/0/attempts/0/kind': 'a-kind-of-later',
    });
    expect(problemOf(text)).toBeNull();
  });

  const damaged: Array<[what: string, edits: Record<string, unknown>, problem: string]> = [
    ['payouts: [null]', { '/payouts': [null] }, '/payouts/0: must be object'],
    ['requests: [null, 1, "x"]', { '/requests': [null, 1, 'x'] }, '/requests/0: must be object'],
    ['no sandbox', { '/sandbox': DROP }, '/sandbox: is required'],
    ['merchant.clock a string', { '/merchant/clock': 'now' }, '/merchant/clock: must be object'],
    ['deliveries: [{}]', { '/deliveries': [{}] }, '/deliveries/0/delivery_id: is required'],
    ['no merchant.merchant_id', { '/merchant/merchant_id': DROP }, '/merchant/merchant_id: is required'],
    ['payouts not a list', { '/payouts': {} }, '/payouts: must be array'],
    ['a status as text', { '/requests/0/status': '200' }, '/requests/0/status: must be integer or null'],
    ['a time that is none', { '/requests/0/at': 'yesterday' }, '/requests/0/at: must match format "date-time"'],
    ['a leap second (no date to Date.parse)', { '/requests/0/real_at': '2026-12-31T23:59:60Z' }, '/requests/0/real_at: must match pattern'],
    ['a negative latency', { '/requests/0/latency_ms': -1 }, '/requests/0/latency_ms: must be >= 0'],
    ['a latency past any date', { '/requests/0/latency_ms': 1e300 }, '/requests/0/latency_ms: must be <= 1000000000000'],
    ['a header that is not text', { '/requests/0/request/headers/host': 5 }, '/requests/0/request/headers/host: must be string'],
    ['no timeline steps', { '/payouts/0/timeline/taken': DROP }, '/payouts/0/timeline/taken: is required'],
    ['a transaction without status', { '/payouts/0/transaction/status': DROP }, '/payouts/0/transaction/status: is required'],
    ['an attempt list of nulls', { '/deliveries/0/attempts': [null] }, '/deliveries/0/attempts/0: must be object'],
    ['a timestamp past year 9999', { '/deliveries/0/attempts/0/timestamp': 1e15 }, '/deliveries/0/attempts/0/timestamp: must be <= 253402300799'],
    ['a probe check of null', { '/probes/0/checks': [null] }, '/probes/0/checks/0: must be object'],
    ['a ledger entry ref a number', { '/ledger/0/entries/0/ref': 5 }, '/ledger/0/entries/0/ref: must be string or null'],
    ['the evidence not a list', { '/review/findings/0/evidence': null }, '/review/findings/0/evidence: must be array'],
    ['a review of the wrong type', { '/review': 'none' }, '/review: must be object or null'],
    ['the endpoint a list', { '/webhook_endpoint': [] }, '/webhook_endpoint: must be object or null'],
    ['coverage items missing', { '/coverage/items': DROP }, '/coverage/items: is required'],
    ['a cut count as text', { '/cut/0/left_out': '2' }, '/cut/0/left_out: must be integer'],
    ['clock_moves of null', { '/clock_moves': null }, '/clock_moves: must be array'],
    ['ref_id a number', { '/ref_id': 5 }, '/ref_id: must be string'],
  ];
  test.each(damaged)('%s: refused, naming the field by its JSON path', (_what, edits, problem) => {
    const got = problemOf(edited(edits));
    expect(got).toMatch(/^not a valid trace \(damaged, or edited by hand\?\): \//);
    expect(got).toContain(problem);
    expect(got).not.toContain('\n');
  });

  test('a key with a line break in it is named on one line', () => {
    const got = problemOf(edited({ '/requests/0/request/headers': { 'x-a\nb': 5 } }));
    expect(got).toBe('not a valid trace (damaged, or edited by hand?): /requests/0/request/headers/x-a\\nb: must be string');
  });

  test('the friendly problems come first: not a trace, a HAR, a newer version', () => {
    expect(problemOf(edited({ '/format': 'other', '/payouts': [null] }))).toMatch(/^not a payout-sandbox trace \(its "format"/);
    expect(problemOf(edited({ '/version': 3, '/payouts': [null], '/sandbox': null }))).toMatch(
      /^trace version 3 is newer than this payout-sandbox reads \(up to 2\): open it with the payout-sandbox that wrote it \(a newer version\)/,
    );
    expect(problemOf('{"log": {"version": "1.2"}, "payouts": [null]}')).toMatch(/^a HAR file/);
    expect(problemOf('[null]')).toBe('not a payout-sandbox trace (not a JSON object)');
  });
});

describe('what the schema lets through, the readers read', () => {
  test.each([
    ['one of everything', full],
    ['the least', least],
  ])('%s: HAR, narrowing, and every route of the viewer', async (_what, make) => {
    const t = make();
    expect(traceHar(t).log.entries).toHaveLength(3);
    expect(narrowTrace(t, '8936880018')?.payouts).toHaveLength(1);
    const app = viewerApp(t, 'x.trace.json');
    const C = '/__sandbox';
    for (const path of [
      '/health',
      '/merchants',
      '/clock',
      '/merchants/SBXDEMO0001/clock',
      '/merchants/SBXDEMO0001/payouts?status=Pending&cursor=x',
      '/payouts/8936880018',
      '/accounts/DEMOVAN0000000000001/ledger',
      '/requests?refused=true',
      '/requests/req-1',
      '/review',
      '/coverage',
      '/webhooks?ref_id=8936880018',
      '/merchants/SBXDEMO0001/webhooks/endpoint',
      '/merchants/SBXDEMO0001/webhooks/probes',
      '/merchants/SBXDEMO0001/trace',
      '/merchants/SBXDEMO0001/trace?format=har',
      '/merchants/SBXDEMO0001/trace?ref_id=8936880018&format=har',
    ]) {
      const res = await request(app).get(`${C}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
    }
  });
});

describe('the viewer never answers a stack trace', () => {
  test('an unexpected error is a JSON 500 naming the route and the file, without the stack', async () => {
    const t = full();
    Object.defineProperty(t, 'coverage', {
      get() {
        throw new TypeError("Cannot read properties of undefined (reading 'items')");
      },
    });
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((s) => {
      written.push(String(s));
      return true;
    });
    try {
      const res = await request(viewerApp(t, 'x.trace.json')).get('/__sandbox/coverage');
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: 'The trace viewer could not answer GET /__sandbox/coverage from x.trace.json (its console says why).' });
      expect(res.text).not.toMatch(/ {4}at |TypeError|<html|<pre/i);
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toMatch(/GET \/__sandbox\/coverage failed: TypeError/);
  });

  test("a request's own error (a path that is not URL-encoded right) keeps its 4xx, as JSON", async () => {
    const res = await request(viewerApp(full(), 'x.trace.json')).get('/__sandbox/payouts/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(res.text).not.toMatch(/ {4}at |<html|<pre/i);
  });
});

describe('the viewer answers only its own page and tools', () => {
  test('a foreign Host (DNS rebinding) or another page is refused; its own names are answered', async () => {
    const app = viewerApp(full(), 'x.trace.json');
    expect((await request(app).get('/__sandbox/merchants').set('Host', 'attacker.example:4020')).status).toBe(403);
    expect((await request(app).get('/__sandbox/merchants').set('Origin', 'http://evil.example')).status).toBe(403);
    expect((await request(app).get('/__sandbox/ui/').set('Sec-Fetch-Site', 'cross-site')).status).toBe(403);
    expect((await request(app).get('/__sandbox/merchants').set('Host', 'localhost:4020')).status).toBe(200);
    expect((await request(app).get('/__sandbox/merchants').set('Host', '127.0.0.1:4020')).status).toBe(200);
  });
});

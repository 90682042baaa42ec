import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { reviewJunit, reviewMarkdown } from '../src/observe/review/report.js';
import { RULES } from '../src/observe/review/rules.js';
import { KINDS } from '../src/webhooks/kinds.js';
import { advanceBy, DEMO, demoHeaders, payoutBody, testApp } from './helpers.js';

/**
 * The judge (docs/review.md): results failed / passed / unproven and a verdict, findings one per
 * rule and payment however often it happened, the E case (paying again after a reordered
 * webhook) flagged high, and the table of delivery kinds the docs print read from the code.
 */

interface Tenant {
  merchant_id: string;
  account_no: string;
  headers: Record<string, string>;
}

async function merchant(app: SandboxApp, body: Record<string, unknown> = {}): Promise<Tenant> {
  const m = (
    await request(app)
      .post('/__sandbox/merchants')
      .send({ balance: 100_000_000, ...body })
  ).body;
  return { merchant_id: m.merchant_id, account_no: m.account_no, headers: m.headers };
}

const pay = (app: SandboxApp, m: Tenant, body: Record<string, unknown>) =>
  request(app)
    .post('/api/v2/public/payment/transfer')
    .set(m.headers)
    .send(payoutBody({ debit_from: m.account_no, ...body }));

const review = async (app: SandboxApp, m: Tenant, query = '') => (await request(app).get(`/__sandbox/merchants/${m.merchant_id}/review${query}`)).body;

test('a suite that exercised nothing: every rule unproven, each with how to exercise it; the verdict says so', async () => {
  const app = await testApp();
  const m = await merchant(app);
  const r = await review(app, m);
  expect(r.summary).toEqual({ high: 0, medium: 0, low: 0, verdict: 'unproven', rules: { failed: 0, passed: 0, unproven: RULES.length } });
  expect(r.rules.map((x: { rule: string }) => x.rule)).toEqual(RULES.map((x) => x.rule));
  for (const x of r.rules) expect(x).toMatchObject({ result: 'unproven', how_to_exercise: expect.any(String) });
  expect(r.rules.find((x: { rule: string }) => x.rule === 'double-payout-after-timeout').how_to_exercise).toMatch(/3003\.01/);
  const md = (await request(app).get(`/__sandbox/merchants/${m.merchant_id}/review?format=markdown`)).text;
  expect(md).toMatch(/\*\*unproven\*\*/);
  expect(md).toMatch(/\*\*Not proven\*\*/);
  expect(md).not.toMatch(/every rule passed/);
  const junit = (await request(app).get(`/__sandbox/merchants/${m.merchant_id}/review?format=junit`)).text;
  expect(junit).toContain(`tests="${RULES.length}" failures="0" skipped="${RULES.length}"`);
  await app.sandbox.close();
});

test('a rule whose situation arose and was handled is passed: a 3003.01 looked up, not sent again', async () => {
  const app = await testApp();
  const m = await merchant(app);
  const first = await pay(app, m, { amount: 3003.01, client_ref_id: 'CAREFUL-T1' });
  expect(first.status).toBe(500);
  // Retried with the same client_ref_id: refused as a duplicate, nothing paid twice.
  expect((await pay(app, m, { amount: 3003.01, client_ref_id: 'CAREFUL-T1' })).body.error.message).toBe('Duplicate Client Reference ID');
  const r = await review(app, m);
  expect(r.rules.find((x: { rule: string }) => x.rule === 'double-payout-after-timeout')).toMatchObject({ result: 'passed', findings: 0 });
  await app.sandbox.close();
});

test('2,000 payouts of one payment, each paid again: one finding per rule and payment, bounded evidence, small answers', async () => {
  const app = await testApp({ maxRecordsPerMerchant: 10_000 });
  const m = await merchant(app);
  // One listening server for the 2,000 requests (supertest would start one per request).
  const server = app.listen(0, '127.0.0.1');
  const agent = request(server);
  for (let i = 0; i < 2000; i++) {
    const res = await agent
      .post('/api/v2/public/payment/transfer')
      .set(m.headers)
      .send(payoutBody({ debit_from: m.account_no, amount: 100, client_ref_id: `SAME-${String(i).padStart(5, '0')}` }));
    expect(res.status).toBe(200);
  }
  server.closeAllConnections();
  server.close();
  const json = (await request(app).get(`/__sandbox/merchants/${m.merchant_id}/review`)).text;
  const r = JSON.parse(json);
  const doubles = r.findings.filter((f: { rule: string }) => f.rule.startsWith('double-payout'));
  expect(doubles).toHaveLength(1);
  expect(doubles[0]).toMatchObject({ rule: 'double-payout-while-unresolved', occurrences: 1999, payment: '₹100.00 to 123456789012@HDFC0001234' });
  expect(doubles[0].evidence.length).toBeLessThanOrEqual(20);
  expect(doubles[0].more_evidence).toBeGreaterThan(0);
  expect(doubles[0].detail).toMatch(/It happened 1999 times for ₹100\.00 to 123456789012@HDFC0001234; the last: .*SAME-01999/);
  expect(Buffer.byteLength(json)).toBeLessThan(1024 * 1024);
  expect(Buffer.byteLength(reviewMarkdown(app.sandbox.admin.review(m.merchant_id)))).toBeLessThan(1024 * 1024);
  // Settled, every one of them Success within the repeat window: paid again after success.
  await advanceBy(app, '10s');
  const after = await review(app, m);
  expect(
    after.findings
      .filter((f: { rule: string }) => f.rule.startsWith('double-payout'))
      .map((f: { rule: string; occurrences: number }) => [f.rule, f.occurrences]),
  ).toEqual([['double-payout-while-unresolved', 1999]]);
  await app.sandbox.close();
}, 60_000);

test('#repeat in remarks marks an intended repeat; a payment paid again long after it succeeded is no finding', async () => {
  const app = await testApp();
  const m = await merchant(app);
  await pay(app, m, { amount: 250, client_ref_id: 'SALARY-2026-10' });
  await advanceBy(app, '10s');
  await pay(app, m, { amount: 250, client_ref_id: 'SALARY-2026-11', remarks: 'salary 2026-11 #repeat' });
  await advanceBy(app, '2h');
  await pay(app, m, { amount: 250, client_ref_id: 'SALARY-2026-12' });
  expect((await review(app, m)).findings.filter((f: { rule: string }) => f.rule.startsWith('double-payout'))).toEqual([]);
  // Within the window and not marked: a finding.
  await pay(app, m, { amount: 250, client_ref_id: 'SALARY-AGAIN' });
  await advanceBy(app, '10s');
  await pay(app, m, { amount: 250, client_ref_id: 'SALARY-AGAIN-2' });
  const f = (await review(app, m)).findings.find((x: { rule: string }) => x.rule === 'double-payout-after-success');
  expect(f).toMatchObject({ severity: 'medium', occurrences: 1, detail: expect.stringMatching(/#repeat/) });
  await app.sandbox.close();
});

test('the E case: a reordered webhook says Pending after Success, the merchant believes it and pays again: double-payout-after-stale-status, high', async () => {
  const { startReceiver } = await import('./receiver.js');
  const hooks = await startReceiver(() => 200);
  const app = await testApp({ scenario: { extends: 'default', name: 'reorder', webhooks: { chaos: { reorder: true } } } });
  const m = await merchant(app, { webhook_url: hooks.url });
  // 2002.06: NEW → Pending after 5 s → Success after 5 s more: two events, sent newest first.
  const first = await pay(app, m, { amount: 2002.06, client_ref_id: 'E-FIRST' });
  await advanceBy(app, '15s');
  await app.sandbox.admin.settleWebhooks();
  // Newest first: Success, then the older Pending; the last it was told is Pending.
  expect(hooks.bodies().map((b) => b.data.transaction.status)).toEqual(['Success', 'Pending']);
  await pay(app, m, { amount: 2002.06, client_ref_id: 'E-AGAIN' });
  const r = await review(app, m);
  const f = r.findings.find((x: { rule: string }) => x.rule === 'double-payout-after-stale-status');
  expect(f).toMatchObject({ severity: 'high', occurrences: 1 });
  expect(f.detail).toMatch(
    new RegExp(`last told payout ${first.body.data.ref_id} \\(E-FIRST\\) was Pending, by a genuine webhook whd_\\d+ it acknowledged, when it was Success`),
  );
  expect(f.evidence.map((e: { kind: string }) => e.kind)).toEqual(['request', 'payout', 'request', 'payout', 'delivery']);
  expect(r.summary.verdict).toBe('not-ready');
  await hooks.close();
  await app.sandbox.close();
});

test('a double payout from two VANs names both; evidence carries the control-API URL of each id', async () => {
  const app = await testApp();
  // The demo merchant has two ACTIVE VANs.
  const m: Tenant = { merchant_id: 'SBXDEMO0001', account_no: DEMO.van1, headers: demoHeaders };
  await pay(app, m, { amount: 3003.01, client_ref_id: 'VAN-1' });
  await pay(app, { ...m, account_no: DEMO.van2 }, { amount: 3003.01, client_ref_id: 'VAN-2' });
  const f = (await review(app, m)).findings.find((x: { rule: string }) => x.rule === 'double-payout-after-timeout');
  expect(f.detail).toContain(`debited from ${DEMO.van1}, then ${DEMO.van2}`);
  for (const e of f.evidence) expect(e.url).toBe(e.kind === 'request' ? `/__sandbox/requests/${e.id}` : `/__sandbox/payouts/${e.id}`);
  await app.sandbox.close();
});

test('JSON findings page (limit, offset); JUnit and Markdown list them all', async () => {
  const app = await testApp();
  const m = await merchant(app);
  for (let i = 0; i < 3; i++) {
    await pay(app, m, { amount: 3003.01, account_number: `12345678900${i}`, client_ref_id: `PAGE${i}-A` });
    await pay(app, m, { amount: 3003.01, account_number: `12345678900${i}`, client_ref_id: `PAGE${i}-B` });
  }
  const all = await review(app, m);
  expect(all.findings_total).toBeGreaterThanOrEqual(3);
  const page = await review(app, m, '?limit=1&offset=1');
  expect(page.findings).toEqual([all.findings[1]]);
  expect(page.findings_total).toBe(all.findings_total);
  expect((await request(app).get(`/__sandbox/merchants/${m.merchant_id}/review?limit=0`)).status).toBe(400);
  const report = app.sandbox.admin.review(m.merchant_id);
  expect(reviewJunit(report).match(/<failure /g)?.length).toBe(report.summary.rules.failed);
  await app.sandbox.close();
});

test('docs/webhooks.md prints the table of delivery kinds the code holds (webhooks/kinds.ts)', () => {
  const doc = readFileSync(new URL('../docs/webhooks.md', import.meta.url), 'utf8');
  const block = /<!-- delivery-kinds:start -->\n([\s\S]*?)<!-- delivery-kinds:end -->/.exec(doc)?.[1] ?? '';
  const rows = block
    .split('\n')
    .slice(2)
    .filter((l) => l.startsWith('|'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  expect(rows).toEqual(Object.values(KINDS).map((k) => [`\`${k.kind}\``, k.sent, k.correctText, k.findingText]));
});

test('events of one sandbox instant are judged in the order they happened: a Pending read, then a forced Success, then a new payout is after-success, not stale', async () => {
  const app = await testApp();
  const m = await merchant(app);
  const first = await pay(app, m, { amount: 640, client_ref_id: 'INSTANT-A' });
  const ref = first.body.data.ref_id;
  const read = await request(app).get('/api/v1/public/payment/transfer/status').set(m.headers).query({ ref_id: ref });
  expect(read.body.data.transaction.status).toBe('Pending');
  await request(app).post(`/__sandbox/payouts/${ref}/status`).send({ status: 'Success' }).expect(200);
  await pay(app, m, { amount: 640, client_ref_id: 'INSTANT-B' });
  const r = await review(app, m);
  expect(r.findings.filter((f: { rule: string }) => f.rule.startsWith('double-payout')).map((f: { rule: string }) => f.rule)).toEqual([
    'double-payout-after-success',
  ]);
  expect(r.rules.find((x: { rule: string }) => x.rule === 'double-payout-after-stale-status').result).toBe('unproven');
  await app.sandbox.close();
});

test('a receiver that is down fails the probe as unhealthy, not as accepting forged or stale deliveries', async () => {
  const { startReceiver } = await import('./receiver.js');
  const down = await startReceiver(() => 503);
  const app = await testApp();
  const m = await merchant(app, { webhook_url: down.url });
  await request(app).post(`/__sandbox/merchants/${m.merchant_id}/webhooks/probe`).send({}).expect(200);
  const r = await review(app, m);
  expect(r.findings.map((f: { rule: string }) => f.rule)).toEqual(['webhook-unhealthy']);
  expect(r.rules.find((x: { rule: string }) => x.rule === 'webhook-forged-accepted').result).toBe('passed');
  await down.close();
  await app.sandbox.close();
});

test('what the merchant learnt before the oldest fact kept is not judged: an outcome from before the bound is no finding', async () => {
  const { judge } = await import('../src/observe/review/report.js');
  const payout = (ref: string, at: number) => ({
    ref_id: ref,
    client_ref_id: `C${ref}`,
    status: 'Success',
    amount: 100,
    account_number: '1',
    ifsc_code: 'HDFC0000001',
    debit_from: 'VAN',
    created_at: at,
    updated_at: at + 5,
    history: [
      { status: 'Pending', at, bank_res_msg: '' },
      { status: 'Success', at: at + 5, bank_res_msg: '' },
    ],
  });
  const input = {
    merchantId: 'M',
    facts: [],
    payouts: [payout('1000000001', 0), payout('1000000002', 1000)] as never[],
    deliveries: [],
    probes: [],
    webhookTimeoutMs: 5000,
    repeatWindowMs: 3_600_000,
    now: 2000,
  };
  const unseen = (horizon: number) => judge({ ...input, horizon }).findings.filter((f) => f.rule === 'outcome-never-observed');
  expect(unseen(-Infinity).map((f) => f.occurrences)).toEqual([2]);
  expect(unseen(500).map((f) => [f.occurrences, f.evidence[0]?.id])).toEqual([[1, '1000000002']]);
});

import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { RULES } from '../src/observe/review/rules.js';
import { crashStore } from '../src/store/store.js';
import { killAll, runCli, startCli } from './cli-helpers.js';
import { advanceBy, payoutBody, testApp, useTempDir } from './helpers.js';
import { type Received, startReceiver } from './receiver.js';

/**
 * The integration review: two scripted clients against one sandbox — a careful one and a naive
 * one — and what the review says of each: the naive one is flagged by every rule with the right
 * evidence, the careful one gets no high or medium finding.
 */

const dir = useTempDir(killAll);

interface Tenant {
  merchant_id: string;
  account_no: string;
  headers: Record<string, string>;
  webhook_secret?: string;
  api_secret: string;
}

/** A V2 signature check with a 300 s tolerance (the recipe of docs/webhooks.md). */
function verifies(r: Received, secret: string): boolean {
  const header = String(r.headers['x-sandbox-signature-v2'] ?? '');
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const want = createHmac('sha256', secret).update(`${t}.${r.body}`).digest();
  return [...header.matchAll(/v1=([0-9a-f]{64})/g)].some((m) => timingSafeEqual(Buffer.from(m[1], 'hex'), want));
}

/** The careful receiver: verifies, refuses stale or forged (401), answers a delivery seen before 200 again. */
function strict(secret: () => string) {
  const seen = new Set<string>();
  return (r: Received) => {
    if (!verifies(r, secret())) return 401;
    seen.add(String(r.headers['x-sandbox-delivery-id']));
    return 200;
  };
}

/** The naive receiver: accepts anything once; a delivery id it has seen before is an error (it "inserts" it again). */
function naive() {
  const seen = new Set<string>();
  return (r: Received) => {
    const id = String(r.headers['x-sandbox-delivery-id']);
    if (seen.has(id)) return 500;
    seen.add(id);
    // It also falls over on every Success event it is told of (and the retries find it "seen").
    return r.body.includes('"Success"') ? 500 : 200;
  };
}

function client(app: SandboxApp, m: Tenant) {
  const pay = (body: Record<string, unknown>, version: 'v1' | 'v2' = 'v2') =>
    request(app)
      .post(`/api/${version}/public/payment/transfer`)
      .set(m.headers)
      .send(payoutBody({ debit_from: m.account_no, ...body }));
  const status = (q: Record<string, string>) => request(app).get('/api/v1/public/payment/transfer/status').set(m.headers).query(q);
  return { pay, status };
}

async function merchant(app: SandboxApp, body: Record<string, unknown> = {}): Promise<Tenant> {
  const res = await request(app)
    .post('/__sandbox/merchants')
    .send({ balance: 1_000_000, ...body });
  expect(res.status).toBe(201);
  return res.body as Tenant;
}

const rules = (findings: Array<{ rule: string; severity: string }>) => [...new Set(findings.map((f) => f.rule))].sort();

test('a careful client and a naive one against one sandbox: every rule flags the naive one with its evidence; the careful one has no high or medium finding', async () => {
  const app = await testApp({ scenario: { extends: 'default', name: 'review', webhooks: { chaos: { wrong_signature: 0.2, stale_timestamp: 0.2 } } } });
  let carefulSecret = '';
  const [carefulHooks, naiveHooks] = [await startReceiver(strict(() => carefulSecret)), await startReceiver(naive())];
  try {
    const careful = await merchant(app, { webhook_url: carefulHooks.url });
    carefulSecret = careful.webhook_secret ?? careful.api_secret;
    const reckless = await merchant(app, { webhook_url: naiveHooks.url });
    const c = client(app, careful);
    const n = client(app, reckless);
    const payee = { account_number: '123456789012', ifsc_code: 'HDFC0001234' };

    // 1. Initialize answered 500 although it made the payout (3003.01).
    const cA = await c.pay({ ...payee, amount: 3003.01, client_ref_id: 'CAREFUL-A' });
    expect(cA.status).toBe(500);
    // Careful: the same client_ref_id again (a duplicate, nothing paid twice), then look it up.
    expect((await c.pay({ ...payee, amount: 3003.01, client_ref_id: 'CAREFUL-A' })).body.error.message).toBe('Duplicate Client Reference ID');
    expect((await c.status({ client_ref_id: 'CAREFUL-A' })).status).toBe(200);
    const nA = await n.pay({ ...payee, amount: 3003.01, client_ref_id: 'NAIVE-A1' });
    expect(nA.status).toBe(500);
    const nA2 = await n.pay({ ...payee, amount: 3003.01, client_ref_id: 'NAIVE-A2' });

    // 2. A payout goes Unknown (2002.03): the careful one waits; the naive one pays again.
    await c.pay({ ...payee, amount: 2002.03, client_ref_id: 'CAREFUL-U' });
    const nU = await n.pay({ ...payee, amount: 2002.03, client_ref_id: 'NAIVE-U1' });
    await advanceBy(app, '5s');
    expect((await c.status({ client_ref_id: 'CAREFUL-U' })).body.data.transaction.status).toBe('Unknown');
    expect((await n.status({ client_ref_id: 'NAIVE-U1' })).body.data.transaction.status).toBe('Unknown');
    const nU2 = await n.pay({ ...payee, amount: 2002.03, client_ref_id: 'NAIVE-U2' });

    // 3. Read-after-write lag (2002.08): "not found" right after initialize.
    await c.pay({ ...payee, amount: 2002.08, client_ref_id: 'CAREFUL-L' });
    expect((await c.status({ client_ref_id: 'CAREFUL-L' })).status).toBe(400);
    await n.pay({ ...payee, amount: 2002.08, client_ref_id: 'NAIVE-L1' });
    expect((await n.status({ client_ref_id: 'NAIVE-L1' })).status).toBe(400);
    const nL2 = await n.pay({ ...payee, amount: 2002.08, client_ref_id: 'NAIVE-L2' });

    // 4. Polling: the naive one storms one payout and ignores Retry-After; the careful one waits it out.
    const storm = [];
    for (let i = 0; i < 6; i++) storm.push(await n.status({ client_ref_id: 'NAIVE-U1' }));
    expect(storm.map((r) => r.status)).toEqual([200, 200, 429, 429, 429, 429]);
    // The careful one polls within the limit (3 a minute), spaced out.
    for (let i = 0; i < 3; i++) {
      await advanceBy(app, '21s');
      expect((await c.status({ client_ref_id: 'CAREFUL-U' })).status).toBe(200);
    }

    // 5. A beneficiary not yet Active: the careful one waits; the naive one pays again at once.
    const bene = async (m: Tenant, name: string) =>
      (
        await request(app).post('/api/v1/public/beneficiary/create').set(m.headers).send({
          transfer_type: 'BANK',
          beneficiary_name: name,
          beneficiary_email: 'b@example.com',
          beneficiary_mobile: '9123456780',
          account_number: '556677889900',
          ifsc_code: 'ICIC0001234',
        })
      ).body.data.beneficiary_id as string;
    const [cb, nb] = [await bene(careful, 'Careful Payee'), await bene(reckless, 'Naive Payee')];
    expect(
      (
        await c.pay({
          beneficiary_id: cb,
          account_number: undefined,
          ifsc_code: undefined,
          beneficiary_name: undefined,
          beneficiary_email: undefined,
          beneficiary_mobile: undefined,
        })
      ).body.error.code,
    ).toBe('INVALID_BENEFICIARY');
    const nb1 = await n.pay({
      beneficiary_id: nb,
      account_number: undefined,
      ifsc_code: undefined,
      beneficiary_name: undefined,
      beneficiary_email: undefined,
      beneficiary_mobile: undefined,
    });
    const nb2 = await n.pay({
      beneficiary_id: nb,
      account_number: undefined,
      ifsc_code: undefined,
      beneficiary_name: undefined,
      beneficiary_email: undefined,
      beneficiary_mobile: undefined,
    });
    expect([nb1.body.error.code, nb2.body.error.code]).toEqual(['INVALID_BENEFICIARY', 'INVALID_BENEFICIARY']);

    // 6. Time passes: everything settles; the careful one checks every payout's outcome.
    await advanceBy(app, '2h');
    await app.sandbox.admin.settleWebhooks();
    for (const ref of ['CAREFUL-A', 'CAREFUL-U', 'CAREFUL-L']) {
      await advanceBy(app, '1m');
      expect((await c.status({ client_ref_id: ref })).body.data.transaction.status).toBe('Success');
    }
    // A redelivery of a delivery each receiver acknowledged.
    const acked = async (m: Tenant) =>
      ((await request(app).get(`/__sandbox/webhooks?merchant_id=${m.merchant_id}`)).body.deliveries as Array<{ delivery_id: string; state: string }>).find(
        (d) => d.state === 'delivered',
      );
    for (const m of [careful, reckless]) {
      const d = await acked(m);
      expect(d).toBeDefined();
      await request(app).post(`/__sandbox/webhooks/${d?.delivery_id}/redeliver`).send();
    }
    await app.sandbox.admin.settleWebhooks();
    // The receiver probe, against each.
    expect((await request(app).post(`/__sandbox/merchants/${careful.merchant_id}/webhooks/probe`).send({})).body.ok).toBe(true);
    expect((await request(app).post(`/__sandbox/merchants/${reckless.merchant_id}/webhooks/probe`).send({})).body.ok).toBe(false);

    const naiveReview = (await request(app).get(`/__sandbox/merchants/${reckless.merchant_id}/review`)).body;
    expect(rules(naiveReview.findings)).toEqual([
      'double-payout-after-not-found',
      'double-payout-after-timeout',
      'double-payout-while-unresolved',
      'outcome-never-observed',
      'payout-to-pending-beneficiary-repeated',
      'retry-after-ignored',
      'status-poll-over-limit',
      'webhook-duplicate-failed',
      'webhook-forged-accepted',
      'webhook-stale-accepted',
      'webhook-unhealthy',
    ]);
    const find = (rule: string) => naiveReview.findings.find((f: { rule: string }) => f.rule === rule);
    const ids = (rule: string) => find(rule).evidence.map((e: { id: string }) => e.id);
    expect(find('double-payout-after-timeout')).toMatchObject({ severity: 'high', advice: expect.stringContaining('same client_ref_id') });
    expect(ids('double-payout-after-timeout')).toEqual(
      expect.arrayContaining([nA.headers['x-request-id'], nA2.headers['x-request-id'], String(nA2.body.data?.ref_id ?? ids('double-payout-after-timeout')[3])]),
    );
    expect(ids('double-payout-while-unresolved')).toEqual(
      expect.arrayContaining([nU.headers['x-request-id'], nU2.headers['x-request-id'], nU2.body.data.ref_id]),
    );
    expect(ids('double-payout-after-not-found')).toContain(nL2.headers['x-request-id']);
    expect(ids('status-poll-over-limit')).toEqual(storm.slice(2).map((r) => r.headers['x-request-id']));
    expect(ids('retry-after-ignored')).toEqual(expect.arrayContaining([storm[2].headers['x-request-id'], storm[3].headers['x-request-id']]));
    expect(ids('payout-to-pending-beneficiary-repeated')).toEqual([nb1.headers['x-request-id'], nb2.headers['x-request-id']]);
    // Forged and stale chaos deliveries accepted (2xx). The probe's forged and stale requests it
    // answered 500 (its body is a Success event): not accepted, so no finding of these rules from
    // the probe (a 5xx asks for the request again: the receiver's health, not an acceptance).
    for (const rule of ['webhook-forged-accepted', 'webhook-stale-accepted']) {
      const kinds = naiveReview.findings
        .filter((f: { rule: string }) => f.rule === rule)
        .flatMap((f: { evidence: Array<{ kind: string }> }) => f.evidence.map((e) => e.kind));
      expect(new Set(kinds)).toEqual(new Set(['delivery']));
    }
    expect(find('webhook-unhealthy')).toBeDefined();
    expect(naiveReview.summary.high).toBeGreaterThanOrEqual(5);

    const carefulReview = (await request(app).get(`/__sandbox/merchants/${careful.merchant_id}/review`)).body;
    expect(carefulReview.findings.filter((f: { severity: string }) => f.severity !== 'low')).toEqual([]);
    expect(carefulReview.summary).toMatchObject({ high: 0, medium: 0, low: 0 });
    expect(carefulReview.rules.map((r: { rule: string }) => r.rule)).toHaveLength(RULES.length);

    // The same in-process, and all merchants at once, each finding naming its merchant.
    expect(app.sandbox.admin.review(reckless.merchant_id).summary).toEqual(naiveReview.summary);
    const all = (await request(app).get('/__sandbox/review')).body;
    expect(new Set(all.findings.map((f: { merchant_id: string }) => f.merchant_id))).toEqual(new Set([reckless.merchant_id]));

    // Markdown and JUnit (one test case per merchant and rule; a failed rule is one failure naming the merchant and its evidence).
    const md = (await request(app).get(`/__sandbox/merchants/${reckless.merchant_id}/review?format=markdown`)).text;
    expect(md).toMatch(
      /^### Integration review — SBX\w+: \*\*not-ready\*\*\n\n11 rules failed, \d+ passed, \d+ not proven; findings: \d+ high, \d+ medium, \d+ low\./,
    );
    const junit = (await request(app).get(`/__sandbox/merchants/${reckless.merchant_id}/review?format=junit`)).text;
    const { failed, unproven } = naiveReview.summary.rules;
    expect((junit.match(/<testcase /g) ?? []).length).toBe(RULES.length);
    expect((junit.match(/<failure /g) ?? []).length).toBe(failed);
    expect((junit.match(/<skipped /g) ?? []).length).toBe(unproven);
    expect(junit).toContain(`tests="${RULES.length}" failures="${failed}" skipped="${unproven}"`);
    expect(junit).toContain(nA.headers['x-request-id']);
    expect(junit).toMatch(new RegExp(`<failure message="${reckless.merchant_id}: 1 finding, 1 occurrence; first: ₹3003.01`));
  } finally {
    await carefulHooks.close();
    await naiveHooks.close();
    await app.sandbox.close();
  }
}, 60_000);

test('bad input: unknown merchant 404, unknown format 400 naming the allowed values', async () => {
  const app = await testApp();
  expect((await request(app).get('/__sandbox/merchants/NOPE/review')).status).toBe(404);
  const bad = await request(app).get('/__sandbox/review?format=pdf');
  expect(bad.status).toBe(400);
  expect(bad.body.error).toBe('The format field must be one of json, markdown, junit.');
  await app.sandbox.close();
});

describe('facts are kept', () => {
  async function naivePayTwice(app: SandboxApp, m: Tenant) {
    const pay = (ref: string) =>
      request(app)
        .post('/api/v2/public/payment/transfer')
        .set(m.headers)
        .send(payoutBody({ debit_from: m.account_no, amount: 3003.01, client_ref_id: ref }));
    await pay('TWICE-1');
    await pay('TWICE-2');
  }

  test('a restart on a file store keeps the findings', async () => {
    const data = join(dir(), 'db.json');
    const first = await testApp({ data, fsync: false });
    const m = await merchant(first);
    await naivePayTwice(first, m);
    await first.sandbox.close();
    const again = await testApp({ data, fsync: false });
    expect(rules(again.sandbox.admin.review(m.merchant_id).findings)).toContain('double-payout-after-timeout');
    again.sandbox.scheduler.stop();
    await crashStore(again.sandbox.store);
  });

  test('a data file of the version before pages (one record per fact) is read: its facts are made into pages, its findings kept', async () => {
    const data = join(dir(), 'db.json');
    const first = await testApp({ data, fsync: false });
    const m = await merchant(first);
    await naivePayTwice(first, m);
    await first.sandbox.close();
    // The file as the previous version wrote it: each fact a record `<merchant>/<seq>` of its own.
    const doc = JSON.parse(readFileSync(data, 'utf8'));
    const pages = Object.values(doc.review_facts) as Array<{ merchant_id: string; facts: Array<{ seq: number }> }>;
    doc.review_facts = Object.fromEntries(
      pages.flatMap((p) => p.facts.map((f) => [`${p.merchant_id}/${f.seq}`, { ...f, id: `${p.merchant_id}/${f.seq}`, merchant_id: p.merchant_id }])),
    );
    expect(Object.keys(doc.review_facts).length).toBeGreaterThanOrEqual(2);
    writeFileSync(data, JSON.stringify(doc));
    const again = await testApp({ data, fsync: false });
    expect(rules(again.sandbox.admin.review(m.merchant_id).findings)).toContain('double-payout-after-timeout');
    const stored = Object.values(again.sandbox.store.state.review_facts ?? {});
    expect(stored.every((p) => Array.isArray(p.facts))).toBe(true);
    expect(stored.flatMap((p) => p.facts)).toHaveLength(pages.flatMap((p) => p.facts).length);
    await again.sandbox.close();
  });

  test("one merchant's snapshot and restore brings back its facts and leaves another's alone", async () => {
    const app = await testApp();
    const [a, b] = [await merchant(app), await merchant(app)];
    await request(app).post(`/__sandbox/merchants/${a.merchant_id}/snapshots`).send({ name: 'clean' });
    await naivePayTwice(app, a);
    await naivePayTwice(app, b);
    expect(rules(app.sandbox.admin.review(a.merchant_id).findings)).toContain('double-payout-after-timeout');
    await request(app).post(`/__sandbox/merchants/${a.merchant_id}/snapshots/clean/restore`).send();
    expect(app.sandbox.admin.review(a.merchant_id).findings).toEqual([]);
    expect(rules(app.sandbox.admin.review(b.merchant_id).findings)).toContain('double-payout-after-timeout');
    await app.sandbox.close();
  });
});

describe('the CI gate', () => {
  test('--review-report and --review-fail-on high: a high finding makes the stop exit 4, with the report written', async () => {
    const report = join(dir(), 'review.md');
    const running = await startCli(['--port', '0', '--data', 'memory', '--clock', 'manual', '--review-report', report, '--review-fail-on', 'high']);
    const headers = {
      'x-merchant-email': 'demo@payout-sandbox.test',
      'x-api-key': 'sbx_key_demo_0001',
      'x-api-secret': 'sbx_secret_demo_0001',
      'content-type': 'application/json',
    };
    for (const ref of ['GATE-1', 'GATE-2']) {
      await fetch(`${running.url}/api/v1/public/payment/transfer`, {
        method: 'POST',
        headers,
        body: JSON.stringify(payoutBody({ amount: 3003.01, client_ref_id: ref })),
      });
    }
    expect(await running.stop()).toBe(4);
    expect(running.output()).toContain('integration review: 1 finding of severity high or above (double-payout-after-timeout)');
    expect(readFileSync(report, 'utf8')).toContain('double-payout-after-timeout');
  }, 30_000);

  test('an unknown --review-fail-on exits 2 naming the allowed values', async () => {
    const r = await runCli(['--review-fail-on', 'critical']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("argument 'critical' is invalid. Allowed choices are high, medium, low, unproven.");
  });

  test('--review-fail-on unproven: a run that proved nothing exits 4 listing the high rules not proven; a JUnit report skips them', async () => {
    const report = join(dir(), 'review.xml');
    const running = await startCli(['--port', '0', '--data', 'memory', '--clock', 'manual', '--review-report', report, '--review-fail-on', 'unproven']);
    // One payout that settles: nothing of the high rules' situations arises.
    await fetch(`${running.url}/api/v1/public/payment/transfer`, {
      method: 'POST',
      headers: {
        'x-merchant-email': 'demo@payout-sandbox.test',
        'x-api-key': 'sbx_key_demo_0001',
        'x-api-secret': 'sbx_secret_demo_0001',
        'content-type': 'application/json',
      },
      body: JSON.stringify(payoutBody({ client_ref_id: 'UNPROVEN-1' })),
    });
    expect(await running.stop()).toBe(4);
    expect(running.output()).toMatch(/integration review: \d+ high rules not proven \(double-payout-after-timeout, /);
    const xml = readFileSync(report, 'utf8');
    expect(xml).toMatch(/<skipped message="not proven: Initialize amount 3003\.01/);
    expect(xml).toMatch(/<testsuites name="payout-sandbox integration review: unproven" tests="15" failures="0" skipped="\d+">/);
  }, 30_000);
});

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createApp, type SandboxApp } from '../src/app.js';
import { COLLECTIONS } from '../src/store/collections.js';
import { Owners, PER_MERCHANT } from '../src/store/owners.js';
import { Repo } from '../src/store/repo.js';
import { emptyState, type Merchant, type Payout, type State, type WebhookDelivery } from '../src/store/state.js';
import { beneficiaryBody, DEMO, initialize, payoutBody, useTempDir } from './helpers.js';

/**
 * The store's index of owners (src/store/owners.ts): which records are each merchant's. What
 * cuts out or puts back one merchant's records (its creation, snapshot, reset, restore) and the
 * control API's lists of one merchant read it instead of every record, so it must always say
 * what reading every record would say. And with it, those calls read only what the merchant
 * holds: shown by counting, not by timing.
 */

const dir = useTempDir();

/** Every merchant's ids of every per-merchant collection, by reading every record. */
function scanned(state: State): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of PER_MERCHANT) {
    for (const [id, r] of Object.entries(COLLECTIONS[c](state) as Record<string, { merchant_id?: unknown }>)) {
      if (typeof r?.merchant_id === 'string') (out[`${r.merchant_id} ${c}`] ??= []).push(id);
    }
  }
  for (const k of Object.keys(out)) out[k]?.sort();
  return out;
}

/** The same, as the index says (empty sets left out). */
function indexed(owners: Owners, state: State): Record<string, string[]> {
  const merchants = new Set([...Object.keys(state.merchants), ...Object.keys(scanned(state)).map((k) => k.split(' ')[0] as string)]);
  const out: Record<string, string[]> = {};
  for (const m of merchants) {
    for (const c of PER_MERCHANT) {
      const ids = [...owners.idsOf(m, c)].sort();
      if (ids.length > 0) out[`${m} ${c}`] = ids;
    }
  }
  return out;
}

/**
 * The index of owners says what a scan says; and the repo's indexes, after one merchant's were
 * taken out and put back (forgetMerchant, indexMerchant), answer as a repo built afresh does.
 */
function expectIndexTrue(app: SandboxApp): void {
  const { store, repo } = app.sandbox;
  expect(indexed(store.owners, store.state)).toEqual(scanned(store.state));
  const fresh = new Repo(store);
  // The merchant cap's count, kept through every put and removal, is what counting the records says.
  expect(repo.merchantCount()).toBe(Object.keys(store.state.merchants).length);
  for (const m of Object.keys(store.state.merchants)) {
    const kinds = ['payouts', 'beneficiaries', 'verifications'] as const;
    expect({ m, counts: kinds.map((k) => repo.countOf(m, k)), order: repo.payoutIdsOf(m) }).toEqual({
      m,
      counts: kinds.map((k) => fresh.countOf(m, k)),
      order: fresh.payoutIdsOf(m),
    });
    for (const id of fresh.payoutIdsOf(m)) {
      const p = store.state.payouts[id] as Payout;
      expect(repo.payoutByClientRefId(m, p.client_ref_id)?.ref_id).toBe(id);
    }
    expect(repo.merchantByEmailAddress(store.state.merchants[m]?.email ?? '')?.merchant_id).toBe(m);
    for (const b of Object.values(store.state.beneficiaries).filter((x) => x.merchant_id === m)) {
      expect(repo.beneficiariesByAccountNumber(m, b.bank_account_number).map((x) => x.bene_id)).toEqual(
        fresh.beneficiariesByAccountNumber(m, b.bank_account_number).map((x) => x.bene_id),
      );
    }
    // The outbox's list of one merchant's deliveries (through the index) is a scan's.
    const listed = app.sandbox.webhooks.list({ merchantId: m, limit: Number.MAX_SAFE_INTEGER }).map((d) => d.delivery_id);
    const all = Object.values(store.state.webhook_deliveries)
      .filter((d) => d.merchant_id === m)
      .sort((a, b) => b.created_at - a.created_at || b.delivery_id.localeCompare(a.delivery_id))
      .map((d) => d.delivery_id);
    expect(listed).toEqual(all);
  }
}

async function created(app: SandboxApp, body: Record<string, unknown> = {}) {
  const r = await request(app).post('/__sandbox/merchants').send(body);
  expect(r.status).toBe(201);
  return r.body as { merchant_id: string; headers: Record<string, string>; account_no: string };
}

describe.each(['memory', 'file'])('the index of owners on the %s store says what reading every record says', (kind) => {
  const options = () => ({ data: kind === 'memory' ? 'memory' : join(dir(), 'db.json'), clock: 'manual' as const, seed: 11, logLevel: 'silent' as const });

  test('through payouts, webhooks and their retries, beneficiaries, a merchant made, snapshot, restore, reset, a restart and a whole reset', async () => {
    let app = await createApp(options());
    expectIndexTrue(app);
    // Webhooks to a port nothing listens on: deliveries made, attempts failed, retries due.
    expect((await request(app).patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_url: 'http://127.0.0.1:9/hook' })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await initialize(app, payoutBody())).status).toBe(200);
    expect(
      (
        await request(app)
          .post('/api/v1/public/beneficiary/create')
          .set({ 'x-merchant-email': DEMO.email, 'x-api-key': DEMO.key, 'x-api-secret': DEMO.secret })
          .send(beneficiaryBody())
      ).status,
    ).toBe(200);
    expect((await request(app).post('/__sandbox/clock/advance').send({ by: '2h' })).status).toBe(200);

    const b = await created(app, { clock: { mode: 'manual' }, webhook_url: 'http://127.0.0.1:9/hook' });
    const pay = (ref: string) => initialize(app, payoutBody({ client_ref_id: ref, debit_from: b.account_no }), 'v1', b.headers);
    expect((await pay('BREF000001')).status).toBe(200);
    expect((await request(app).post(`/__sandbox/merchants/${b.merchant_id}/clock/advance`).send({ by: '1h' })).status).toBe(200);
    expect((await request(app).post(`/__sandbox/merchants/${b.merchant_id}/snapshots`).send({ name: 'one' })).status).toBe(201);
    expect((await pay('BREF000002')).status).toBe(200);
    expect((await pay('BREF000003')).status).toBe(200);
    expectIndexTrue(app);
    expect((await request(app).post(`/__sandbox/merchants/${b.merchant_id}/snapshots/one/restore`).send()).status).toBe(200);
    expectIndexTrue(app);
    const demoId = app.sandbox.repo.merchantByEmailAddress(DEMO.email)?.merchant_id as string;
    expect((await request(app).post(`/__sandbox/merchants/${demoId}/reset`).send()).status).toBe(200);
    expectIndexTrue(app);
    // The lists of one merchant read through the index: what a scan finds, in the same order.
    const payouts = await request(app).get(`/__sandbox/merchants/${b.merchant_id}/payouts`);
    expect(payouts.status).toBe(200);
    expect(JSON.stringify(payouts.body)).toContain('BREF000001');
    expect(JSON.stringify(payouts.body)).not.toContain('BREF000002');

    if (kind === 'file') {
      await app.sandbox.close();
      app = await createApp(options());
      expectIndexTrue(app);
    }
    expect((await request(app).post('/__sandbox/reset').send()).status).toBe(200);
    expectIndexTrue(app);
    await app.sandbox.close();
  });
});

test('a data file of an older version, whose due items name no merchant: they are given theirs at open, and a snapshot and restore keep them', async () => {
  const data = join(dir(), 'old.json');
  const options = { data, clock: 'manual' as const, seed: 5, logLevel: 'silent' as const };
  let app = await createApp(options);
  expect((await initialize(app, payoutBody({ remarks: 'sbx:Pending@0s>Success@1h' }))).status).toBe(200);
  const demoId = app.sandbox.repo.merchantByEmailAddress(DEMO.email)?.merchant_id as string;
  expect(app.sandbox.scheduler.pending(demoId).length).toBeGreaterThan(0);
  await app.sandbox.close(); // a clean stop: the document holds everything
  const doc = JSON.parse(readFileSync(data, 'utf8')) as State;
  for (const item of Object.values(doc.scheduler.items)) delete item.merchant_id;
  writeFileSync(data, JSON.stringify(doc));

  app = await createApp(options);
  expectIndexTrue(app);
  const due = app.sandbox.scheduler.pending(demoId).map((i) => i.id);
  expect(due.length).toBeGreaterThan(0);
  expect((await request(app).post(`/__sandbox/merchants/${demoId}/snapshots`).send({ name: 'old' })).status).toBe(201);
  expect((await request(app).post(`/__sandbox/merchants/${demoId}/snapshots/old/restore`).send()).status).toBe(200);
  expect(app.sandbox.scheduler.pending(demoId).map((i) => i.id)).toEqual(due);
  expectIndexTrue(app);
  await app.sandbox.close();
});

test('a merchant on the sandbox clock restored twice: its restored step runs once, on that clock; the replaced ones never run', async () => {
  const app = await createApp({ data: 'memory', clock: 'manual', seed: 9, logLevel: 'silent' });
  const demoId = app.sandbox.repo.merchantByEmailAddress(DEMO.email)?.merchant_id as string;
  const body = payoutBody({ remarks: 'sbx:Pending@0s>Success@1h' });
  const paid = await initialize(app, body);
  expect(paid.status).toBe(200);
  const ref = paid.body.data.ref_id as string;
  const balanceAfterPaying = app.sandbox.repo.state.accounts[DEMO.van1]?.balance;
  expect((await request(app).post(`/__sandbox/merchants/${demoId}/snapshots`).send({ name: 'pending' })).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await request(app).post(`/__sandbox/merchants/${demoId}/snapshots/pending/restore`).send()).status).toBe(200);
  expect(app.sandbox.scheduler.pending(demoId).filter((i) => i.kind === 'payout_step')).toHaveLength(1);
  expect((await request(app).post('/__sandbox/clock/advance').send({ by: '2h' })).status).toBe(200);
  const p = app.sandbox.repo.state.payouts[ref] as Payout;
  expect(p.status).toBe('Success');
  expect(p.history.filter((h) => h.status === 'Success')).toHaveLength(1);
  expect(app.sandbox.repo.state.accounts[DEMO.van1]?.balance).toBe(balanceAfterPaying);
  expect(app.sandbox.scheduler.pending(demoId).filter((i) => i.kind === 'payout_step')).toHaveLength(0);
  await app.sandbox.close();
});

describe('Owners, on its own', () => {
  const payout = (ref: string, merchant: string) => ({ ref_id: ref, merchant_id: merchant, client_ref_id: `C${ref}` }) as Payout;

  test('built from a state; a change adds; a removal told with its owner removes; one told without is found among every merchant', () => {
    const state = emptyState();
    state.payouts.p1 = payout('p1', 'A');
    const owners = new Owners(state);
    expect([...owners.idsOf('A', 'payouts')]).toEqual(['p1']);

    state.payouts.p2 = payout('p2', 'B');
    owners.changed(state, 'payouts', 'p2');
    owners.changed(state, 'payouts', 'p2'); // a change of a record already known: once
    expect([...owners.idsOf('B', 'payouts')]).toEqual(['p2']);

    delete state.payouts.p1;
    owners.changed(state, 'payouts', 'p1', 'A');
    expect([...owners.idsOf('A', 'payouts')]).toEqual([]);

    delete state.payouts.p2;
    owners.changed(state, 'payouts', 'p2');
    expect([...owners.idsOf('B', 'payouts')]).toEqual([]);

    // Records of no merchant's (an outage for all), and collections not per merchant: not indexed.
    (state.outages ??= {}).o = { id: 'o', bank: 'HDFC', payment_method: null, from: null, to: null, effect: 'reject', merchant_id: null, created_at: 0 };
    owners.changed(state, 'outages', 'o');
    owners.changed(state, 'merchants', 'A');
    expect([...owners.idsOf('A', 'payouts')]).toEqual([]);
  });

  test('a record whose id is a property of Object.prototype is one like any other', () => {
    const state = emptyState();
    const payouts = state.payouts as Record<string, Payout>;
    const id = 'constructor';
    payouts[id] = payout(id, 'A');
    const owners = new Owners(state);
    expect([...owners.idsOf('A', 'payouts')]).toEqual(['constructor']);
    delete payouts[id];
    owners.changed(state, 'payouts', 'constructor', 'A');
    expect([...owners.idsOf('A', 'payouts')]).toEqual([]);
    owners.changed(state, 'payouts', 'toString');
    expect([...owners.idsOf('A', 'payouts')]).toEqual([]);
  });
});

describe("one merchant's creation, snapshot, restore, reset and lists read only what it holds", () => {
  /** Counts the reads of every key of a collection (Object.values, entries, keys: a scan of it). */
  function countScans(state: State, c: 'merchants' | 'payouts' | 'webhook_deliveries' | 'beneficiaries' | 'verifications' | 'accounts' | 'review_facts') {
    const counter = { scans: 0 };
    const target = state[c] as Record<string, unknown>;
    (state as unknown as Record<string, unknown>)[c] = new Proxy(target, {
      ownKeys(t) {
        counter.scans += 1;
        return Reflect.ownKeys(t);
      },
    });
    return counter;
  }

  test('with 50 other merchants and 2,000 of their payouts and deliveries stored, none of these calls reads every record', async () => {
    const app = await createApp({ data: 'memory', clock: 'manual', seed: 3, logLevel: 'silent' });
    const { store } = app.sandbox;
    for (let i = 0; i < 50; i++) {
      const email = `other${i}@example.com`;
      app.sandbox.repo.insertMerchant({ ...Object.values(store.state.merchants)[0], merchant_id: `OTHER${i}`, email } as Merchant);
    }
    for (let i = 0; i < 2000; i++) {
      const m = `OTHER${i % 50}`;
      store.state.payouts[`P${i}`] = { ref_id: `P${i}`, merchant_id: m, client_ref_id: `C${i}` } as Payout;
      store.changed('payouts', `P${i}`);
      store.state.webhook_deliveries[`D${i}`] = { delivery_id: `D${i}`, merchant_id: m, ref_id: `P${i}` } as WebhookDelivery;
      store.changed('webhook_deliveries', `D${i}`);
    }
    store.state.review_facts ??= {};
    const scans = (['merchants', 'payouts', 'webhook_deliveries', 'beneficiaries', 'verifications', 'accounts', 'review_facts'] as const).map(
      (c) => [c, countScans(store.state, c)] as const,
    );

    const b = await created(app, { clock: { mode: 'manual' } });
    const calls: Array<[string, () => Promise<{ status: number }>]> = [
      ['payout', () => initialize(app, payoutBody({ debit_from: b.account_no }), 'v1', b.headers)],
      ['snapshot', () => request(app).post(`/__sandbox/merchants/${b.merchant_id}/snapshots`).send({ name: 's' })],
      ['restore', () => request(app).post(`/__sandbox/merchants/${b.merchant_id}/snapshots/s/restore`).send()],
      ['webhooks', () => request(app).get('/__sandbox/webhooks').query({ merchant_id: b.merchant_id })],
      ['beneficiaries', () => request(app).get(`/__sandbox/merchants/${b.merchant_id}/beneficiaries`)],
      ['verifications', () => request(app).get(`/__sandbox/merchants/${b.merchant_id}/verifications`)],
      ['reset', () => request(app).post(`/__sandbox/merchants/${b.merchant_id}/reset`).send()],
      ['create another', () => request(app).post('/__sandbox/merchants').send({})],
    ];
    for (const [name, call] of calls) expect({ name, status: (await call()).status < 300 }).toEqual({ name, status: true });
    expect(Object.fromEntries(scans.map(([c, n]) => [c, n.scans]))).toEqual({
      merchants: 0,
      payouts: 0,
      webhook_deliveries: 0,
      beneficiaries: 0,
      verifications: 0,
      accounts: 0,
      review_facts: 0,
    });
    // The same calls with the index out of the way do read everything (the counting works).
    const before = scans[1][1].scans;
    Object.values(store.state.payouts);
    expect(scans[1][1].scans).toBe(before + 1);
    await app.sandbox.close();
  });
});

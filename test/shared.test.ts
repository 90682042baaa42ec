import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { advanceBy, balanceOf, DEMO, demoHeaders, initialize, payoutBody, testApp } from './helpers.js';
import { startReceiver } from './receiver.js';

/** A sandbox shared by a team: the admin token's attempt limit, the caps, the webhook targets. */

const apps: SandboxApp[] = [];
async function app(options: Parameters<typeof testApp>[0] = {}): Promise<SandboxApp> {
  const a = await testApp({ rateLimits: false, ...options });
  apps.push(a);
  return a;
}
afterEach(async () => {
  for (const a of apps.splice(0)) await a.sandbox.close();
});

test('after 20 failed admin-token attempts an address is answered 429 with Retry-After, even with the right token', async () => {
  const a = await app({ adminToken: 'the-admin-token-0001' });
  for (let i = 0; i < 20; i++) expect((await request(a).get('/__sandbox/clock').set('Authorization', `Bearer guess${i}`)).status).toBe(401);
  const locked = await request(a).get('/__sandbox/clock').set('Authorization', 'Bearer the-admin-token-0001');
  expect(locked.status).toBe(429);
  expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  expect(locked.body.error).toMatch(/Too many failed admin-token attempts/);
});

test('the admin token appears in no journal entry', async () => {
  const a = await app({ adminToken: 'tok-secret-1234567' });
  await request(a).get('/__sandbox/clock').set('Authorization', 'Bearer tok-secret-1234567');
  await request(a).get('/__sandbox/clock').set('Authorization', 'Bearer wrong');
  const journal = await request(a).get('/__sandbox/requests?include=control').set('Authorization', 'Bearer tok-secret-1234567');
  expect(journal.body.requests.length).toBeGreaterThanOrEqual(2);
  expect(JSON.stringify(journal.body)).not.toContain('tok-secret-1234567');
});

test('past --max-merchants the control API answers 409 and creates nothing', async () => {
  const a = await app({ maxMerchants: 2 });
  expect((await request(a).post('/__sandbox/merchants').send({})).status).toBe(201);
  expect((await request(a).post('/__sandbox/merchants').send({})).status).toBe(201);
  const third = await request(a).post('/__sandbox/merchants').send({ email: 'third@example.com' });
  expect(third.status).toBe(409);
  expect(third.body.error).toMatch(/at most 2 merchants .*--max-merchants/);
  expect(a.sandbox.repo.merchantByEmailAddress('third@example.com')).toBeUndefined();
  expect(a.sandbox.repo.allMerchants()).toHaveLength(4); // the two of the fixtures and two created
});

test('past --max-records-per-merchant initialize answers envelope B and debits nothing; other merchants are unaffected', async () => {
  const a = await app({ maxRecordsPerMerchant: 2 });
  expect((await initialize(a, payoutBody())).status).toBe(200);
  expect((await initialize(a, payoutBody())).status).toBe(200);
  const before = await balanceOf(a);
  const third = await initialize(a, payoutBody());
  expect(third.status).toBe(400);
  expect(third.body.error.code).toBe('GENERIC_EXCEPTION');
  expect(third.body.message).toMatch(/at most 2 payouts per merchant/);
  expect(await balanceOf(a)).toBe(before);
  const m = (await request(a).post('/__sandbox/merchants').send({})).body;
  const other = await initialize(a, payoutBody({ debit_from: m.account_no }), 'v1', m.headers);
  expect(other.status).toBe(200);
});

test('beneficiaries and verifications have the same cap', async () => {
  const a = await app({ maxRecordsPerMerchant: 1 });
  const bene = (n: string) =>
    request(a).post('/api/v1/public/beneficiary/create').set(demoHeaders).send({
      transfer_type: 'BANK',
      beneficiary_name: 'Cap Test',
      beneficiary_email: 'c@example.com',
      beneficiary_mobile: '9876543210',
      account_number: n,
      ifsc_code: 'HDFC0001234',
    });
  // The fixtures give the demo merchant beneficiaries already: over the cap of 1.
  const res = await bene('111122223333');
  expect(res.status).toBe(400);
  expect(res.body.message).toMatch(/at most 1 beneficiaries per merchant/);
  const verify = () =>
    request(a)
      .post('/api/v1/public/verification/')
      .set(demoHeaders)
      .send({ debit_from: DEMO.van1, verification_type: 'PAN', pan: { pan_number: 'ABCPE1234F' } });
  expect((await verify()).status).toBe(200);
  const second = await verify();
  expect(second.status).toBe(400);
  expect(second.body.message).toMatch(/at most 1 verifications per merchant/);
});

test('--max-snapshots and --max-snapshot-bytes: a snapshot past them is refused (409), replacing one by name is not', async () => {
  const a = await app({ maxSnapshots: 1 });
  expect((await request(a).post('/__sandbox/snapshots').send({ name: 'one' })).status).toBe(201);
  expect((await request(a).post('/__sandbox/snapshots').send({ name: 'one' })).status).toBe(201);
  const two = await request(a).post('/__sandbox/snapshots').send({ name: 'two' });
  expect(two.status).toBe(409);
  expect(two.body.error).toMatch(/at most 1 snapshots/);
  const small = await app({ maxSnapshotBytes: 1000 });
  const big = await request(small).post('/__sandbox/snapshots').send({ name: 'big' });
  expect(big.status).toBe(409);
  expect(big.body.error).toMatch(/--max-snapshot-bytes/);
  expect((await request(small).get('/__sandbox/snapshots')).body.snapshots).toEqual([]);
});

test('--max-deliveries-per-merchant keeps the newest deliveries once older ones are finished', async () => {
  const receiver = await startReceiver();
  try {
    const a = await app({ webhookUrl: receiver.url, maxDeliveriesPerMerchant: 2 });
    for (let i = 0; i < 3; i++) await initialize(a, payoutBody());
    await advanceBy(a, '1h');
    await request(a).post('/__sandbox/webhooks/settle').expect(200);
    // Three payouts, each Pending → Success: three deliveries, all delivered; two are kept.
    const kept = a.sandbox.webhooks.list({ limit: 100 });
    expect(receiver.received).toHaveLength(3);
    expect(kept).toHaveLength(2);
    expect(kept.every((d) => d.state === 'delivered')).toBe(true);
    expect(kept.map((d) => d.delivery_id)).toEqual(['whd_00000003', 'whd_00000002']);
  } finally {
    await receiver.close();
  }
});

describe('webhook targets', () => {
  test('--webhook-allow: a merchant URL outside it is refused (400); a fallback outside it fails its attempts', async () => {
    const a = await app({ webhookAllow: ['127.0.0.1', '*.internal.example'], webhookUrl: 'http://hooks.elsewhere.example/x' });
    const bad = await request(a).post('/__sandbox/merchants').send({ webhook_url: 'http://evil.example/hook' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/not allowed/);
    expect((await request(a).post('/__sandbox/merchants').send({ webhook_url: 'http://hooks.internal.example/x' })).status).toBe(201);
    expect((await request(a).patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_url: 'http://internal.example/x' })).status).toBe(400);
    await initialize(a, payoutBody());
    await advanceBy(a, '1h');
    const [d] = a.sandbox.webhooks.list({});
    expect(d.attempts[0]).toMatchObject({ status: null, error: 'target not allowed by --webhook-allow: hooks.elsewhere.example' });
  });

  test('a redirect is not followed: the 3xx is a failed attempt and the other host gets nothing', async () => {
    const other = await startReceiver();
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(307, { Location: other.url }).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const a = await app({ webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` });
      await initialize(a, payoutBody());
      await advanceBy(a, '5s');
      const [d] = a.sandbox.webhooks.list({});
      expect(d.attempts[0]).toMatchObject({ status: 307, error: null });
      expect(d.state).toBe('pending');
      expect(other.received).toHaveLength(0);
    } finally {
      await other.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

test('past --max-records the whole sandbox refuses new records, whichever merchant asks', async () => {
  const a = await app({ maxRecords: 5 }); // the fixtures hold 4 beneficiaries already
  expect((await initialize(a, payoutBody())).status).toBe(200);
  const m = (await request(a).post('/__sandbox/merchants').send({})).body;
  const refused = await initialize(a, payoutBody({ debit_from: m.account_no }), 'v1', m.headers);
  expect(refused.status).toBe(400);
  expect(refused.body.message).toMatch(/at most 5 payouts, beneficiaries and verifications in all \(--max-records\)/);
});

test('--journal-size 0 turns the journal off: nothing is recorded, and a lookup says so', async () => {
  const a = await app({ journalSize: 0 });
  const res = await initialize(a, payoutBody());
  expect(res.status).toBe(200);
  expect((await request(a).get('/__sandbox/requests')).body).toEqual({ requests: [] });
  const one = await request(a).get(`/__sandbox/requests/${res.headers['x-request-id']}`);
  expect(one.status).toBe(404);
  expect(one.body.error).toMatch(/journal is off/);
});

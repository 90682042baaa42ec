import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type StartedSandbox, startSandbox } from 'payout-sandbox';
import { PayoutClient, type PayoutRequest, type Transaction } from './payout-client.js';
import { webhookApp } from './webhook-handler.js';

// One sandbox for the file, on the manual clock: the client's "sleep" moves sandbox time, so
// settlement, Unknown periods and Retry-After waits take no real time at all.
let sb: StartedSandbox;
let client: PayoutClient;
let receiver: Server;
const received: Transaction[] = [];

beforeAll(async () => {
  receiver = await new Promise<Server>((resolve) => {
    const s = webhookApp('sbx_secret_demo_0001', (t) => received.push(t)).listen(0, '127.0.0.1', () => resolve(s));
  });
  sb = await startSandbox({ clock: 'manual', seed: 1, webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/payouts` });
  client = new PayoutClient({
    baseUrl: sb.url,
    credentials: { email: sb.merchant.email, apiKey: sb.merchant.apiKey, apiSecret: sb.merchant.apiSecret },
    sleep: (ms) => sb.advance(ms),
  });
});

afterAll(async () => {
  await sb.stop();
  await new Promise((r) => receiver.close(r));
});

let n = 0;
function payout(amount: number): PayoutRequest {
  n += 1;
  return {
    client_ref_id: `EXAMPLE-${n}`,
    amount,
    payment_method: '1001',
    debit_from: sb.merchant.accounts[0],
    beneficiary_name: 'Ravi Kumar',
    beneficiary_email: 'ravi@example.com',
    account_number: '50100012345678',
    ifsc_code: 'HDFC0001234',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'example',
  };
}

async function balance(): Promise<number> {
  const res = await fetch(`${sb.url}/api/v1/public/balance/check?account_no=${sb.merchant.accounts[0]}`, { headers: sb.merchant.headers });
  return ((await res.json()) as { data: { current_balance: number } }).data.current_balance;
}

test('a payout succeeds, and the webhook handler sees it once', async () => {
  const ref = await client.initialize(payout(1500));
  const t = await client.waitForFinal(ref);
  expect(t.status).toBe('Success');
  expect(t.bank_ref_number).toMatch(/^\d{12}$/);
  expect(received.filter((r) => r.ref_id === Number(ref)).map((r) => r.status)).toEqual(['Success']);
});

test('a failed payout is refunded: the balance comes back', async () => {
  const before = await balance();
  const ref = await client.initialize(payout(2002.01));
  expect(await balance()).toBeLessThan(before);
  const t = await client.waitForFinal(ref);
  expect([t.status, t.bank_res_msg]).toEqual(['Failed', 'Invalid account number']);
  expect(await balance()).toBe(before);
});

test('Unknown is not final: the client keeps polling until Success', async () => {
  const ref = await client.initialize(payout(2002.03));
  const t = await client.waitForFinal(ref);
  expect(t.status).toBe('Success');
  expect(received.filter((r) => r.ref_id === Number(ref)).map((r) => r.status)).toEqual(['Unknown', 'Success']);
});

test('a 429 is waited out for as long as Retry-After says', async () => {
  const ref = await client.initialize(payout(2002.07));
  const waits: number[] = [];
  const patient = new PayoutClient({
    baseUrl: sb.url,
    credentials: { email: sb.merchant.email, apiKey: sb.merchant.apiKey, apiSecret: sb.merchant.apiSecret },
    sleep: (ms) => {
      waits.push(ms);
      return sb.advance(ms);
    },
  });
  for (let i = 0; i < 4; i++) expect((await patient.status({ ref_id: ref }))?.status).toBe('Pending');
  expect(waits).toEqual([60_000]);
});

test('a 500 that still created the payout: the safe retry finds it instead of paying twice', async () => {
  const req = payout(3003.01);
  const before = await balance();
  const ref = await client.payOnce(req);
  const t = await client.status({ client_ref_id: req.client_ref_id });
  expect(t?.ref_id).toBe(Number(ref));
  expect(Math.round((before - (await balance())) * 100)).toBe(Math.round((3003.01 + 5 + 0.9) * 100));
});

test('a business rejection is not retried', async () => {
  await expect(client.payOnce(payout(1001.02))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', httpStatus: 400 });
});

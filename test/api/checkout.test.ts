import { createHmac } from 'node:crypto';
import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

const DEMO_CHECKOUT = { MerchantId: 'SBXDEMO0001', AccessToken: 'sbx_token_demo_0001' };
const lookup = (id: string, headers: Record<string, string> = DEMO_CHECKOUT) => request(app).get(`/api/v1/payment/transaction/${id}/status`).set(headers);

describe('checkout status lookup', () => {
  test.each([
    ['PAYDEMO0000000001', 'Initialized', 0],
    ['PAYDEMO0000000002', 'Success', 1],
    ['PAYDEMO0000000003', 'Failed', 0],
    ['PAYDEMO0000000004', 'Dropped', 0],
  ])('%s is %s with status_flag %d', async (id, status, flag) => {
    const res = await lookup(id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.data.status).toBe(status);
    expect(res.body.data.status_flag).toBe(flag);
  });

  test('every field of the reference, nullable addresses, and a signature that verifies', async () => {
    const res = await lookup('PAYDEMO0000000002');
    const d = res.body.data;
    expect(d).toEqual({
      payment_id: 'PAYDEMO0000000002',
      merchant_email: 'demo@payout-sandbox.test',
      merchant_id: 'SBXDEMO0001',
      status: 'Success',
      status_flag: 1,
      payment_mode: 'UPI',
      rrn: '612345678901',
      order: { order_id: 'ORDDEMO0002', product_name: 'Sandbox Hoodie', gross_amount: 1499, gateway_fee: 29.98, currency: 'INR', tax: 5.4 },
      customer: { name: 'Asha Verma', email_id: 'asha.verma@example.com', mobile_no: '9876543210' },
      shipping: { address: '12 MG Road', city: 'Bengaluru', state: 'Karnataka', country: 'India', pincode: '560001' },
      billing: { address: '12 MG Road', city: 'Bengaluru', state: 'Karnataka', country: 'India', pincode: '560001' },
      custom_field_1: 'gift',
      custom_field_2: '',
      custom_field_3: '',
      custom_field_4: '',
      custom_field_5: '',
      date: '2026-01-01 08:05:00',
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // The documented canonical string, recomputed here.
    const canonical = [
      d.payment_id,
      d.merchant_id,
      d.order.order_id,
      d.order.gross_amount.toFixed(2),
      d.order.currency,
      d.status,
      String(d.status_flag),
      d.rrn,
      d.date,
    ].join('|');
    expect(d.signature).toBe(createHmac('sha256', 'sbx_secret_demo_0001').update(canonical).digest('hex'));

    const initialized = (await lookup('PAYDEMO0000000001')).body.data;
    expect(initialized.shipping).toEqual({ address: null, city: null, state: null, country: null, pincode: null });
  });

  // The reference has one credentials failure, envelope A 401, and no other envelope for it.
  test.each([
    ['no headers', {}, 'missing headers MerchantId, AccessToken'],
    ['no AccessToken', { MerchantId: 'SBXDEMO0001' }, 'missing header AccessToken'],
    ['no MerchantId', { AccessToken: 'sbx_token_demo_0001' }, 'missing header MerchantId'],
    ['empty headers', { MerchantId: '', AccessToken: '' }, 'missing headers MerchantId, AccessToken'],
    ['empty AccessToken', { ...DEMO_CHECKOUT, AccessToken: '' }, 'missing header AccessToken'],
    ['wrong token', { ...DEMO_CHECKOUT, AccessToken: 'nope' }, "the AccessToken does not match merchant SBXDEMO0001's token"],
    ['unknown merchant', { MerchantId: 'NOPE', AccessToken: 'sbx_token_demo_0001' }, 'no merchant has the MerchantId NOPE'],
    ["another merchant's token", { ...DEMO_CHECKOUT, AccessToken: 'sbx_token_other_0002' }, "the AccessToken does not match merchant SBXDEMO0001's token"],
    [
      'the dashboard key pair instead',
      { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001' },
      'dashboard headers (X-Merchant-Email, X-Api-Key, X-Api-Secret) sent to the checkout API, which takes MerchantId and AccessToken',
    ],
  ])('%s: envelope A 401 Credentials are not valid, and why in X-Sandbox-Auth-Reason', async (_name, headers, reason) => {
    const res = await lookup('PAYDEMO0000000002', headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, http_code: 401, message: 'Credentials are not valid' });
    expect(res.headers['x-sandbox-auth-reason']).toBe(reason);
  });

  test('credentials are checked before the id: a wrong token on an unknown id is a 401, not a 404', async () => {
    const res = await lookup('NOSUCHPAYMENT', { ...DEMO_CHECKOUT, AccessToken: 'nope' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, http_code: 401, message: 'Credentials are not valid' });
  });

  test("another merchant's transaction answers as an unknown one: 404", async () => {
    const foreign = await lookup('PAYOTHR0000000001');
    const unknown = await lookup('NOSUCHPAYMENT');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ status: false, message: 'Transaction not found' });
    expect(unknown.body).toEqual(foreign.body);
    const own = await lookup('PAYOTHR0000000001', { MerchantId: 'SBXOTHER0002', AccessToken: 'sbx_token_other_0002' });
    expect(own.status).toBe(200);
  });
});

import { createHmac } from 'node:crypto';
import {
  beneficiaryRecord,
  checkoutCanonicalString,
  checkoutRecord,
  checkoutSignature,
  initializeResult,
  payoutRecord,
  statusCheckBody,
  verificationRecord,
  webhookV1Body,
} from '../../src/contract/records.js';
import * as Responses from '../../src/contract/responses.js';
import { compile } from '../../src/contract/validate.js';
import type { Beneficiary, CheckoutTransaction, Merchant, Payout, Verification } from '../../src/store/state.js';

/** The reference's record shapes, built from stored records: rupees, IST times, ref_id's two types. */

const CREATED = Date.parse('2026-01-01T03:30:05.000Z'); // 01/01/2026 09:00:05 AM IST
const UPDATED = Date.parse('2026-01-01T18:31:00.000Z'); // 2026-01-02 00:01:00 IST

function payout(over: Partial<Payout> = {}): Payout {
  return {
    ref_id: '4821937465',
    merchant_id: 'M1',
    client_ref_id: 'CREF000001',
    version: 'v2',
    purpose: 'VENDOR_PAYOUT',
    amount: 100_050,
    fees: 500,
    tax: 90,
    payment_method: '1002',
    debit_from: 'VAN1',
    status: 'Success',
    bank_ref_number: '123456789012',
    bank_res_msg: 'Transaction successful',
    beneficiary: { id: 'BENE1', name: 'Payee One', email_id: 'payee@example.com', mobile_no: '9876543210' },
    account_number: '123456789012',
    ifsc_code: 'HDFC0001234',
    remarks: 'invoice 42',
    created_at: CREATED,
    updated_at: UPDATED,
    history: [],
    refunded: false,
    rule: 'default',
    next_step: null,
    ...over,
  };
}

const merchant: Merchant = {
  merchant_id: 'MID0001',
  name: 'Demo',
  email: 'demo@payout-sandbox.test',
  api_key: 'k',
  api_secret: 'secret-1',
  access_token: 't',
  fees: { '1001': 500, '1002': 300, '1003': 1_500 },
  tax_rate_percent: 18,
  per_transaction_limit: 20_000_000,
  webhook_url: null,
  webhook_version: null,
  verification_charges: { BANK: 100, PAN: 100, DRIVING_LICENSE: 100, VOTER_ID: 100, PASSPORT: 100, CIN: 100, GSTIN: 100, AADHAAR: 100, IFSC: 100 },
};

const EXPECTED_RECORD = {
  ref_id: 4_821_937_465,
  client_ref_id: 'CREF000001',
  purpose: 'VENDOR_PAYOUT',
  amount: 1000.5,
  fees: 5,
  tax: 0.9,
  type: 'Debit',
  status: 'Success',
  payment_method: '1002',
  bank_ref_number: '123456789012',
  bank_res_msg: 'Transaction successful',
  beneficiary: { id: 'BENE1', name: 'Payee One', email_id: 'payee@example.com', mobile_no: '9876543210' },
  transaction_date: '2026-01-02 00:01:00',
  created_at: '01/01/2026 09:00:05 AM',
};

describe('payout records', () => {
  test('the status check and webhook record: ref_id a number, money in rupees, transaction_date from the last change, created_at displayed', () => {
    const record = payoutRecord(payout());
    expect(record).toEqual(EXPECTED_RECORD);
    expect(typeof record.ref_id).toBe('number');
    // Exactly the reference's keys, in the reference's order.
    expect(Object.keys(record)).toEqual(Object.keys(EXPECTED_RECORD));
    expect(compile(Responses.PayoutRecord)(record)).toBe(true);
  });

  test('the beneficiary is a copy, not the stored object', () => {
    const p = payout();
    const record = payoutRecord(p);
    expect(record.beneficiary).not.toBe(p.beneficiary);
    record.beneficiary.name = 'changed';
    expect(p.beneficiary.name).toBe('Payee One');
  });

  test('small amounts and zero fees', () => {
    expect(payoutRecord(payout({ amount: 1, fees: 0, tax: 0 }))).toMatchObject({ amount: 0.01, fees: 0, tax: 0 });
    expect(payoutRecord(payout({ amount: 29 }))).toMatchObject({ amount: 0.29 });
  });

  test('the status check body: the success envelope around the record; V1 webhook: the bare record', () => {
    expect(statusCheckBody(payout())).toEqual({
      success: true,
      http_code: 200,
      message: 'Transaction status fetched successfully',
      data: { transaction: EXPECTED_RECORD },
    });
    expect(webhookV1Body(payout())).toEqual({ transaction: EXPECTED_RECORD });
    expect(typeof statusCheckBody(payout()).data.transaction.ref_id).toBe('number');
    expect(typeof webhookV1Body(payout()).transaction.ref_id).toBe('number');
  });

  test('the initialize result: ref_id a string; NEW stays NEW, anything else is reported Pending', () => {
    const r = initializeResult(payout({ status: 'NEW' }));
    expect(r).toEqual({ ref_id: '4821937465', client_ref_id: 'CREF000001', status: 'NEW' });
    expect(typeof r.ref_id).toBe('string');
    expect(compile(Responses.InitializeResult)(r)).toBe(true);
    for (const status of ['Pending', 'Success', 'Failed', 'Unknown'] as const) {
      expect(initializeResult(payout({ status }))).toEqual({ ref_id: '4821937465', client_ref_id: 'CREF000001', status: 'Pending' });
    }
  });
});

test('the beneficiary record: the owning merchant as email_id, the creation time displayed', () => {
  const b: Beneficiary = {
    bene_id: 'BENEDEMO000000000001',
    merchant_id: 'MID0001',
    bene_name: 'Payee One',
    bene_email: 'payee@example.com',
    bene_mobile_no: '9876543210',
    bank_name: 'HDFC Bank',
    bank_account_number: '123456789012',
    ifsc_code: 'HDFC0001234',
    vpa_address: null,
    status: 'Pending',
    created_at: Date.parse('2026-05-31T18:30:00.000Z'),
    activates_at: null,
  };
  const record = beneficiaryRecord(b, merchant);
  expect(record).toEqual({
    bene_id: 'BENEDEMO000000000001',
    email_id: 'demo@payout-sandbox.test',
    bene_name: 'Payee One',
    bene_email: 'payee@example.com',
    bene_mobile_no: '9876543210',
    bank_name: 'HDFC Bank',
    bank_account_number: '123456789012',
    ifsc_code: 'HDFC0001234',
    vpa_address: null,
    status: 'Pending',
    timestamp: '01/06/2026 12:00:00 AM',
  });
  expect(compile(Responses.BeneficiaryRecord)(record)).toBe(true);
});

test('the verification record: commission and tax in rupees', () => {
  const v: Verification = {
    verification_id: 'VRFABCDEFGHIJ0123456',
    merchant_id: 'MID0001',
    source_type: 'PAN',
    doc_number: 'ABCDE1234F',
    debit_from: 'VAN1',
    commission: 250,
    tax: 45,
    verification_status: 'Success',
    verify_response: { valid: true, message: 'PAN verified successfully', name: 'X' },
    created_at: 0,
  };
  const record = verificationRecord(v);
  expect(record).toEqual({
    verification_id: 'VRFABCDEFGHIJ0123456',
    source_type: 'PAN',
    doc_number: 'ABCDE1234F',
    commission: 2.5,
    tax: 0.45,
    verification_status: 'Success',
    verify_response: { valid: true, message: 'PAN verified successfully', name: 'X' },
  });
  expect(compile(Responses.VerificationRecord)(record)).toBe(true);
});

describe('checkout records', () => {
  const address = { address: null, city: 'Pune', state: null, country: 'IN', pincode: null };
  const tx = (over: Partial<CheckoutTransaction> = {}): CheckoutTransaction => ({
    payment_id: 'PAY0001',
    merchant_id: 'MID0001',
    status: 'Success',
    payment_mode: 'UPI',
    rrn: '998877665544',
    order: { order_id: 'ORD1', product_name: 'Widget', gross_amount: 123_450, gateway_fee: 250, currency: 'INR', tax: 45 },
    customer: { name: 'C', email_id: 'c@example.com', mobile_no: '9000000000' },
    shipping: address,
    billing: { ...address, city: 'Mumbai' },
    custom_fields: ['a', 'b', '', 'd', 'e'],
    created_at: Date.parse('2026-01-01T18:29:59.000Z'),
    next_step: null,
    ...over,
  });

  test('the canonical string: fields joined by |, the amount with two decimals, status flag, date in IST', () => {
    expect(checkoutCanonicalString(tx(), merchant)).toBe('PAY0001|MID0001|ORD1|1234.50|INR|Success|1|998877665544|2026-01-01 23:59:59');
    expect(checkoutCanonicalString(tx({ status: 'Failed', rrn: '', order: { ...tx().order, gross_amount: 100 } }), merchant)).toBe(
      'PAY0001|MID0001|ORD1|1.00|INR|Failed|0||2026-01-01 23:59:59',
    );
  });

  test("the signature is the hex HMAC-SHA256 of the canonical string under the merchant's API secret", () => {
    const expected = createHmac('sha256', 'secret-1').update('PAY0001|MID0001|ORD1|1234.50|INR|Success|1|998877665544|2026-01-01 23:59:59').digest('hex');
    expect(checkoutSignature(tx(), merchant)).toBe(expected);
    expect(checkoutSignature(tx(), { ...merchant, api_secret: 'other' })).not.toBe(expected);
  });

  test('the record: money in rupees, status_flag 1 only for Success, custom fields spread, copies of the addresses', () => {
    const t = tx();
    const record = checkoutRecord(t, merchant);
    expect(record).toEqual({
      payment_id: 'PAY0001',
      merchant_email: 'demo@payout-sandbox.test',
      merchant_id: 'MID0001',
      status: 'Success',
      status_flag: 1,
      payment_mode: 'UPI',
      rrn: '998877665544',
      order: { order_id: 'ORD1', product_name: 'Widget', gross_amount: 1234.5, gateway_fee: 2.5, currency: 'INR', tax: 0.45 },
      customer: { name: 'C', email_id: 'c@example.com', mobile_no: '9000000000' },
      shipping: address,
      billing: { ...address, city: 'Mumbai' },
      custom_field_1: 'a',
      custom_field_2: 'b',
      custom_field_3: '',
      custom_field_4: 'd',
      custom_field_5: 'e',
      date: '2026-01-01 23:59:59',
      signature: checkoutSignature(t, merchant),
    });
    expect(record.shipping).not.toBe(t.shipping);
    expect(compile(Responses.CheckoutTransactionRecord)(record)).toBe(true);
    for (const status of ['Initialized', 'Failed', 'Dropped'] as const) expect(checkoutRecord(tx({ status }), merchant).status_flag).toBe(0);
  });
});

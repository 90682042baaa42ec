import { createHmac } from 'node:crypto';
import { MESSAGES } from '../errors.js';
import { toRupees } from '../money.js';
import type { Beneficiary, CheckoutTransaction, Merchant, Payout, Verification } from '../store/state.js';
import { formatDisplayTime, formatTransactionDate } from '../time.js';
import { successEnvelope } from './envelopes.js';
import type { BeneficiaryRecord, CheckoutTransactionRecord, InitializeResult, PayoutRecord, VerificationRecord } from './responses.js';

/** The reference's payout transaction record (status check and webhook body): `ref_id` a number. */
export function payoutRecord(p: Payout): PayoutRecord {
  return {
    ref_id: Number(p.ref_id),
    client_ref_id: p.client_ref_id,
    purpose: p.purpose,
    amount: toRupees(p.amount),
    fees: toRupees(p.fees),
    tax: toRupees(p.tax),
    type: 'Debit' as const,
    status: p.status,
    payment_method: p.payment_method,
    bank_ref_number: p.bank_ref_number,
    bank_res_msg: p.bank_res_msg,
    beneficiary: { ...p.beneficiary },
    transaction_date: formatTransactionDate(p.updated_at),
    created_at: formatDisplayTime(p.created_at),
  };
}

/** The status check's answer, and the V2 webhook body: the success envelope around the record. */
export function statusCheckBody(p: Payout) {
  return successEnvelope(MESSAGES.statusFetched, { transaction: payoutRecord(p) });
}

/** The V1 webhook body: the bare record. */
export function webhookV1Body(p: Payout) {
  return { transaction: payoutRecord(p) };
}

/** The reference's payout initialize result: `ref_id` a string. */
export function initializeResult(p: Payout): InitializeResult {
  return { ref_id: p.ref_id, client_ref_id: p.client_ref_id, status: p.status === 'NEW' ? 'NEW' : 'Pending' };
}

/** The reference's beneficiary record; `email_id` is the owning merchant's email. */
export function beneficiaryRecord(b: Beneficiary, merchant: Merchant): BeneficiaryRecord {
  return {
    bene_id: b.bene_id,
    email_id: merchant.email,
    bene_name: b.bene_name,
    bene_email: b.bene_email,
    bene_mobile_no: b.bene_mobile_no,
    bank_name: b.bank_name,
    bank_account_number: b.bank_account_number,
    ifsc_code: b.ifsc_code,
    vpa_address: b.vpa_address,
    status: b.status,
    timestamp: formatDisplayTime(b.created_at),
  };
}

/** The reference's verification record. */
export function verificationRecord(v: Verification): VerificationRecord {
  return {
    verification_id: v.verification_id,
    source_type: v.source_type,
    doc_number: v.doc_number,
    commission: toRupees(v.commission),
    tax: toRupees(v.tax),
    verification_status: v.verification_status,
    verify_response: v.verify_response as VerificationRecord['verify_response'],
  };
}

/** The reference's checkout transaction, with its signature. */
export function checkoutRecord(t: CheckoutTransaction, merchant: Merchant): CheckoutTransactionRecord {
  return {
    payment_id: t.payment_id,
    merchant_email: merchant.email,
    merchant_id: merchant.merchant_id,
    status: t.status,
    status_flag: t.status === 'Success' ? (1 as const) : (0 as const),
    payment_mode: t.payment_mode,
    rrn: t.rrn,
    order: {
      order_id: t.order.order_id,
      product_name: t.order.product_name,
      gross_amount: toRupees(t.order.gross_amount),
      gateway_fee: toRupees(t.order.gateway_fee),
      currency: t.order.currency,
      tax: toRupees(t.order.tax),
    },
    customer: { ...t.customer },
    shipping: { ...t.shipping },
    billing: { ...t.billing },
    custom_field_1: t.custom_fields[0],
    custom_field_2: t.custom_fields[1],
    custom_field_3: t.custom_fields[2],
    custom_field_4: t.custom_fields[3],
    custom_field_5: t.custom_fields[4],
    date: formatTransactionDate(t.created_at),
    signature: checkoutSignature(t, merchant),
  };
}

/**
 * The canonical string the checkout `signature` signs (a sandbox choice; the reference does not
 * show the algorithm): these fields joined by `|`, amounts with two decimals.
 */
export function checkoutCanonicalString(t: CheckoutTransaction, merchant: Merchant): string {
  return [
    t.payment_id,
    merchant.merchant_id,
    t.order.order_id,
    toRupees(t.order.gross_amount).toFixed(2),
    t.order.currency,
    t.status,
    t.status === 'Success' ? '1' : '0',
    t.rrn,
    formatTransactionDate(t.created_at),
  ].join('|');
}

/** Hex HMAC-SHA256 of the canonical string, keyed by the merchant's API secret. */
export function checkoutSignature(t: CheckoutTransaction, merchant: Merchant): string {
  return createHmac('sha256', merchant.api_secret).update(checkoutCanonicalString(t, merchant)).digest('hex');
}

import type { Clock } from '../clock.js';
import { beneficiaryRecord, checkoutRecord, payoutRecord, verificationRecord } from '../contract/records.js';
import { toRupees } from '../money.js';
import { ledgerDetail } from '../observe/payout-detail.js';

import { mapAmounts } from '../sandbox/terms.js';
import type { PayoutOutcome, PayoutPlan } from '../scenario/types.js';
import type { Clocks } from '../schedule/clocks.js';
import type { Account, Beneficiary, CheckoutTransaction, Merchant, Payout, Verification } from '../store/state.js';
import { toIso } from '../time.js';

/** The admin surface's answers: plain JSON, money in rupees and times in IST, as the API shows them. */

export function clockView(clock: Clock) {
  return { now: toIso(clock.now()), mode: clock.mode, speed: clock.mode === 'manual' ? 0 : clock.speed };
}

/** A merchant's clock: its own, or the sandbox clock it follows (`follows_sandbox_clock`). */
export function merchantClockView(clocks: Clocks, merchantId: string) {
  return { merchant_id: merchantId, ...clockView(clocks.of(merchantId)), follows_sandbox_clock: !clocks.hasOwn(merchantId) };
}

/** The three dashboard-API headers of a merchant's credentials. */
export function credentialHeaders(m: Merchant): Record<'x-merchant-email' | 'x-api-key' | 'x-api-secret', string> {
  return { 'x-merchant-email': m.email, 'x-api-key': m.api_key, 'x-api-secret': m.api_secret };
}

export function merchantView(merchant: Merchant, van: Account, clock?: ReturnType<typeof merchantClockView>) {
  return {
    merchant_id: merchant.merchant_id,
    name: merchant.name,
    email: merchant.email,
    api_key: merchant.api_key,
    api_secret: merchant.api_secret,
    access_token: merchant.access_token,
    account_no: van.account_no,
    balance: toRupees(van.balance),
    fees: mapAmounts(merchant.fees, toRupees),
    tax_rate_percent: merchant.tax_rate_percent,
    per_transaction_limit: toRupees(merchant.per_transaction_limit),
    verification_charges: mapAmounts(merchant.verification_charges, toRupees),
    webhook_url: merchant.webhook_url,
    webhook_version: merchant.webhook_version,
    webhook_secret: merchant.webhook_secret ?? merchant.api_secret,
    headers: credentialHeaders(merchant),
    checkout_headers: { MerchantId: merchant.merchant_id, AccessToken: merchant.access_token },
    ...(clock ? { clock } : {}),
  };
}

export function merchantTermsView(merchant: Merchant) {
  return {
    merchant_id: merchant.merchant_id,
    email: merchant.email,
    webhook_url: merchant.webhook_url,
    webhook_version: merchant.webhook_version,
    webhook_secret: merchant.webhook_secret ?? merchant.api_secret,
    per_transaction_limit: toRupees(merchant.per_transaction_limit),
  };
}

export const ledgerView = (a: Account) => ledgerDetail(a);

export function payoutView(p: Payout) {
  return { merchant_id: p.merchant_id, transaction: payoutRecord(p) };
}

export function beneficiaryView(b: Beneficiary, merchant: Merchant | undefined) {
  return merchant ? beneficiaryRecord(b, merchant) : { bene_id: b.bene_id, status: b.status };
}

export function verificationView(v: Verification) {
  return { merchant_id: v.merchant_id, ...verificationRecord(v), at: toIso(v.created_at) };
}

export function checkoutView(t: CheckoutTransaction, merchant: Merchant | undefined) {
  return merchant ? checkoutRecord(t, merchant) : { payment_id: t.payment_id, status: t.status };
}

/** A payout plan as data: its first status, its steps (after a time, or a number of status checks), a read-after-write lag. */
export function planView(plan: PayoutPlan) {
  return {
    kind: 'timeline' as const,
    initial_status: plan.initialStatus,
    steps: plan.steps.map((s) => (s.afterPolls !== undefined ? { status: s.status, after_polls: s.afterPolls } : { status: s.status, after_ms: s.afterMs })),
    lag_ms: plan.lagMs ?? 0,
  };
}

/** What a payout rule decides, as data: a rejection's code, a timeline, or a fault (and the timeline of the payout it makes). */
export function outcomeView(o: PayoutOutcome) {
  if (o.kind === 'reject') return { kind: 'reject' as const, code: o.code };
  if (o.kind === 'timeline') return planView(o.plan);
  const { type, httpCode, delayMs, create } = o.fault;
  return { ...planView(o.plan), kind: 'fault' as const, fault: { type, http_code: httpCode, delay_ms: delayMs, create } };
}

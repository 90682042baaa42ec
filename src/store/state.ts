import type { AccountStatus, ApiVersion, BeneficiaryStatus, CheckoutStatus, PaymentMethod, PayoutStatus, Purpose, VerificationType } from '../vocab.js';

export type { AccountStatus, ApiVersion, BeneficiaryStatus, CheckoutStatus, PaymentMethod, PayoutStatus, Purpose, VerificationType };

import type { AadhaarOtpRequest, Account, Beneficiary, CheckoutTransaction, DueItem, Merchant, Payout, Verification, WebhookDelivery } from './records.js';

export * from './records.js';

/** Everything the sandbox remembers. One JSON document: the lowdb file, and (later) a snapshot. */
export interface State {
  schema_version: 1;
  /** Which change-log lines belong to this document (see change-log.ts); absent in older files: 0. */
  log_generation?: number;
  merchants: Record<string, Merchant>;
  accounts: Record<string, Account>;
  beneficiaries: Record<string, Beneficiary>;
  payouts: Record<string, Payout>;
  checkout_transactions: Record<string, CheckoutTransaction>;
  verifications: Record<string, Verification>;
  /** Aadhaar OTP requests waiting for their second step, by their `ref_id`. */
  aadhaar_otps: Record<string, AadhaarOtpRequest>;
  /** The manual clock's time, kept so a restart continues where it stopped. */
  clock: { now: number | null };
  /** The webhook outbox: every delivery, stored before its first attempt. */
  webhook_deliveries: Record<string, WebhookDelivery>;
  webhook_seq: number;
  /** Everything due later, on the sandbox clock (see Scheduler). */
  scheduler: { seq: number; items: Record<string, DueItem> };
  /** Behaviour coverage: per merchant, how often each catalogue item was exercised. */
  coverage?: Record<string, Record<string, number>>;
  /** The merchants with a clock of their own; the others follow `clock` (the sandbox clock). */
  merchant_clocks?: Record<string, MerchantClock>;
  /** Each merchant's records as they were at its creation: what a merchant's reset goes back to. */
  origins?: Record<string, MerchantSlice>;
}

/** A merchant's own clock: sandbox time was `start` at the real instant `real_anchor` (`start` is its time, manual). */
export interface MerchantClock {
  mode: 'real' | 'manual';
  speed: number;
  start: number;
  real_anchor: number;
}

/** One merchant's records, cut out of the state (per-merchant snapshots, reset): each collection by id, as in the state. */
export interface MerchantSlice {
  merchant: Merchant;
  accounts: Record<string, Account>;
  beneficiaries: Record<string, Beneficiary>;
  payouts: Record<string, Payout>;
  checkout_transactions: Record<string, CheckoutTransaction>;
  verifications: Record<string, Verification>;
  aadhaar_otps: Record<string, AadhaarOtpRequest>;
  webhook_deliveries: Record<string, WebhookDelivery>;
  due_items: Record<string, DueItem>;
  /** Null: it follows the sandbox clock. */
  clock: MerchantClock | null;
  coverage: Record<string, number>;
}

export function emptyState(): State {
  return {
    schema_version: 1,
    merchants: {},
    accounts: {},
    beneficiaries: {},
    payouts: {},
    checkout_transactions: {},
    verifications: {},
    aadhaar_otps: {},
    clock: { now: null },
    scheduler: { seq: 0, items: {} },
    webhook_deliveries: {},
    webhook_seq: 0,
    coverage: {},
    merchant_clocks: {},
    origins: {},
  };
}

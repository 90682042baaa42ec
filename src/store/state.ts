import type {
  AccountStatus,
  ApiVersion,
  BeneficiaryStatus,
  CheckoutStatus,
  FaultEffect,
  OperationName,
  OutageEffect,
  PaymentMethod,
  PayoutStatus,
  Purpose,
  VerificationType,
} from '../vocab.js';

export type { AccountStatus, ApiVersion, BeneficiaryStatus, CheckoutStatus, PaymentMethod, PayoutStatus, Purpose, VerificationType };

import type {
  AadhaarOtpRequest,
  Account,
  Beneficiary,
  CheckoutTransaction,
  DueItem,
  Merchant,
  Payout,
  ReviewFactPage,
  Verification,
  WebhookDelivery,
} from './records.js';

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
  /** Each merchant's webhook endpoint (health, auto-disable, probe runs), by merchant id; absent: enabled, healthy. */
  webhook_endpoints?: Record<string, WebhookEndpoint>;
  /** Per merchant: how many calls each operation fault rule (with `times`) has failed so far. */
  fault_counts?: Record<string, Record<string, number>>;
  /** Per merchant: its seeded chaos, and how many draws it has made (the same calls give the same faults). */
  chaos?: Record<string, ChaosState>;
  /** Bank outage windows made through the control API, by id. */
  outages?: Record<string, OutageRecord>;
  /** The integration review's facts, in pages by `<merchant_id>/<seq of the page's first fact>`. */
  review_facts?: Record<string, ReviewFactPage>;
}

/** Where a merchant's draws of the scenario's chaos are counted, among its fault counters. */
export const SANDBOX_CHAOS_DRAWS = '#scenario-chaos-draws';

/** A merchant's chaos: `percent` of the calls of `operations` fail with one of `modes`, drawn from `seed`. */
export interface ChaosState {
  percent: number;
  modes: FaultEffect[];
  operations: OperationName[];
  seed: number;
  /** Draws made so far: the next call's draw is the `draws`-th of the seed's sequence. */
  draws: number;
}

/** A bank outage window; `from`/`to` null: open. */
export interface OutageRecord {
  id: string;
  bank: string;
  payment_method: PaymentMethod | null;
  from: number | null;
  to: number | null;
  effect: OutageEffect;
  merchant_id: string | null;
  created_at: number;
}

/** One check of a receiver probe: what was sent, what a correct receiver answers, what came. */
export interface ProbeCheck {
  check: string;
  /** What its request was, in the table of delivery kinds (webhooks/kinds.ts; absent in older files). */
  kind?: string;
  expected: string;
  got: string;
  passed: boolean;
  detail: string;
}

/** One run of the receiver probe against a merchant's endpoint. */
export interface ProbeRun {
  /** Sandbox time (the merchant's clock) of the run. */
  at: number;
  url: string;
  ok: boolean;
  checks: ProbeCheck[];
}

/** A merchant's webhook endpoint: enabled or disabled (auto-disable), since when it fails, and its last probe runs. */
export interface WebhookEndpoint {
  merchant_id: string;
  state: 'enabled' | 'disabled';
  /** The first failed genuine attempt since the last successful one (the merchant's clock), or null. */
  failing_since: number | null;
  disabled_at: number | null;
  /** The last probe runs, oldest first (bounded). */
  probes: ProbeRun[];
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
  /** Absent in slices of older versions (facts one record each in some: made pages at restore). */
  review_facts?: Record<string, ReviewFactPage>;
  /** Its webhook endpoint's state (absent in slices of older versions: enabled). */
  webhook_endpoints?: Record<string, WebhookEndpoint>;
  /** Null: it follows the sandbox clock. */
  clock: MerchantClock | null;
  coverage: Record<string, number>;
  /** Its fault counters and chaos (absent in slices of older versions). */
  fault_counts?: Record<string, number>;
  chaos?: ChaosState | null;
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

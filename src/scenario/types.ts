import type { BeneficiaryNameRule } from '../contract/schemas.js';
import type { ErrorCode } from '../errors.js';
import type { Paise } from '../money.js';
import type { CheckoutStatus, FaultEffect, OperationName, OutageEffect, PaymentMethod, PayoutStatus, VerificationType } from '../vocab.js';

/** The compiled scenario: what the domain reads to decide outcomes, timelines and faults. */

/** One of the reference's rate limits: `limit` calls per `windowMs`. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

export interface TimelineStep {
  afterMs: number;
  /** A poll-driven step: taken on this many status checks since the step before (`afterMs` unused). */
  afterPolls?: number;
  status: PayoutStatus;
  bank_res_msg?: string;
}

/** What happens to an accepted payout: its first status and the steps after it. */
export interface PayoutPlan {
  rule: string;
  initialStatus: 'NEW' | 'Pending';
  steps: TimelineStep[];
  /** Read-after-write lag: invisible to the status check for this long after initialize. */
  lagMs?: number;
}

export interface FaultSpec {
  type: 'error' | 'delay' | 'drop';
  httpCode: number;
  message: string;
  delayMs: number;
  create: boolean;
}

export type PayoutOutcome =
  | { kind: 'reject'; code: ErrorCode; message: string }
  | { kind: 'timeline'; plan: PayoutPlan }
  | { kind: 'fault'; fault: FaultSpec; plan: PayoutPlan };

export interface AmountRange {
  min: Paise;
  max: Paise;
}

export interface PayoutMatcher {
  amount?: AmountRange;
  payment_method?: PaymentMethod[];
  account_number?: string;
  ifsc_code?: string;
  beneficiary_name?: string;
  client_ref_id_prefix?: string;
  share?: number;
}

export interface PayoutRule {
  name: string;
  description: string;
  match: PayoutMatcher;
  outcome: PayoutOutcome;
  /** Webhook chaos for this rule's payouts, over the scenario's. */
  chaos: Partial<WebhookChaos> | null;
  /** How the dashboard tells it (scenario `story`), or null. */
  story: PayoutStory | null;
}

/** A demo's story: title, summary, and what to say at each moment (scenario schema `Story`). */
export interface PayoutStory {
  title: string;
  summary?: string;
  steps?: Partial<Record<'answer' | 'NEW' | 'Pending' | 'not_found' | 'Unknown' | 'Success' | 'Failed' | 'reversed' | 'webhook' | 'end', string>>;
}

export interface WebhookChaos {
  duplicate: number;
  reorder: boolean;
  delayMs: number;
  wrongSignature: number;
  /** Share of deliveries whose first answered request is sent again later, unchanged. */
  replay: number;
  /** Share of deliveries whose first attempt carries a timestamp over 10 minutes old. */
  staleTimestamp: number;
}

export const NO_CHAOS: WebhookChaos = { duplicate: 0, reorder: false, delayMs: 0, wrongSignature: 0, replay: 0, staleTimestamp: 0 };

export interface CheckoutStep {
  afterMs: number;
  status: CheckoutStatus;
}

/** A scenario file, checked and compiled: durations in ms, amounts in paise. */
export interface Scenario {
  name: string;
  source: string | null;
  payouts: { defaultPlan: PayoutPlan; rules: PayoutRule[] };
  beneficiaries: {
    activationDelayMs: number;
    rules: Array<{ name: string; match: { account_number?: string; ifsc_code?: string; beneficiary_name?: string }; activationMs: number | null }>;
  };
  checkout: {
    defaultTimeline: CheckoutStep[];
    rules: Array<{ name: string; match: { amount?: AmountRange; payment_mode?: string }; timeline: CheckoutStep[] }>;
  };
  verification: { invalid: Record<VerificationType, ReadonlySet<string>> };
  /** How the integration review judges: the window after a payment's Success in which paying it again is a finding. */
  review: { repeatWindowMs: number };
  /** The reading of the reference's field rules that requests are checked by. */
  validation: { beneficiaryName: BeneficiaryNameRule };
  limits: { status_check: RateLimitRule; balance_check: RateLimitRule };
  webhooks: {
    retryScheduleMs: number[];
    timeoutMs: number;
    /** An endpoint failing this long (genuine attempts, none succeeding; the merchant's clock) is disabled. */
    disableAfterMs: number;
    chaos: WebhookChaos;
  };
  /** Faults of any operation, in file order (the first that matches a call decides). */
  faults: OperationFault[];
  /** The chaos of every merchant without its own; null: none. */
  chaos: ChaosConfig | null;
  /** Bank outage windows of the scenario (the control API adds more, in the state). */
  outages: OutageConfig[];
}

/** An operation fault, compiled. */
export interface OperationFault {
  name: string;
  description: string;
  operations: ReadonlySet<OperationName>;
  /** Field path → value; a string ending in `*` a prefix. */
  match: Array<[path: string[], value: string]>;
  effect: FaultEffect;
  times: number | null;
  holdMs: number;
  delay: { minMs: number; maxMs: number };
  retryAfterS: number;
}

/** Seeded chaos, as set through the control API or a scenario. */
export interface ChaosConfig {
  percent: number;
  modes: FaultEffect[];
  operations: OperationName[];
  seed: number;
}

/** A bank outage window (times in ms since the epoch; open ends as ±Infinity in memory, null in JSON). */
export interface OutageConfig {
  id: string;
  bank: string;
  payment_method: PaymentMethod | null;
  from: number | null;
  to: number | null;
  effect: OutageEffect;
  merchant_id: string | null;
}

export class ScenarioError extends Error {}

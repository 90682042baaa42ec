import type { ErrorCode } from '../errors.js';
import type { Paise } from '../money.js';
import type { CheckoutStatus, PaymentMethod, PayoutStatus, VerificationType } from '../vocab.js';

/** The compiled scenario: what the domain reads to decide outcomes, timelines and faults. */

/** One of the reference's rate limits: `limit` calls per `windowMs`. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

export interface TimelineStep {
  afterMs: number;
  status: PayoutStatus;
  bank_res_msg?: string;
}

/** What happens to an accepted payout: its first status and the steps after it. */
export interface PayoutPlan {
  rule: string;
  initialStatus: 'NEW' | 'Pending';
  steps: TimelineStep[];
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
}

export interface WebhookChaos {
  duplicate: number;
  reorder: boolean;
  delayMs: number;
  wrongSignature: number;
}

export const NO_CHAOS: WebhookChaos = { duplicate: 0, reorder: false, delayMs: 0, wrongSignature: 0 };

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
  limits: { status_check: RateLimitRule; balance_check: RateLimitRule };
  webhooks: { retryScheduleMs: number[]; timeoutMs: number; chaos: WebhookChaos };
}

export class ScenarioError extends Error {}

import { ERROR_CODES, type ErrorCode } from './errors.js';
import {
  CHECKOUT_STATUSES,
  type CheckoutStatus,
  FAULT_EFFECTS,
  type FaultEffect,
  OUTAGE_EFFECTS,
  type OutageEffect,
  PAYOUT_STATUSES,
  type PayoutStatus,
  VERIFICATION_TYPES,
  type VerificationType,
} from './vocab.js';

/**
 * The behaviours a merchant's integration can be shown (behaviour coverage counts them): one
 * typed id each, so that every emitter is checked by the compiler against this list and a
 * misspelt id does not compile. The coverage catalogue (observe/catalogue.ts) describes each one;
 * a test holds the two to the same set.
 */
const FIXED = [
  'payout.reversed',
  'payout.duplicate_client_ref_id',
  'request.validation',
  'auth.dashboard',
  'auth.checkout',
  'ratelimit.status_check',
  'ratelimit.balance_check',
  'beneficiary.pending',
  'beneficiary.activated',
  'verification.AADHAAR.otp_sent',
  'verification.AADHAAR.otp_wrong',
  'verification.AADHAAR.otp_expired',
  'payout.not_yet_visible',
  'payout.moved_by_status_check',
  'webhook.v1',
  'webhook.v2',
  'webhook.retry',
  'webhook.duplicate',
  'webhook.reorder',
  'webhook.bad_signature',
  'webhook.replay',
  'webhook.stale_timestamp',
  'webhook.disabled',
] as const;

export type BehaviourId =
  | (typeof FIXED)[number]
  | `error.${ErrorCode}`
  | `payout.status.${PayoutStatus}`
  /** A transport fault of the scenario rule of that name. */
  | `fault.${string}`
  | `verification.${VerificationType}.${'valid' | 'invalid'}`
  | `checkout.status.${CheckoutStatus}`
  /** A fault of any operation (a scenario's fault rule, or chaos). */
  | `transport.${FaultEffect}`
  /** A payout to a bank that was down. */
  | `outage.${OutageEffect}`;

/** Every behaviour id there is, given the scenario's fault rules (the only ids named by the scenario). */
export function behaviourIds(faultRules: readonly string[]): BehaviourId[] {
  return [
    ...ERROR_CODES.map((c) => `error.${c}` as const),
    ...PAYOUT_STATUSES.map((s) => `payout.status.${s}` as const),
    ...faultRules.map((r) => `fault.${r}` as const),
    ...VERIFICATION_TYPES.flatMap((t) => [`verification.${t}.valid` as const, `verification.${t}.invalid` as const]),
    ...CHECKOUT_STATUSES.map((s) => `checkout.status.${s}` as const),
    ...FAULT_EFFECTS.map((e) => `transport.${e}` as const),
    ...OUTAGE_EFFECTS.map((e) => `outage.${e}` as const),
    ...FIXED,
  ];
}

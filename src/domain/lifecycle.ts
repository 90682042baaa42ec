import { toRupees } from '../money.js';
import type { PayoutPlan, TimelineStep } from '../scenario/scenario.js';
import type { DueItem, Payout, PayoutStatus } from '../store/state.js';
import type { DomainContext } from './context.js';
import { post } from './ledger.js';
import { scheduleStep, stepOf } from './timeline.js';

export const DEFAULT_BANK_MESSAGES: Record<PayoutStatus, string> = {
  NEW: '',
  Pending: '',
  Success: 'Transaction successful',
  Failed: 'Transaction failed',
  Unknown: 'Awaiting confirmation from the bank',
};

/** Which status may follow which. Failed is final; Success may still fail (a reversal). */
const NEXT: Record<PayoutStatus, readonly PayoutStatus[]> = {
  NEW: ['Pending', 'Success', 'Failed', 'Unknown'],
  Pending: ['Success', 'Failed', 'Unknown'],
  Unknown: ['Pending', 'Success', 'Failed'],
  Success: ['Failed'],
  Failed: [],
};

export type TransitionResult = { ok: true } | { ok: false; reason: string };

/** Why a payout cannot go from `from` to `to`, or null when it can. */
export function transitionRefusal(from: PayoutStatus, to: PayoutStatus): string | null {
  return NEXT[from].includes(to) ? null : `${from} → ${to} is not a transition a payout can make`;
}

/**
 * Moves a payout to `status`: the history and `transaction_date` record the change, Success gets a
 * 12-digit UTR, Failed (also after Success) credits amount, fee and tax back once, and one status
 * event carries the record as it is after the change.
 */
export function transitionPayout(ctx: DomainContext, payout: Payout, status: PayoutStatus, bankResMsg?: string): TransitionResult {
  const reason = transitionRefusal(payout.status, status);
  if (reason) {
    ctx.logger.info({ ref_id: payout.ref_id, from: payout.status, to: status }, 'payout transition refused');
    return { ok: false, reason };
  }
  const now = ctx.clocks.now(payout.merchant_id);
  ctx.repo.touch('payouts', payout.ref_id);
  payout.status = status;
  payout.bank_res_msg = bankResMsg ?? DEFAULT_BANK_MESSAGES[status];
  payout.updated_at = now;
  payout.history.push({ status, at: now, bank_res_msg: payout.bank_res_msg, real_at: Date.now() });
  if (status === 'Success' && payout.bank_ref_number === '') payout.bank_ref_number = ctx.random.digits(12);
  if (status === 'Failed') {
    refund(ctx, payout, now);
    // Nothing follows a final failure.
    dropNextStep(ctx, payout);
  }
  ctx.events.behaviour(payout.merchant_id, `payout.status.${status}`);
  if (status === 'Failed' && payout.history.some((h) => h.status === 'Success')) ctx.events.behaviour(payout.merchant_id, 'payout.reversed');
  ctx.events.emitPayoutStatus(payout);
  return { ok: true };
}

function refund(ctx: DomainContext, payout: Payout, at: number): void {
  if (payout.refunded) return;
  const account = ctx.repo.state.accounts[payout.debit_from];
  post(ctx.repo, account, at, payout.ref_id, [
    { type: 'refund', amount: payout.amount, note: `refund of payout ${payout.client_ref_id} (₹${toRupees(payout.amount)})` },
    { type: 'fee_refund', amount: payout.fees, note: `fee refund of payout ${payout.client_ref_id}` },
    { type: 'tax_refund', amount: payout.tax, note: `tax refund of payout ${payout.client_ref_id}` },
  ]);
  payout.refunded = true;
}

/** Schedules the plan's steps: each `afterMs` counts from the step before, the first from creation. */
export function startPayoutTimeline(ctx: DomainContext, payout: Payout, plan: PayoutPlan): void {
  scheduleNextStep(ctx, payout, payout.created_at, plan.steps);
}

/** `next_step` of a payout whose next step waits for status checks, not for time (no due item). */
export const POLL_STEP = 'on_status_check';

function scheduleNextStep(ctx: DomainContext, payout: Payout, from: number, steps: TimelineStep[]): void {
  ctx.repo.touch('payouts', payout.ref_id);
  const [next, ...rest] = steps;
  if (next?.afterPolls !== undefined) {
    payout.poll_step = { step: { status: next.status, bank_res_msg: next.bank_res_msg, afterPolls: next.afterPolls }, rest, polls: 0 };
    payout.next_step = POLL_STEP;
    return;
  }
  if (payout.poll_step) payout.poll_step = null;
  payout.next_step = scheduleStep(ctx.scheduler, 'payout_step', { ref_id: payout.ref_id }, payout.merchant_id, from, steps);
}

/** Drops whatever step comes next, scheduled or waiting for status checks. */
function dropNextStep(ctx: DomainContext, payout: Payout): void {
  ctx.scheduler.cancel(payout.next_step);
  payout.next_step = null;
  if (payout.poll_step) payout.poll_step = null;
}

/**
 * A status check of a payout (poll-driven timelines): counted when its next step waits for
 * status checks, and that step taken on the one it waits for, before the check answers. True
 * when the payout changed (the caller writes it before answering).
 */
export function noteStatusCheck(ctx: DomainContext, payout: Payout): boolean {
  const waiting = payout.poll_step;
  if (!waiting || payout.next_step !== POLL_STEP) return false;
  ctx.repo.touch('payouts', payout.ref_id);
  waiting.polls += 1;
  if (waiting.polls < waiting.step.afterPolls) return true;
  scheduleNextStep(ctx, payout, ctx.clocks.now(payout.merchant_id), waiting.rest);
  if (transitionPayout(ctx, payout, waiting.step.status, waiting.step.bank_res_msg).ok) {
    ctx.events.behaviour(payout.merchant_id, 'payout.moved_by_status_check');
  } else {
    dropNextStep(ctx, payout);
  }
  return true;
}

/** The scheduler's handler for a payout step. */
export function runPayoutStep(ctx: DomainContext, item: DueItem): void {
  const refId = String(item.payload.ref_id);
  const payout = ctx.repo.anyPayout(refId);
  if (!payout || payout.next_step !== item.id) return;
  // The next step is scheduled before the change is announced, so listeners can tell whether
  // more is coming (`next_step`); a refused change drops it again.
  const { step, rest } = stepOf<TimelineStep>(item);
  scheduleNextStep(ctx, payout, item.due, rest);
  if (!transitionPayout(ctx, payout, step.status, step.bank_res_msg).ok) dropNextStep(ctx, payout);
}

/** A forced change (control API): the scripted steps still to come are dropped. */
export function forcePayoutStatus(ctx: DomainContext, payout: Payout, status: PayoutStatus, bankResMsg?: string): TransitionResult {
  const refusal = transitionRefusal(payout.status, status);
  if (refusal) return { ok: false, reason: refusal };
  dropNextStep(ctx, payout);
  ctx.repo.touch('payouts', payout.ref_id);
  return transitionPayout(ctx, payout, status, bankResMsg);
}

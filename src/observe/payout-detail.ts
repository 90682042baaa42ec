import { payoutRecord } from '../contract/records.js';
import { ledgerSum } from '../domain/ledger.js';
import { toRupees } from '../money.js';
import type { TimelineStep } from '../scenario/scenario.js';
import type { Account, DueItem, Payout, WebhookDelivery } from '../store/state.js';
import { toIso } from '../time.js';
import { kindOfAttempt } from '../webhooks/kinds.js';
import { deliveryKind } from '../webhooks/outbox.js';

/** A step still to come: when (null for one that waits for status checks, which says how many). */
export type ScheduledStep = { status: string; at: string | null; bank_res_msg: string | null; after_polls?: number; polls?: number };

/**
 * A payout's page, for the dashboard (`GET /__sandbox/payouts/{ref_id}`, which adds its
 * deliveries) and a trace alike: its record, the rule that decided it, whether it was reversed,
 * its refund, and its timeline: the statuses taken and the steps still scheduled (from its due item).
 */
export function payoutDetail(p: Payout, item: DueItem | undefined) {
  const scheduled: ScheduledStep[] = [];
  if (p.poll_step) {
    const { step, polls } = p.poll_step;
    scheduled.push({ status: step.status, at: null, bank_res_msg: step.bank_res_msg ?? null, after_polls: step.afterPolls, polls });
  }
  if (item) {
    const steps = [item.payload.step as TimelineStep, ...(item.payload.rest as TimelineStep[])];
    let at = item.due - steps[0].afterMs;
    for (const s of steps) {
      at += s.afterMs;
      scheduled.push({ status: s.status, at: toIso(at), bank_res_msg: s.bank_res_msg ?? null });
    }
  }
  // A payout that ended Failed was refunded in full (amount, fee and tax), once, when it failed.
  const failed = p.refunded ? p.history.find((h) => h.status === 'Failed') : undefined;
  return {
    merchant_id: p.merchant_id,
    rule: p.rule,
    version: p.version,
    debit_from: p.debit_from,
    initialize_fault: p.initialize_fault ?? null,
    reversed: p.status === 'Failed' && p.history.some((h) => h.status === 'Success'),
    refund: failed
      ? { amount: toRupees(p.amount), fees: toRupees(p.fees), tax: toRupees(p.tax), total: toRupees(p.amount + p.fees + p.tax), at: toIso(failed.at) }
      : null,
    transaction: payoutRecord(p),
    timeline: {
      taken: p.history.map((h) => ({ status: h.status, at: toIso(h.at), bank_res_msg: h.bank_res_msg })),
      scheduled,
    },
  };
}

/**
 * An account's ledger as the dashboard (`GET /__sandbox/accounts/{account_no}/ledger`) and a trace
 * show it: balance and ledger_sum are always the whole ledger's; `entries` may be the newest part.
 */
export function ledgerDetail(a: Account, entries: Account['ledger'] = a.ledger) {
  const sum = ledgerSum(a);
  return {
    account_no: a.account_no,
    merchant_id: a.merchant_id,
    status: a.status,
    balance: toRupees(a.balance),
    ledger_sum: toRupees(sum),
    balanced: sum === a.balance,
    entries: entries.map((e) => ({
      seq: e.seq,
      at: toIso(e.at),
      type: e.type,
      amount: toRupees(e.amount),
      balance_after: toRupees(e.balance_after),
      ref: e.ref,
      note: e.note,
    })),
  };
}

/**
 * A webhook delivery as the control API lists it (`GET /__sandbox/webhooks`) and a trace keeps it:
 * what it is (genuine, forged, stale, replay, duplicate; derived for older records without a
 * kind), each attempt's kind, and when the next attempt is due (`next`, ms; null: none).
 */
export function deliveryDetail(d: WebhookDelivery, next: number | null) {
  return {
    delivery_id: d.delivery_id,
    merchant_id: d.merchant_id,
    ref_id: d.ref_id,
    event_status: d.event_status,
    version: d.version,
    target_url: d.target_url,
    state: d.state,
    kind: deliveryKind(d),
    wrong_signature: d.wrong_signature,
    duplicate_of: d.duplicate_of,
    replay_of: d.replay_of ?? null,
    created_at: toIso(d.created_at),
    next_attempt_at: next === null ? null : toIso(next),
    attempts: d.attempts.map((a) => ({ ...a, kind: kindOfAttempt(d, a), at: toIso(a.at) })),
    body: d.body,
  };
}

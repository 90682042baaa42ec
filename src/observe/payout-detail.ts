import { ledgerSum } from '../domain/ledger.js';
import { toRupees } from '../money.js';
import type { TimelineStep } from '../scenario/scenario.js';
import type { Account, DueItem, Payout } from '../store/state.js';
import { toIso } from '../time.js';

/** A step still to come: when (null for one that waits for status checks, which says how many). */
export type ScheduledStep = { status: string; at: string | null; bank_res_msg: string | null; after_polls?: number; polls?: number };

/**
 * What a payout's page shows besides its record, for the dashboard (`GET /__sandbox/payouts/{ref_id}`)
 * and a trace alike: the steps still scheduled (from its due item), whether it was reversed, and
 * its refund.
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
    scheduled,
    reversed: p.status === 'Failed' && p.history.some((h) => h.status === 'Success'),
    refund: failed
      ? { amount: toRupees(p.amount), fees: toRupees(p.fees), tax: toRupees(p.tax), total: toRupees(p.amount + p.fees + p.tax), at: toIso(failed.at) }
      : null,
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

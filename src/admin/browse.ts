import { toRupees } from '../money.js';
import type { SandboxCore } from '../sandbox/core.js';
import type { TimelineStep } from '../scenario/scenario.js';
import type { Merchant, Payout } from '../store/state.js';
import { toIso } from '../time.js';
import { type PayoutsQuery, parse } from './inputs.js';
import { requireMerchant, requirePayout } from './refusals.js';
import * as views from './views.js';

/**
 * What the dashboard lists and opens, as control-API answers (so all of it is scriptable too):
 * merchants with their accounts and clocks, a merchant's payouts page by page (newest first,
 * filtered, each page costing the payouts it looks at, not all stored), one payout with its
 * timeline and deliveries, and the merchant's other records.
 */
export class Browse {
  constructor(private readonly sb: SandboxCore) {}

  /** A merchant's records of a kind, newest first (at most 200), each as `view` shows it. */
  private list<R extends { merchant_id: string; created_at: number }, V>(merchantId: string, all: Record<string, R>, view: (r: R, m: Merchant) => V): V[] {
    const merchant = requireMerchant(this.sb.repo, merchantId);
    return Object.values(all)
      .filter((r) => r.merchant_id === merchantId)
      .sort((a, b) => b.created_at - a.created_at)
      .slice(0, 200)
      .map((r) => view(r, merchant));
  }

  merchants() {
    const { repo, clocks } = this.sb;
    return {
      merchants: repo.allMerchants().map((m) => ({
        merchant_id: m.merchant_id,
        name: m.name,
        email: m.email,
        headers: views.credentialHeaders(m),
        webhook_secret: m.webhook_secret ?? m.api_secret,
        accounts: repo.accountsOf(m.merchant_id).map((a) => ({ account_no: a.account_no, status: a.status, balance: toRupees(a.balance) })),
        clock: views.merchantClockView(clocks, m.merchant_id),
        payouts: repo.countOf(m.merchant_id, 'payouts'),
      })),
    };
  }

  /** A page of the merchant's payouts, newest first (PayoutsQuery: filters, limit, cursor); `next` continues it (null at the end). */
  payouts(merchantId: string, query: PayoutsQuery | Record<string, unknown> = {}) {
    const filter = parse.payoutsQuery(query);
    requireMerchant(this.sb.repo, merchantId);
    const { repo } = this.sb;
    const ids = repo.payoutIdsOf(merchantId);
    const limit = Math.min(200, Math.max(1, filter.limit ?? 50));
    const page: Payout[] = [];
    let i = Math.min(ids.length, filter.cursor ?? ids.length) - 1;
    for (; i >= 0 && page.length < limit; i--) {
      const p = repo.payout(merchantId, ids[i]);
      if (!p) continue;
      if (filter.status && p.status !== filter.status) continue;
      if (filter.mode && p.payment_method !== filter.mode) continue;
      if (filter.van && p.debit_from !== filter.van) continue;
      page.push(p);
    }
    return {
      merchant_id: merchantId,
      total: ids.length,
      payouts: page.map((p) => ({ ...views.payoutView(p).transaction, debit_from: p.debit_from, rule: p.rule, version: p.version })),
      next: i >= 0 ? i + 1 : null,
    };
  }

  /** One payout: its record, the rule that decided it, its timeline (taken and still scheduled), its deliveries. */
  payout(refId: string) {
    const { repo, scheduler, webhooks } = this.sb;
    const p = requirePayout(repo, refId);
    const item = p.next_step ? scheduler.pending(p.merchant_id).find((i) => i.id === p.next_step) : undefined;
    const scheduled: Array<{ status: string; at: string | null; bank_res_msg: string | null; after_polls?: number; polls?: number }> = [];
    // A step that waits for status checks has no time: it says how many it waits for.
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
      transaction: views.payoutView(p).transaction,
      timeline: {
        taken: p.history.map((h) => ({ status: h.status, at: toIso(h.at), bank_res_msg: h.bank_res_msg })),
        scheduled,
      },
      deliveries: webhooks.list({ refId, limit: 100 }).map((d) => views.deliveryView(d, webhooks.nextAttemptAt(d))),
    };
  }

  beneficiaries(merchantId: string) {
    const { beneficiaries } = this.sb.repo.state;
    return {
      beneficiaries: this.list(merchantId, beneficiaries, (b, m) => ({
        ...views.beneficiaryView(b, m),
        activates_at: b.activates_at === null ? null : toIso(b.activates_at),
      })),
    };
  }

  verifications(merchantId: string) {
    return { verifications: this.list(merchantId, this.sb.repo.state.verifications, (v) => views.verificationView(v)) };
  }

  checkout(merchantId: string) {
    return { transactions: this.list(merchantId, this.sb.repo.state.checkout_transactions, (t, m) => views.checkoutView(t, m)) };
  }

  /** The scenario's payout rules with one amount each, grouped: what the demo picker offers. */
  demos() {
    const group = (kind: string) => (kind === 'reject' ? 'Rejections' : kind === 'fault' ? 'Faults' : 'Timelines');
    const demos = this.sb
      .scenario()
      .payouts.rules.flatMap((r) => (r.match.amount && r.match.amount.min === r.match.amount.max ? [{ rule: r, amount: r.match.amount.min }] : []))
      .map(({ rule: r, amount }) => ({ name: r.name, group: group(r.outcome.kind), description: r.description, amount: toRupees(amount) }));
    return { scenario: this.sb.scenario().name, demos };
  }
}

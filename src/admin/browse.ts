import { toRupees } from '../money.js';
import { deliveryDetail, payoutDetail } from '../observe/payout-detail.js';
import type { SandboxCore } from '../sandbox/core.js';
import type { Beneficiary, CheckoutTransaction, Merchant, Payout, Verification } from '../store/state.js';
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

  /**
   * A merchant's records of a kind, newest first (at most 200), each as `view` shows it: found
   * through the store's index of owners (what the merchant holds, not every merchant's records).
   */
  private list<R extends { merchant_id: string; created_at: number }, V>(
    merchantId: string,
    c: 'beneficiaries' | 'verifications' | 'checkout_transactions',
    view: (r: R, m: Merchant) => V,
  ): V[] {
    const merchant = requireMerchant(this.sb.repo, merchantId);
    const { repo } = this.sb;
    return repo.store.owners
      .recordsOf<R>(repo.state, merchantId, c)
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
    return {
      ...payoutDetail(p, item),
      deliveries: webhooks.list({ refId, limit: 100 }).map((d) => deliveryDetail(d, webhooks.nextAttemptAt(d))),
    };
  }

  beneficiaries(merchantId: string) {
    return {
      beneficiaries: this.list(merchantId, 'beneficiaries', (b: Beneficiary, m) => ({
        ...views.beneficiaryView(b, m),
        activates_at: b.activates_at === null ? null : toIso(b.activates_at),
      })),
    };
  }

  verifications(merchantId: string) {
    return { verifications: this.list(merchantId, 'verifications', (v: Verification) => views.verificationView(v)) };
  }

  checkout(merchantId: string) {
    return { transactions: this.list(merchantId, 'checkout_transactions', (t: CheckoutTransaction, m) => views.checkoutView(t, m)) };
  }

  /**
   * The scenario's payout rules with one amount each, grouped: what the demo picker offers, each
   * with its `outcome` as data (what `payout-sandbox trigger` names it by); and `default`: an
   * amount no rule's amount claims, and the default timeline it follows.
   */
  demos() {
    const group = (kind: string) => (kind === 'reject' ? 'Rejections' : kind === 'fault' ? 'Faults' : 'Timelines');
    const { rules, defaultPlan } = this.sb.scenario().payouts;
    const demos = rules
      .flatMap((r) => (r.match.amount && r.match.amount.min === r.match.amount.max ? [{ rule: r, amount: r.match.amount.min }] : []))
      .map(({ rule: r, amount }) => ({
        name: r.name,
        group: group(r.outcome.kind),
        description: r.description,
        amount: toRupees(amount),
        outcome: views.outcomeView(r.outcome),
        // A rule without a story of its own is told by its description.
        story: r.story ?? { title: r.description || `Amount ${toRupees(amount)}`, steps: {} },
      }));
    // 100 rupees, or the first amount after it that no rule's amount range claims.
    let free = 10_000;
    while (rules.some((r) => r.match.amount && free >= r.match.amount.min && free <= r.match.amount.max)) free += 1;
    return { scenario: this.sb.scenario().name, demos, default: { amount: toRupees(free), outcome: views.planView(defaultPlan) } };
  }
}

import { activateBeneficiary } from '../domain/beneficiaries.js';
import { createCheckoutTransaction, transitionCheckout } from '../domain/checkout.js';
import { forcePayoutStatus } from '../domain/lifecycle.js';
import { createMerchant, creditAccount, patchMerchant, setAccountStatus } from '../domain/merchants.js';
import { RequestError } from '../errors.js';
import { toPaise, toRupees } from '../money.js';
import type { AccountStatus, CheckoutStatus, PayoutStatus } from '../vocab.js';

export { SCENARIO_NAME_PATTERN } from './scenario-files.js';
import type { SandboxCore } from './core.js';
import { termsInPaise } from './terms.js';
import { TransitionRefused, type MerchantPatchInput, type NewCheckoutInput, type NewMerchantInput } from './admin-types.js';

export * from './admin-types.js';
import * as views from './views.js';
import { SandboxAdmin } from './sandbox-admin.js';
import { requireMerchant, requirePayout } from './lookups.js';
import { targetAllowed } from '../webhooks/targets.js';

/**
 * The sandbox's admin surface (with SandboxAdmin's clock, reset, scenario and snapshots), implemented once (as WireMock's Admin): the control API's routes
 * and the in-process handle of startSandbox() both call these methods, so the two cannot drift.
 * Inputs are as the control API takes them (money in rupees); answers are its JSON views.
 * Failures are RequestErrors with the control API's HTTP status.
 */
export class Admin extends SandboxAdmin {
  /** `fixtureMerchants`: how many merchants the fixtures bring (the merchant cap counts the others). */
  constructor(
    sb: SandboxCore,
    private readonly fixtureMerchants = 0,
  ) {
    super(sb);
  }

  /** A webhook URL must be one --webhook-allow lets deliveries go to. */
  private checkTarget(url: string | null | undefined): void {
    if (url && !targetAllowed(url, this.sb.config.webhookAllow)) {
      throw new RequestError(400, `The webhook url's host is not allowed (--webhook-allow ${this.sb.config.webhookAllow?.join(',')}).`);
    }
  }

  private account(no: string) {
    const a = this.sb.repo.anyAccount(no);
    if (!a) throw new RequestError(404, `No account ${no}.`);
    return a;
  }

  async createMerchant(input: NewMerchantInput) {
    const cap = this.sb.config.maxMerchants;
    if (this.sb.repo.allMerchants().length - this.fixtureMerchants >= cap) {
      throw new RequestError(409, `The sandbox keeps at most ${cap} merchants created through the control API (--max-merchants); reset, or raise the cap.`);
    }
    this.checkTarget(input.webhook_url);
    const { merchant, account } = createMerchant(this.sb, {
      ...termsInPaise(input),
      name: input.name,
      email: input.email,
      balance: input.balance === undefined ? undefined : toPaise(input.balance),
      clock: input.clock && { mode: input.clock.mode ?? this.sb.clock.mode, start: input.clock.start ? Date.parse(input.clock.start) : this.sb.clock.now() },
    });
    await this.sb.repo.persist();
    return views.merchantView(merchant, account, views.merchantClockView(this.sb.clocks, merchant.merchant_id));
  }

  async patchMerchant(email: string, patch: MerchantPatchInput) {
    const merchant = this.sb.repo.merchantByEmailAddress(email);
    if (!merchant) throw new RequestError(404, `No merchant with the email ${email}.`);
    this.checkTarget(patch.webhook_url);
    patchMerchant(this.sb, merchant, termsInPaise(patch));
    await this.sb.repo.persist();
    return views.merchantTermsView(merchant);
  }

  async credit(accountNo: string, rupees: number) {
    const a = this.account(accountNo);
    creditAccount(this.sb, a, toPaise(rupees));
    await this.sb.repo.persist();
    return { account_no: a.account_no, balance: toRupees(a.balance) };
  }

  async setAccountStatus(accountNo: string, status: AccountStatus) {
    const a = this.account(accountNo);
    setAccountStatus(this.sb, a, status);
    await this.sb.repo.persist();
    return { account_no: a.account_no, status: a.status, balance: toRupees(a.balance) };
  }

  ledger(accountNo: string) {
    return views.ledgerView(this.account(accountNo));
  }

  async forcePayoutStatus(refId: string, status: PayoutStatus, bankResMsg?: string) {
    const payout = requirePayout(this.sb.repo, refId);
    const from = payout.status;
    const result = forcePayoutStatus(this.sb, payout, status, bankResMsg);
    if (!result.ok) throw new TransitionRefused({ id: refId, from, to: status, reason: result.reason });
    await this.commit();
    return views.payoutView(payout);
  }

  async activateBeneficiary(id: string) {
    const b = this.sb.repo.anyBeneficiary(id);
    if (!b) throw new RequestError(404, `No beneficiary ${id}.`);
    activateBeneficiary(this.sb, b);
    await this.sb.repo.persist();
    return views.beneficiaryView(b, this.sb.repo.merchant(b.merchant_id));
  }

  async createCheckout(input: NewCheckoutInput) {
    const merchant = requireMerchant(this.sb.repo, input.merchant_id);
    const { transaction, rule } = createCheckoutTransaction(this.sb, merchant, { ...input, amount: toPaise(input.amount) });
    await this.sb.repo.persist();
    return { transaction: views.checkoutView(transaction, merchant), rule };
  }

  async setCheckoutStatus(id: string, status: CheckoutStatus) {
    const t = this.sb.repo.anyCheckoutTransaction(id);
    if (!t) throw new RequestError(404, `No checkout transaction ${id}.`);
    const from = t.status;
    const refusal = transitionCheckout(this.sb, t, status);
    if (refusal) throw new TransitionRefused({ id, from, to: status, reason: refusal });
    await this.sb.repo.persist();
    return views.checkoutView(t, this.sb.repo.merchant(t.merchant_id));
  }

  deliveries(filter: { refId?: string; merchantId?: string; limit?: number } = {}) {
    const limit = Math.min(1000, Math.max(1, filter.limit ?? 100));
    const list = this.sb.webhooks.list({ ...filter, limit });
    return { deliveries: list.map((d) => views.deliveryView(d, this.sb.webhooks.nextAttemptAt(d))) };
  }

  async redeliver(deliveryId: string) {
    const d = this.sb.webhooks.redeliver(deliveryId);
    if (!d) throw new RequestError(404, `No webhook delivery ${deliveryId}.`);
    await this.commit();
    return views.deliveryView(d, this.sb.webhooks.nextAttemptAt(d));
  }

  /** Until no webhook attempt is under way and nothing is overdue (at most 20 rounds): for a test that must see every delivery an advance started. */
  async settleWebhooks() {
    const { webhooks, scheduler } = this.sb;
    let rounds = 0;
    for (; rounds < 20; rounds++) {
      await webhooks.idle();
      const before = scheduler.pending().length;
      await scheduler.runDue();
      if (webhooks.inFlightCount === 0 && scheduler.pending().length === before) break;
    }
    return { in_flight: webhooks.inFlightCount, rounds: rounds + 1, clock: this.clock() };
  }

  retention() {
    return { max_deliveries_per_merchant: this.sb.webhooks.retention };
  }

  /** Changes how many finished webhook deliveries each merchant keeps (the oldest go first). */
  async setRetention(maxPerMerchant: number) {
    this.sb.webhooks.setRetention(maxPerMerchant);
    await this.sb.repo.persist();
    return this.retention();
  }

  /** Behaviour coverage: one merchant's (404 for an unknown one), or every merchant's added up. */
  coverage(merchantId: string | null = null) {
    if (merchantId !== null) requireMerchant(this.sb.repo, merchantId);
    return this.sb.coverage.report(merchantId);
  }

  requests(limit = 100) {
    return { requests: this.sb.journal.list(Math.min(this.sb.journal.capacity, Math.max(1, limit))) };
  }

  request(id: string) {
    const entry = this.sb.journal.get(id);
    if (!entry && !this.sb.journal.enabled) throw new RequestError(404, 'The request journal is off (--journal-size 0).');
    if (!entry) throw new RequestError(404, `No request ${id} in the journal (it keeps the last ${this.sb.journal.capacity}).`);
    return entry;
  }


}

import { dirname, resolve } from 'node:path';
import { activateBeneficiary } from '../domain/beneficiaries.js';
import { createCheckoutTransaction, transitionCheckout } from '../domain/checkout.js';
import { forcePayoutStatus } from '../domain/lifecycle.js';
import { addAccount, createMerchant, creditAccount, patchMerchant, setAccountStatus } from '../domain/merchants.js';
import { durationMs } from '../duration.js';
import { RequestError } from '../errors.js';
import { toPaise, toRupees } from '../money.js';
import type { CoverageGroup } from '../observe/catalogue.js';
import { deliveryDetail } from '../observe/payout-detail.js';
import type { Page } from '../observe/review/report.js';
import { own } from '../own.js';
import type { SandboxCore } from '../sandbox/core.js';
import { scenarioFile } from '../sandbox/scenario-files.js';
import { termsInPaise } from '../sandbox/terms.js';
import { loadScenario, resolveScenario, ScenarioError } from '../scenario/scenario.js';
import { v8FlagsSet } from '../v8-tuning.js';
import { VERSION } from '../version.js';
import { seenIdOf } from '../webhooks/kinds.js';
import { Browse } from './browse.js';
import { FailureAdmin } from './failure-admin.js';
import { bodyOf, type DeliveriesQuery, parse, type RequestsQuery } from './inputs.js';
import { ListenAdmin } from './listen-admin.js';
import { MerchantAdmin } from './merchant-admin.js';
import { refuseUnfitTarget, requireMerchant, requireMerchantByIdOrEmail, requirePayout, TransitionRefused } from './refusals.js';
import { Snapshots } from './snapshots.js';
import { TraceAdmin } from './trace-admin.js';
import * as views from './views.js';
import { WebhookAdmin } from './webhook-admin.js';

export type { MerchantPatchInput, NewCheckoutInput, NewMerchantInput, ScenarioChoice } from './inputs.js';
export { TransitionRefused } from './refusals.js';

/**
 * The sandbox's admin surface, implemented once (as WireMock's Admin): the control API's routes
 * and the in-process handle of startSandbox() both call these methods, so the two cannot drift.
 * Each method parses its own input with the control API's schema (admin/inputs.ts): the HTTP
 * routes pass the request body through, and an in-process call with bad input is refused with
 * the message HTTP gives, changing nothing. Where the control API takes a body, a method also
 * takes the plain value (`credit(van, 500)` as `{ amount: 500 }`). Money in rupees; answers are
 * the control API's JSON views; failures are RequestErrors with its HTTP status.
 */
export class Admin {
  private readonly snaps: Snapshots;
  /** One merchant's world on its own: its clock, snapshots and reset. */
  readonly merchants: MerchantAdmin;
  /** What the dashboard lists and opens. */
  readonly browse: Browse;
  /** Each merchant's webhook endpoint: secret rotation, state, replay, probe. */
  readonly webhooks: WebhookAdmin;
  /** Failure on purpose: a merchant's seeded chaos, bank outages. */
  readonly failures: FailureAdmin;
  /** `payout-sandbox listen` attached as merchants' webhook receivers. */
  readonly listen: ListenAdmin;
  /** A merchant's trace: one self-contained JSON document, or HAR (stateless: made on each use). */
  get traces(): TraceAdmin {
    return new TraceAdmin(this.sb);
  }

  /** `fixtureMerchants`: how many merchants the fixtures bring (the merchant cap counts the others). */
  constructor(
    private readonly sb: SandboxCore,
    private readonly fixtureMerchants = 0,
  ) {
    this.snaps = new Snapshots(sb);
    this.merchants = new MerchantAdmin(sb, this.snaps);
    this.browse = new Browse(sb);
    this.webhooks = new WebhookAdmin(sb);
    this.failures = new FailureAdmin(sb);
    this.listen = new ListenAdmin(sb);
  }

  /** Writes the change, then lets anything now due (a webhook of a forced change) go out. */
  private async commit(): Promise<void> {
    await this.sb.repo.persist();
    this.sb.scheduler.runDue().catch((err: unknown) => this.sb.logger.error({ err }, 'running due items failed'));
  }

  private account(no: string) {
    const a = this.sb.repo.anyAccount(no);
    if (!a) throw new RequestError(404, `No account ${no}.`);
    return a;
  }

  // The sandbox as a whole.

  /** `pid`: the process serving, so `payout-sandbox wait --pid` tells the sandbox it started from another on the same port. */
  health() {
    return { ok: true, version: VERSION, pid: process.pid, v8_flags: v8FlagsSet() };
  }

  clock() {
    return views.clockView(this.sb.clock);
  }

  /** Manual clock: moves time on by a duration (`'24h'`, `{ by: '24h' }`) or milliseconds, firing everything due in order. */
  async advance(by: string | number | { by: string }) {
    const ms = typeof by === 'number' ? durationMs(by) : durationMs(parse.advance(bodyOf(by, 'by')).by);
    if (this.sb.clock.mode !== 'manual') throw new RequestError(409, 'The clock is real: start the sandbox with --clock manual to advance it.');
    await this.sb.scheduler.advance(ms);
    this.sb.changes.note('clock');
    return this.clock();
  }

  /** Manual clock: moves time on to the next scheduled event of the merchants that follow it (409 when none is due). */
  async next() {
    const due = this.sb.scheduler.nextDue(null);
    if (due === null) throw new RequestError(409, 'Nothing is scheduled on the sandbox clock.');
    return this.advance(Math.max(0, due - this.sb.clock.now()));
  }

  /** Back to the fixtures and the configured scenario; snapshots and the journal are cleared. */
  async reset() {
    this.snaps.clear();
    await this.sb.resetState();
    this.sb.journal.clear();
    return { ok: true, clock: this.clock(), scenario: this.sb.scenario().name };
  }

  /** Puts a scenario in force: a file of scenarios/ by name, or one given whole. */
  async useScenario(choice: unknown) {
    const { name, scenario } = parse.scenario(choice);
    if ((name === undefined) === (scenario === undefined)) {
      throw new RequestError(400, 'Give either name (a file in scenarios/) or scenario (the scenario itself).');
    }
    try {
      const configured = this.sb.config.scenario;
      const within = typeof configured === 'string' ? dirname(resolve(configured)) : null;
      this.sb.setScenario(name !== undefined ? await loadScenario(scenarioFile(name)) : await resolveScenario(scenario, 'inline', { within }));
    } catch (err) {
      if (err instanceof ScenarioError) throw new RequestError(400, err.message);
      throw err;
    }
    return { name: this.sb.scenario().name, source: this.sb.scenario().source };
  }

  snapshots() {
    return this.snaps.list();
  }

  /** Saves the whole state, the clock and the scenario in force under `name` (in memory). */
  snapshot(name: string | { name: string }) {
    return this.snaps.save(parse.snapshot(bodyOf(name, 'name')).name);
  }

  async restore(name: string) {
    this.snaps.restore(name);
    await this.sb.repo.persist();
    return { name, clock: this.clock() };
  }

  // Merchants and their accounts.

  async createMerchant(input: unknown = {}) {
    const body = parse.merchant(input);
    const cap = this.sb.config.maxMerchants;
    const full = () => {
      if (this.sb.repo.merchantCount() - this.fixtureMerchants >= cap)
        throw new RequestError(409, `The sandbox keeps at most ${cap} merchants created through the control API (--max-merchants); reset, or raise the cap.`);
    };
    full();
    if (body.webhook_url) await refuseUnfitTarget(this.sb, body.webhook_url, 'webhook url');
    // Again after the wait: creations that came meanwhile may have filled it.
    full();
    const { merchant, account } = createMerchant(this.sb, {
      ...termsInPaise(body),
      name: body.name,
      email: body.email,
      balance: body.balance === undefined ? undefined : toPaise(body.balance),
      clock: body.clock && { mode: body.clock.mode ?? this.sb.clock.mode, start: body.clock.start ? Date.parse(body.clock.start) : this.sb.clock.now() },
    });
    await this.sb.repo.persist();
    return views.merchantView(merchant, account, views.merchantClockView(this.sb.clocks, merchant.merchant_id));
  }

  /** Changes a merchant, named by its merchant id (or, as the control API first took it, its e-mail). */
  async patchMerchant(merchant: string, patch: unknown) {
    const body = parse.patchMerchant(patch);
    const m = requireMerchantByIdOrEmail(this.sb.repo, merchant);
    if (body.webhook_url) await refuseUnfitTarget(this.sb, body.webhook_url, 'webhook url');
    patchMerchant(this.sb, m, termsInPaise(body));
    await this.sb.repo.persist();
    return views.merchantTermsView(m);
  }

  /** Another VAN of the merchant (funded, ACTIVE unless said): a merchant's reset brings back the VANs it was made with. */
  async addAccount(merchantId: string, input: unknown = {}) {
    const body = parse.addAccount(input ?? {});
    const m = requireMerchant(this.sb.repo, merchantId);
    const a = addAccount(this.sb, m, toPaise(body.balance ?? 1_000_000), body.status ?? 'ACTIVE');
    await this.sb.repo.persist();
    return { merchant_id: merchantId, account_no: a.account_no, status: a.status, balance: toRupees(a.balance) };
  }

  async credit(accountNo: string, amount: number | { amount: number }) {
    const { amount: rupees } = parse.credit(bodyOf(amount, 'amount'));
    const a = this.account(accountNo);
    creditAccount(this.sb, a, toPaise(rupees));
    await this.sb.repo.persist();
    return { account_no: a.account_no, balance: toRupees(a.balance) };
  }

  async setAccountStatus(accountNo: string, status: string | { status: string }) {
    const body = parse.accountStatus(bodyOf(status, 'status'));
    const a = this.account(accountNo);
    setAccountStatus(this.sb, a, body.status);
    await this.sb.repo.persist();
    return { account_no: a.account_no, status: a.status, balance: toRupees(a.balance) };
  }

  ledger(accountNo: string) {
    return views.ledgerView(this.account(accountNo));
  }

  // Forced changes of records.

  async forcePayoutStatus(refId: string, status: string | { status: string; bank_res_msg?: string }, bankResMsg?: string) {
    const body = parse.payoutStatus(typeof status === 'object' ? status : { status, bank_res_msg: bankResMsg });
    const payout = requirePayout(this.sb.repo, refId);
    const from = payout.status;
    const result = forcePayoutStatus(this.sb, payout, body.status, body.bank_res_msg);
    if (!result.ok) throw new TransitionRefused({ id: refId, from, to: body.status, reason: result.reason });
    await this.commit();
    return views.payoutView(payout);
  }

  async activateBeneficiary(id: string, body: unknown = { status: 'Active' }) {
    parse.beneficiaryStatus(body);
    const b = this.sb.repo.anyBeneficiary(id);
    if (!b) throw new RequestError(404, `No beneficiary ${id}.`);
    activateBeneficiary(this.sb, b);
    await this.sb.repo.persist();
    return views.beneficiaryView(b, this.sb.repo.merchant(b.merchant_id));
  }

  async createCheckout(input: unknown) {
    const body = parse.checkout(input);
    const merchant = requireMerchant(this.sb.repo, body.merchant_id);
    const { transaction, rule } = createCheckoutTransaction(this.sb, merchant, { ...body, amount: toPaise(body.amount) });
    await this.sb.repo.persist();
    return { transaction: views.checkoutView(transaction, merchant), rule };
  }

  async setCheckoutStatus(id: string, status: string | { status: string }) {
    const body = parse.checkoutStatus(bodyOf(status, 'status'));
    const t = this.sb.repo.anyCheckoutTransaction(id);
    if (!t) throw new RequestError(404, `No checkout transaction ${id}.`);
    const from = t.status;
    const refusal = transitionCheckout(this.sb, t, body.status);
    if (refusal) throw new TransitionRefused({ id, from, to: body.status, reason: refusal });
    await this.sb.repo.persist();
    return views.checkoutView(t, this.sb.repo.merchant(t.merchant_id));
  }

  // Webhooks.

  deliveries(query: DeliveriesQuery | Record<string, unknown> = {}) {
    const q = parse.deliveriesQuery(query);
    const seen = q.delivery_id === undefined ? undefined : own(this.sb.repo.state.webhook_deliveries, q.delivery_id);
    if (q.delivery_id !== undefined && !seen) return { deliveries: [] };
    const list = this.sb.webhooks
      .list({ refId: seen?.ref_id ?? q.ref_id, merchantId: q.merchant_id, limit: seen ? Number.MAX_SAFE_INTEGER : (q.limit ?? 100) })
      .filter((d) => seen === undefined || seenIdOf(d) === seenIdOf(seen))
      .slice(0, q.limit ?? 100);
    return { deliveries: list.map((d) => deliveryDetail(d, this.sb.webhooks.nextAttemptAt(d))) };
  }

  async redeliver(deliveryId: string) {
    const d = this.sb.webhooks.redeliver(deliveryId);
    if (!d) throw new RequestError(404, `No webhook delivery ${deliveryId}.`);
    await this.commit();
    return deliveryDetail(d, this.sb.webhooks.nextAttemptAt(d));
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
  async setRetention(max: number | { max_deliveries_per_merchant: number }) {
    this.sb.webhooks.setRetention(parse.retention(bodyOf(max, 'max_deliveries_per_merchant')).max_deliveries_per_merchant);
    await this.sb.repo.persist();
    return this.retention();
  }

  // What was observed.

  /** Behaviour coverage: one merchant's (404 for an unknown one), or every merchant's added up. */
  coverage(merchantId: string | null = null, ignore: CoverageGroup[] = []) {
    if (merchantId !== null) requireMerchant(this.sb.repo, merchantId);
    return this.sb.coverage.report(merchantId, ignore);
  }

  /** The integration review: one merchant's (404 for an unknown one), or every merchant's findings together. */
  review(merchantId: string | null = null, page?: Page) {
    if (merchantId !== null) requireMerchant(this.sb.repo, merchantId);
    return this.sb.review.report(merchantId, page);
  }

  /** The request journal, newest first (see RequestsQuery); a number is the limit. */
  requests(query: number | RequestsQuery | Record<string, unknown> = {}) {
    const q = parse.requestsQuery(typeof query === 'number' ? { limit: query } : query);
    if (q.merchant_id !== undefined) requireMerchant(this.sb.repo, q.merchant_id);
    const requests = this.sb.journal.list({
      limit: Math.min(this.sb.journal.capacity, q.limit ?? 100),
      merchantId: q.merchant_id,
      refused: q.refused === 'true',
      control: q.include === 'control',
    });
    return { requests };
  }

  request(id: string) {
    const entry = this.sb.journal.get(id);
    if (!entry && !this.sb.journal.enabled) throw new RequestError(404, 'The request journal is off (--journal-size 0).');
    if (!entry) throw new RequestError(404, `No request ${id} in the journal (it keeps the last ${this.sb.journal.capacity}).`);
    return entry;
  }
}

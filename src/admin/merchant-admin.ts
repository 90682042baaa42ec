import { durationMs } from '../duration.js';
import { RequestError } from '../errors.js';
import type { SandboxCore } from '../sandbox/core.js';
import { bodyOf, parse } from './inputs.js';
import { requireMerchant } from './refusals.js';
import type { Snapshots } from './snapshots.js';
import { merchantClockView } from './views.js';

/**
 * One merchant's world, on its own (Stripe's test clocks are the model): its clock, its
 * snapshots, its reset. Nothing here touches another merchant's records or time.
 */
export class MerchantAdmin {
  constructor(
    private readonly sb: SandboxCore,
    private readonly snaps: Snapshots,
  ) {}

  private require(merchantId: string): void {
    requireMerchant(this.sb.repo, merchantId);
  }

  clock(merchantId: string) {
    this.require(merchantId);
    return merchantClockView(this.sb.clocks, merchantId);
  }

  /**
   * Moves only this merchant's (manual) clock forward, running its due items in time order. A
   * merchant that follows the sandbox clock gets a manual clock of its own first, at the sandbox
   * time, and from then on no longer moves with the sandbox clock.
   */
  async advance(merchantId: string, by: string | number | { by: string }) {
    const ms = typeof by === 'number' ? durationMs(by) : durationMs(parse.advance(bodyOf(by, 'by')).by);
    this.require(merchantId);
    const { clocks, scheduler } = this.sb;
    if (!clocks.hasOwn(merchantId)) {
      if (clocks.sandbox.mode !== 'manual')
        throw new RequestError(
          409,
          'This merchant follows the sandbox clock, which is real: create a merchant with clock: { "mode": "manual" } to advance it on its own.',
        );
      clocks.attach(merchantId, 'manual', clocks.sandbox.now());
      scheduler.relane(merchantId);
    }
    if (clocks.of(merchantId).mode !== 'manual') throw new RequestError(409, "This merchant's clock is real: only a manual clock can be advanced.");
    await scheduler.advance(ms, merchantId);
    this.sb.changes.note('clock');
    return this.clock(merchantId);
  }

  /** Moves this merchant's clock on to its next scheduled event (409 when none is due). */
  async next(merchantId: string) {
    this.require(merchantId);
    const due = this.sb.scheduler.nextDue(merchantId);
    if (due === null) throw new RequestError(409, `Nothing is scheduled for merchant ${merchantId}.`);
    return this.advance(merchantId, Math.max(0, due - this.sb.clocks.now(merchantId)));
  }

  snapshots(merchantId: string) {
    this.require(merchantId);
    return this.snaps.listOf(merchantId);
  }

  snapshot(merchantId: string, name: string | { name: string }) {
    const body = parse.snapshot(bodyOf(name, 'name'));
    this.require(merchantId);
    return this.snaps.saveMerchant(merchantId, body.name);
  }

  async restore(merchantId: string, name: string) {
    this.require(merchantId);
    this.snaps.restoreMerchant(merchantId, name);
    await this.commit();
    return { merchant_id: merchantId, name, clock: this.clock(merchantId) };
  }

  /**
   * Back to how the merchant was made (its fixture records, or its creation through the control
   * API: same credentials, opening balance, clock at its start), its counters cleared; its
   * snapshots are kept.
   */
  async reset(merchantId: string) {
    this.require(merchantId);
    const origin = this.sb.repo.state.origins?.[merchantId];
    if (!origin) throw new RequestError(409, `Merchant ${merchantId} was made by a version that kept no record of its start; reset the whole sandbox instead.`);
    this.sb.replaceMerchant(origin);
    await this.commit();
    return { ok: true, merchant_id: merchantId, clock: this.clock(merchantId) };
  }

  /** Writes the change, then runs what is due on the merchant's clock now (a restored item already due). */
  private async commit(): Promise<void> {
    await this.sb.repo.persist();
    await this.sb.scheduler.runDue();
  }
}

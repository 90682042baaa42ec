import { Clock, type ClockMode } from '../clock.js';
import type { MerchantClock, State } from '../store/state.js';
import type { Store } from '../store/store.js';

/** The scheduler lane (and clock) of everything that follows the sandbox clock. */
export const SANDBOX_LANE = '';

/**
 * Every clock of the sandbox: the sandbox clock, and the clocks merchants have of their own
 * (kept in the state, so a restart, a snapshot and a reset bring them back). A merchant without
 * one follows the sandbox clock. Everything a merchant sees is stamped with `of(merchantId)`.
 */
export class Clocks {
  private readonly own = new Map<string, Clock>();

  constructor(
    readonly sandbox: Clock,
    private readonly store: Store,
  ) {
    this.reload();
  }

  private state(): State {
    return this.store.state;
  }

  /**
   * Rebuilds the merchants' clocks from the state (at open, and after the state was replaced), or
   * only one merchant's (after its records were): every other clock is left as it runs.
   */
  reload(merchantId?: string): void {
    const records = this.state().merchant_clocks ?? {};
    if (merchantId !== undefined) {
      const c = records[merchantId];
      if (c) this.own.set(merchantId, clockOf(c));
      else this.own.delete(merchantId);
      return;
    }
    this.own.clear();
    for (const [id, c] of Object.entries(records)) this.own.set(id, clockOf(c));
  }

  /** The clock that governs a merchant's records: its own, or the sandbox clock. */
  of(merchantId: string | null | undefined): Clock {
    return (merchantId && this.own.get(merchantId)) || this.sandbox;
  }

  now(merchantId: string | null | undefined): number {
    return this.of(merchantId).now();
  }

  hasOwn(merchantId: string): boolean {
    return this.own.has(merchantId);
  }

  /** The scheduler lane of a merchant's due items: its id when it has a clock of its own. */
  laneOf(merchantId: string | null | undefined): string {
    return merchantId && this.own.has(merchantId) ? merchantId : SANDBOX_LANE;
  }

  /** Gives a merchant a clock of its own, starting at `start` (its sandbox time now). */
  attach(merchantId: string, mode: ClockMode, start: number): Clock {
    const record: MerchantClock = { mode, speed: mode === 'manual' ? 0 : this.sandbox.speed, start, real_anchor: Date.now() };
    (this.state().merchant_clocks ??= {})[merchantId] = record;
    this.store.changed('merchant_clocks', merchantId);
    const clock = clockOf(record);
    this.own.set(merchantId, clock);
    return clock;
  }

  /** Records where a merchant's manual clock stands (after an advance), so a restart continues there. */
  record(merchantId: string): void {
    const clock = this.own.get(merchantId);
    const record = this.state().merchant_clocks?.[merchantId];
    if (!clock || !record || clock.mode !== 'manual') return;
    record.start = clock.now();
    this.store.changed('merchant_clocks', merchantId);
  }
}

function clockOf(c: MerchantClock): Clock {
  return new Clock({ mode: c.mode, speed: c.speed, start: c.start, realAnchor: c.real_anchor });
}

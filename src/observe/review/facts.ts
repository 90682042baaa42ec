export type { ReviewFact as Fact } from '../../store/state.js';

import type { ReviewFact as Fact } from '../../store/state.js';

/** Facts kept per merchant: past it, the oldest go (a finding whose evidence went goes with it). */
export const FACTS_PER_MERCHANT = 5_000;

/**
 * The facts of every merchant, in order, with each merchant's ids in order beside them (rebuilt
 * from the stored facts at open and after a restore), and the bound kept as facts come.
 */
export class FactIndex {
  private readonly byMerchant = new Map<string, string[]>();

  rebuild(all: Record<string, Fact>): void {
    this.byMerchant.clear();
    const sorted = Object.values(all).sort((a, b) => a.seq - b.seq);
    for (const f of sorted) this.add(f);
  }

  add(f: Fact): void {
    let ids = this.byMerchant.get(f.merchant_id);
    if (!ids) this.byMerchant.set(f.merchant_id, (ids = []));
    ids.push(f.id);
  }

  /** The oldest facts of a merchant past the bound (to remove). */
  overflow(merchantId: string, bound = FACTS_PER_MERCHANT): string[] {
    const ids = this.byMerchant.get(merchantId);
    if (!ids || ids.length <= bound) return [];
    return ids.splice(0, ids.length - bound);
  }

  /** A merchant's facts, oldest first. */
  of(merchantId: string, all: Record<string, Fact>): Fact[] {
    return (this.byMerchant.get(merchantId) ?? []).map((id) => all[id]).filter((f): f is Fact => f !== undefined);
  }

  merchants(): string[] {
    return [...this.byMerchant.keys()];
  }
}

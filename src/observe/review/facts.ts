export type { ReviewFact as Fact } from '../../store/state.js';

import type { ReviewFact as Fact } from '../../store/state.js';

/** Facts kept per merchant: past it, the oldest go (a finding whose evidence went goes with it). */
export const FACTS_PER_MERCHANT = 5_000;

/**
 * The facts of every merchant, in order, with each merchant's ids in order beside them (rebuilt
 * from the stored facts at open and after a restore), and the bound kept as facts come.
 */
export class FactIndex {
  /** Each merchant's ids, oldest first from `head` on: the ones before it are gone (cut away in one go once they are half). */
  private readonly byMerchant = new Map<string, { ids: string[]; head: number }>();

  rebuild(all: Record<string, Fact>): void {
    this.byMerchant.clear();
    const sorted = Object.values(all).sort((a, b) => a.seq - b.seq);
    for (const f of sorted) this.add(f);
  }

  add(f: Fact): void {
    let list = this.byMerchant.get(f.merchant_id);
    if (!list) this.byMerchant.set(f.merchant_id, (list = { ids: [], head: 0 }));
    list.ids.push(f.id);
  }

  /** The oldest facts of a merchant past the bound (to remove): amortized constant time, not a shift of the whole list per fact. */
  overflow(merchantId: string, bound = FACTS_PER_MERCHANT): string[] {
    const list = this.byMerchant.get(merchantId);
    if (!list || list.ids.length - list.head <= bound) return [];
    const from = list.head;
    list.head = list.ids.length - bound;
    const gone = list.ids.slice(from, list.head);
    if (list.head > bound) {
      list.ids = list.ids.slice(list.head);
      list.head = 0;
    }
    return gone;
  }

  /** A merchant's facts, oldest first. */
  of(merchantId: string, all: Record<string, Fact>): Fact[] {
    const list = this.byMerchant.get(merchantId);
    if (!list) return [];
    const out: Fact[] = [];
    for (let i = list.head; i < list.ids.length; i++) {
      const f = all[list.ids[i] as string];
      if (f !== undefined) out.push(f);
    }
    return out;
  }

  merchants(): string[] {
    return [...this.byMerchant.keys()];
  }
}

import type { Payout, State } from './state.js';

/**
 * Each merchant's payouts in the order they were made (for lists, newest first). Built on first
 * use from the state (sorted by creation time), then kept by every insert; dropped whenever the
 * state's records are replaced, to be built again when next asked for.
 */
export class PayoutOrder {
  private byMerchant: Map<string, string[]> | null = null;

  clear(): void {
    this.byMerchant = null;
  }

  add(p: Payout): void {
    if (!this.byMerchant) return;
    const ids = this.byMerchant.get(p.merchant_id);
    if (ids) ids.push(p.ref_id);
    else this.byMerchant.set(p.merchant_id, [p.ref_id]);
  }

  /** The merchant's payout ids, oldest first (do not change the array). */
  of(state: State, merchantId: string): readonly string[] {
    if (!this.byMerchant) this.byMerchant = build(state);
    return this.byMerchant.get(merchantId) ?? [];
  }
}

function build(state: State): Map<string, string[]> {
  const byMerchant = new Map<string, Payout[]>();
  for (const p of Object.values(state.payouts)) {
    const list = byMerchant.get(p.merchant_id);
    if (list) list.push(p);
    else byMerchant.set(p.merchant_id, [p]);
  }
  return new Map(
    [...byMerchant].map(([m, list]) => [m, list.sort((a, b) => a.created_at - b.created_at || a.history.length - b.history.length).map((p) => p.ref_id)]),
  );
}

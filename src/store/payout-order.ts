import type { Payout, State } from './state.js';

/**
 * Each merchant's payouts in the order they were made (for lists, newest first): built from the
 * state whenever its records are (re)read, sorted by creation time, then kept in order by every
 * insert.
 */
export class PayoutOrder {
  private byMerchant = new Map<string, string[]>();

  rebuild(state: State): void {
    this.byMerchant = build(state);
  }

  /** One merchant's payouts in place of those it had (its reset, a restore), in the order they were made. */
  set(merchantId: string, payouts: Payout[]): void {
    if (payouts.length === 0) this.byMerchant.delete(merchantId);
    else this.byMerchant.set(merchantId, ordered(payouts));
  }

  forget(merchantId: string): void {
    this.byMerchant.delete(merchantId);
  }

  add(p: Payout): void {
    const ids = this.byMerchant.get(p.merchant_id);
    if (ids) ids.push(p.ref_id);
    else this.byMerchant.set(p.merchant_id, [p.ref_id]);
  }

  /** The merchant's payout ids, oldest first (do not change the array). */
  of(merchantId: string): readonly string[] {
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
  return new Map([...byMerchant].map(([m, list]) => [m, ordered(list)]));
}

/** Payout ids in the order the payouts were made. */
function ordered(list: Payout[]): string[] {
  return list.sort((a, b) => a.created_at - b.created_at).map((p) => p.ref_id);
}

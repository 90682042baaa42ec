import type { WebhookDelivery } from '../store/state.js';

export interface DeliveryFilter {
  merchantId?: string;
  refId?: string;
  limit?: number;
}

/** A merchant's deliveries for retention: how many it has, and its finished ones in the order they finished. */
interface Kept {
  total: number;
  finished: string[];
  /** Where `finished` starts (ids before it were dealt with). */
  head: number;
}

const isFinished = (d: WebhookDelivery) => d.state === 'delivered' || d.state === 'failed';

/**
 * The outbox's indexes: deliveries by payout, and per merchant what retention needs, so that
 * keeping a merchant within its cap costs the deliveries dropped, never a scan of those kept.
 */
export class DeliveryIndex {
  private readonly byRef = new Map<string, string[]>();
  private readonly kept = new Map<string, Kept>();

  rebuild(deliveries: WebhookDelivery[]): void {
    this.byRef.clear();
    this.kept.clear();
    this.include(deliveries);
  }

  /** Deliveries as they are stored (at a rebuild, or one merchant's put back: its reset, a restore). */
  include(deliveries: WebhookDelivery[]): void {
    for (const d of deliveries) {
      this.add(d);
      if (isFinished(d)) this.finished(d);
    }
  }

  /** One merchant's deliveries out, before they are replaced (its reset, a restore); `include` puts the new ones in. */
  forgetMerchant(merchantId: string, deliveries: WebhookDelivery[]): void {
    for (const d of deliveries) {
      const refs = this.byRef.get(d.ref_id);
      if (!refs) continue;
      const i = refs.indexOf(d.delivery_id);
      if (i !== -1) refs.splice(i, 1);
      if (refs.length === 0) this.byRef.delete(d.ref_id);
    }
    this.kept.delete(merchantId);
  }

  add(d: WebhookDelivery): void {
    push(this.byRef, d.ref_id, d.delivery_id);
    this.keptOf(d.merchant_id).total += 1;
  }

  /** A delivery reached delivered or failed: it may go, once older finished ones have. */
  finished(d: WebhookDelivery): void {
    this.keptOf(d.merchant_id).finished.push(d.delivery_id);
  }

  private keptOf(merchantId: string): Kept {
    let k = this.kept.get(merchantId);
    if (!k) this.kept.set(merchantId, (k = { total: 0, finished: [], head: 0 }));
    return k;
  }

  /**
   * Deliveries newest first, of one merchant or all, optionally of one payout. `merchants`: the
   * deliveries of the merchant the filter names, when the caller has them (the outbox, through the
   * store's index of owners), so that not every merchant's are read.
   */
  list(deliveries: Record<string, WebhookDelivery>, filter: DeliveryFilter, merchants?: WebhookDelivery[]): WebhookDelivery[] {
    const pool = filter.refId !== undefined ? this.ofPayout(filter.refId).map((id) => deliveries[id]) : (merchants ?? Object.values(deliveries));
    return pool
      .filter((d) => filter.merchantId === undefined || d.merchant_id === filter.merchantId)
      .sort((a, b) => b.created_at - a.created_at || b.delivery_id.localeCompare(a.delivery_id))
      .slice(0, filter.limit ?? 100);
  }

  /** A payout's delivery ids, oldest first. */
  ofPayout(refId: string): string[] {
    return this.byRef.get(refId) ?? [];
  }

  /** While a merchant has more than `max` deliveries, the ones that finished first (delivered or failed) are dropped (by `remove`). */
  retain(deliveries: Record<string, WebhookDelivery>, merchantId: string, max: number, remove: (id: string) => void): void {
    const k = this.keptOf(merchantId);
    while (k.total > max && k.head < k.finished.length) {
      const d = deliveries[k.finished[k.head]];
      k.head += 1;
      // Gone already, or sent again since (it comes back here when it finishes again).
      if (!d || !isFinished(d)) continue;
      remove(d.delivery_id);
      k.total -= 1;
      const refs = this.byRef.get(d.ref_id);
      if (refs) refs.splice(refs.indexOf(d.delivery_id), 1);
    }
    if (k.head > 1024 && k.head * 2 > k.finished.length) {
      k.finished = k.finished.slice(k.head);
      k.head = 0;
    }
  }
}

function push(map: Map<string, string[]>, key: string, id: string): void {
  const ids = map.get(key);
  if (ids) ids.push(id);
  else map.set(key, [id]);
}

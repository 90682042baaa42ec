import type { WebhookDelivery } from '../store/state.js';

export interface DeliveryFilter {
  merchantId?: string;
  refId?: string;
  limit?: number;
}

/** The outbox's indexes: deliveries by payout and by merchant (oldest first), and retention. */
export class DeliveryIndex {
  private readonly byRef = new Map<string, string[]>();
  private readonly byMerchant = new Map<string, string[]>();

  rebuild(deliveries: Record<string, WebhookDelivery>): void {
    this.byRef.clear();
    this.byMerchant.clear();
    for (const d of Object.values(deliveries)) this.add(d);
  }

  add(d: WebhookDelivery): void {
    push(this.byRef, d.ref_id, d.delivery_id);
    push(this.byMerchant, d.merchant_id, d.delivery_id);
  }

  /** Deliveries newest first, of one merchant or all, optionally of one payout. */
  list(deliveries: Record<string, WebhookDelivery>, filter: DeliveryFilter): WebhookDelivery[] {
    const pool = filter.refId !== undefined ? this.ofPayout(filter.refId).map((id) => deliveries[id]) : Object.values(deliveries);
    return pool
      .filter((d) => filter.merchantId === undefined || d.merchant_id === filter.merchantId)
      .sort((a, b) => b.created_at - a.created_at || b.delivery_id.localeCompare(a.delivery_id))
      .slice(0, filter.limit ?? 100);
  }

  /** A payout's delivery ids, oldest first. */
  ofPayout(refId: string): string[] {
    return this.byRef.get(refId) ?? [];
  }

  /** While a merchant has more than `max` deliveries, its oldest finished ones (delivered or failed) are dropped (by `remove`). */
  retain(deliveries: Record<string, WebhookDelivery>, merchantId: string, max: number, remove: (id: string) => void): void {
    const mine = this.byMerchant.get(merchantId) ?? [];
    for (let i = 0; mine.length > max && i < mine.length; ) {
      const d = deliveries[mine[i]];
      if (d && d.state !== 'delivered' && d.state !== 'failed') {
        i += 1;
        continue;
      }
      mine.splice(i, 1);
      if (!d) continue;
      remove(d.delivery_id);
      const refs = this.byRef.get(d.ref_id);
      if (refs) refs.splice(refs.indexOf(d.delivery_id), 1);
    }
  }
}

function push(map: Map<string, string[]>, key: string, id: string): void {
  const ids = map.get(key);
  if (ids) ids.push(id);
  else map.set(key, [id]);
}

/** The behaviours attempt `n` of a delivery showed the merchant's endpoint (behaviour coverage ids). */
export function deliveryBehaviours(d: WebhookDelivery, n: number): string[] {
  const ids = [`webhook.${d.version}`];
  if (n > 1) ids.push('webhook.retry');
  if (d.duplicate_of !== null) ids.push('webhook.duplicate');
  if (d.wrong_signature) ids.push('webhook.bad_signature');
  if (d.reordered) ids.push('webhook.reorder');
  return ids;
}

/** Generations of the state, whole and per merchant: an attempt records its result only if its own has not changed. */
export class Generations {
  private whole = 0;
  private readonly merchants = new Map<string, number>();

  of(merchantId: string): string {
    return `${this.whole}.${this.merchants.get(merchantId) ?? 0}`;
  }

  /** The whole state was replaced (no merchant), or one merchant's records. */
  bump(merchantId?: string): void {
    if (merchantId === undefined) this.whole += 1;
    else this.merchants.set(merchantId, (this.merchants.get(merchantId) ?? 0) + 1);
  }
}

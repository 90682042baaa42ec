import { COLLECTIONS, type Collection } from './collections.js';
import type { State } from './state.js';

/** The collections whose records carry the merchant they belong to (`merchant_id`): what a merchant's slice is cut from. */
export const PER_MERCHANT = [
  'accounts',
  'beneficiaries',
  'payouts',
  'checkout_transactions',
  'verifications',
  'aadhaar_otps',
  'webhook_deliveries',
  'due_items',
  'webhook_endpoints',
  'review_facts',
] as const satisfies readonly Collection[];

export type PerMerchantCollection = (typeof PER_MERCHANT)[number];

const IS_PER_MERCHANT: ReadonlySet<Collection> = new Set(PER_MERCHANT);
const NONE: ReadonlySet<string> = new Set();

type Owned = { merchant_id?: unknown } | undefined;

/**
 * Which records of the per-merchant collections are each merchant's, by id. Built from the state
 * when the store opens (and when the whole state is replaced), then kept current from the changes
 * the store is told: every change is told, or the store would not write it. So cutting out or
 * putting back one merchant's records (its creation, snapshot, reset, restore) costs what that
 * merchant holds, not what the whole sandbox holds.
 */
export class Owners {
  private byMerchant = new Map<string, Map<PerMerchantCollection, Set<string>>>();

  constructor(state: State) {
    this.rebuild(state);
  }

  rebuild(state: State): void {
    this.byMerchant = new Map();
    for (const c of PER_MERCHANT) {
      for (const [id, r] of Object.entries(COLLECTIONS[c](state) as Record<string, Owned>)) {
        if (typeof r?.merchant_id === 'string') this.add(r.merchant_id, c, id);
      }
    }
  }

  /**
   * A record of `c` was added, changed or removed in `state`. A removed record is no longer there
   * to say whose it was: `owner` says it (a removal told without one is looked for among every
   * merchant's, which costs the number of merchants).
   */
  changed(state: State, c: Collection, id: string, owner?: string): void {
    if (!IS_PER_MERCHANT.has(c)) return;
    const collection = c as PerMerchantCollection;
    const records = COLLECTIONS[collection](state) as Record<string, Owned>;
    if (Object.hasOwn(records, id)) {
      const r = records[id];
      if (typeof r?.merchant_id === 'string') this.add(r.merchant_id, collection, id);
      return;
    }
    if (typeof owner === 'string') {
      this.byMerchant.get(owner)?.get(collection)?.delete(id);
      return;
    }
    for (const sets of this.byMerchant.values()) sets.get(collection)?.delete(id);
  }

  /** The ids of the merchant's records of `c` (do not change the set; copy it before changing the records). */
  idsOf(merchantId: string, c: PerMerchantCollection): ReadonlySet<string> {
    return this.byMerchant.get(merchantId)?.get(c) ?? NONE;
  }

  /** The merchant's records of `c` in `state` (a new array: the records may be changed or removed while it is read). */
  recordsOf<R extends { merchant_id?: unknown }>(state: State, merchantId: string, c: PerMerchantCollection): R[] {
    const records = COLLECTIONS[c](state) as unknown as Record<string, R>;
    const out: R[] = [];
    for (const id of this.idsOf(merchantId, c)) {
      const r = records[id];
      if (r !== undefined && r.merchant_id === merchantId) out.push(r);
    }
    return out;
  }

  private add(merchantId: string, c: PerMerchantCollection, id: string): void {
    let sets = this.byMerchant.get(merchantId);
    if (!sets) this.byMerchant.set(merchantId, (sets = new Map()));
    let ids = sets.get(c);
    if (!ids) sets.set(c, (ids = new Set()));
    ids.add(id);
  }
}

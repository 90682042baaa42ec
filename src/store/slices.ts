import { COLLECTIONS } from './collections.js';
import { type Owners, PER_MERCHANT, type PerMerchantCollection } from './owners.js';
import type { Repo } from './repo.js';
import type { DueItem, MerchantSlice, State } from './state.js';

/** Whose a due item of an older file (without `merchant_id`) is: the owner of what it is about. */
function ownerOf(state: State, item: DueItem): string | undefined {
  const p = item.payload;
  const about =
    item.kind === 'payout_step'
      ? state.payouts[String(p.ref_id)]
      : item.kind === 'beneficiary_activation'
        ? state.beneficiaries[String(p.bene_id)]
        : item.kind === 'checkout_step'
          ? state.checkout_transactions[String(p.payment_id)]
          : state.webhook_deliveries[String(p.delivery_id)];
  return about?.merchant_id;
}

/**
 * Gives every due item of an older file its merchant (so it runs on that merchant's clock), at
 * open; the ids of those it gave one (the caller tells the store: written, and in its index of owners).
 */
export function stampOwners(state: State): string[] {
  const stamped: string[] = [];
  for (const item of Object.values(state.scheduler.items)) {
    if (item.merchant_id) continue;
    item.merchant_id = ownerOf(state, item);
    if (item.merchant_id) stamped.push(item.id);
  }
  return stamped;
}

/**
 * A merchant's records of one collection, by id (as the state keeps them): through the store's
 * index of owners when given (what the merchant holds), else by reading every record (a state
 * not in a store yet: the fixtures').
 */
function owned(state: State, c: PerMerchantCollection, merchantId: string, owners?: Owners): Record<string, { merchant_id?: string }> {
  const all = COLLECTIONS[c](state) as Record<string, { merchant_id?: string }>;
  if (!owners) return Object.fromEntries(Object.entries(all).filter(([, r]) => r.merchant_id === merchantId));
  return Object.fromEntries([...owners.idsOf(merchantId, c)].filter((id) => all[id]?.merchant_id === merchantId).map((id) => [id, all[id]]));
}

/** A copy of everything that is one merchant's (its records, due items, clock and coverage); `owners`: the store's index (see owned). */
export function sliceOf(state: State, merchantId: string, owners?: Owners): MerchantSlice {
  const records = Object.fromEntries(PER_MERCHANT.map((c) => [c, owned(state, c, merchantId, owners)]));
  return structuredClone({
    ...records,
    merchant: state.merchants[merchantId],
    clock: state.merchant_clocks?.[merchantId] ?? null,
    coverage: state.coverage?.[merchantId] ?? {},
    fault_counts: state.fault_counts?.[merchantId] ?? {},
    chaos: state.chaos?.[merchantId] ?? null,
  }) as MerchantSlice;
}

/** Ids in `slice` that another merchant holds now: a restore would take them over, so it is refused. */
export function takenIds(state: State, slice: MerchantSlice): string[] {
  const id = slice.merchant.merchant_id;
  return PER_MERCHANT.flatMap((c) => {
    const all = COLLECTIONS[c](state) as Record<string, { merchant_id?: string }>;
    return Object.keys(slice[c] ?? {}).filter((key) => all[key] !== undefined && all[key].merchant_id !== id);
  });
}

/**
 * Puts a copy of `slice` in place of everything its merchant has now: every other merchant's
 * records stay as they are. Each record goes through the repo (so the change log carries it);
 * the caller rebuilds what is derived (indexes, clocks, scheduler lanes, the outbox).
 */
export function putSlice(repo: Repo, source: MerchantSlice): void {
  const slice = structuredClone(source);
  const id = slice.merchant.merchant_id;
  for (const c of PER_MERCHANT) {
    for (const key of Object.keys(owned(repo.state, c, id, repo.store.owners))) repo.remove(c, key);
    for (const [key, r] of Object.entries(slice[c] ?? {})) repo.put(c, key, r);
  }
  repo.put('merchants', id, slice.merchant);
  repo.put('coverage', id, slice.coverage);
  if (slice.clock) repo.put('merchant_clocks', id, slice.clock);
  else repo.remove('merchant_clocks', id);
  repo.put('fault_counts', id, slice.fault_counts ?? {});
  if (slice.chaos) repo.put('chaos', id, slice.chaos);
  else repo.remove('chaos', id);
}

import { COLLECTIONS, type Collection } from './collections.js';
import type { Repo } from './repo.js';
import type { DueItem, MerchantSlice, State } from './state.js';

/** The collections whose records carry the merchant they belong to. */
const OWNED = [
  'accounts',
  'beneficiaries',
  'payouts',
  'checkout_transactions',
  'verifications',
  'aadhaar_otps',
  'webhook_deliveries',
] as const satisfies readonly Collection[];

type Owned = (typeof OWNED)[number];

/** Whose a due item is: its `merchant_id`, or (items of older files) the owner of what it is about. */
export function ownerOf(state: State, item: DueItem): string | undefined {
  if (item.merchant_id) return item.merchant_id;
  const p = item.payload;
  const about =
    item.kind === 'payout_step' ? state.payouts[String(p.ref_id)]
    : item.kind === 'beneficiary_activation' ? state.beneficiaries[String(p.bene_id)]
    : item.kind === 'checkout_step' ? state.checkout_transactions[String(p.payment_id)]
    : state.webhook_deliveries[String(p.delivery_id)];
  return about?.merchant_id;
}

/** Gives every due item of an older file its merchant (so it runs on that merchant's clock). */
export function stampOwners(state: State): void {
  for (const item of Object.values(state.scheduler.items)) {
    if (!item.merchant_id) item.merchant_id = ownerOf(state, item);
  }
}

function owned<C extends Owned>(state: State, c: C, merchantId: string): Array<State[C][string]> {
  return Object.values(state[c]).filter((r) => r.merchant_id === merchantId) as Array<State[C][string]>;
}

/** A copy of everything that is one merchant's (its records, due items, clock and coverage). */
export function sliceOf(state: State, merchantId: string): MerchantSlice {
  const merchant = state.merchants[merchantId];
  return structuredClone({
    merchant,
    accounts: owned(state, 'accounts', merchantId),
    beneficiaries: owned(state, 'beneficiaries', merchantId),
    payouts: owned(state, 'payouts', merchantId),
    checkout_transactions: owned(state, 'checkout_transactions', merchantId),
    verifications: owned(state, 'verifications', merchantId),
    aadhaar_otps: owned(state, 'aadhaar_otps', merchantId),
    webhook_deliveries: owned(state, 'webhook_deliveries', merchantId),
    due_items: Object.values(state.scheduler.items).filter((i) => ownerOf(state, i) === merchantId),
    clock: state.merchant_clocks?.[merchantId] ?? null,
    coverage: state.coverage?.[merchantId] ?? {},
  });
}

const KEYS: Record<Owned, string> = {
  accounts: 'account_no',
  beneficiaries: 'bene_id',
  payouts: 'ref_id',
  checkout_transactions: 'payment_id',
  verifications: 'verification_id',
  aadhaar_otps: 'ref_id',
  webhook_deliveries: 'delivery_id',
};

/** Ids in `slice` that another merchant holds now: a restore would take them over, so it is refused. */
export function takenIds(state: State, slice: MerchantSlice): string[] {
  const id = slice.merchant.merchant_id;
  const taken: string[] = [];
  for (const c of OWNED) {
    const records = COLLECTIONS[c](state) as Record<string, { merchant_id: string }>;
    for (const r of slice[c] as unknown as Array<Record<string, string>>) {
      const holder = records[r[KEYS[c]]];
      if (holder && holder.merchant_id !== id) taken.push(r[KEYS[c]]);
    }
  }
  return taken;
}

/**
 * Puts a copy of `slice` in place of everything its merchant has now: every other merchant's
 * records stay as they are. Each record goes through the repo (so the change log carries it);
 * the caller rebuilds what is derived (indexes, clocks, scheduler lanes, the outbox).
 */
export function putSlice(repo: Repo, source: MerchantSlice): void {
  const slice = structuredClone(source);
  const state = repo.state;
  const id = slice.merchant.merchant_id;
  for (const c of OWNED) {
    for (const r of owned(state, c, id)) repo.remove(c, (r as unknown as Record<string, string>)[KEYS[c]]);
    for (const r of slice[c] as unknown as Array<Record<string, string>>) repo.put(c, r[KEYS[c]], r);
  }
  for (const i of Object.values(state.scheduler.items)) if (ownerOf(state, i) === id) repo.remove('due_items', i.id);
  for (const i of slice.due_items) repo.put('due_items', i.id, { ...i, merchant_id: id });
  repo.put('merchants', id, slice.merchant);
  repo.put('coverage', id, slice.coverage);
  if (slice.clock) repo.put('merchant_clocks', id, slice.clock);
  else repo.remove('merchant_clocks', id);
}

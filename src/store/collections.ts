import type { State } from './state.js';

/**
 * The state's record collections by name: what the change log writes one record of at a time
 * (see store.ts), and what a merchant's slice is cut from (slices.ts).
 */
export const COLLECTIONS = {
  merchants: (s: State) => s.merchants,
  accounts: (s: State) => s.accounts,
  beneficiaries: (s: State) => s.beneficiaries,
  payouts: (s: State) => s.payouts,
  checkout_transactions: (s: State) => s.checkout_transactions,
  verifications: (s: State) => s.verifications,
  aadhaar_otps: (s: State) => s.aadhaar_otps,
  webhook_deliveries: (s: State) => s.webhook_deliveries,
  due_items: (s: State) => s.scheduler.items,
  coverage: (s: State) => (s.coverage ??= {}),
  merchant_clocks: (s: State) => (s.merchant_clocks ??= {}),
  origins: (s: State) => (s.origins ??= {}),
  webhook_endpoints: (s: State) => (s.webhook_endpoints ??= {}),
  fault_counts: (s: State) => (s.fault_counts ??= {}),
  chaos: (s: State) => (s.chaos ??= {}),
  outages: (s: State) => (s.outages ??= {}),
  review_facts: (s: State) => (s.review_facts ??= {}),
} satisfies Record<string, (s: State) => Record<string, unknown>>;

export type Collection = keyof typeof COLLECTIONS;

export function collectionOf(state: State, c: Collection): Record<string, unknown> {
  return COLLECTIONS[c](state);
}

// The merchant's own record of its payouts, keyed by its order (the client_ref_id), fed by the
// status check and by webhooks. A status only moves forward (docs/review.md, docs/api.md "Which
// status follows which"): NEW → Pending ⇄ Unknown → Success/Failed, Success → Failed (a
// reversal), Failed final. An event older than what is known is ignored.

export const FINAL = new Set(['Success', 'Failed']);

const RANK = { NEW: 0, Pending: 1, Unknown: 1, Success: 2, Failed: 3 };

/** Whether `next` (a payout record) is newer than `known` (one or null). */
export function isNewer(known, next) {
  if (!known) return true;
  if (known.status === 'Failed') return false;
  const a = RANK[known.status] ?? -1;
  const b = RANK[next.status] ?? -1;
  if (b !== a) return b > a;
  if (next.status === known.status) return false;
  // Pending and Unknown may follow each other: the later status change wins.
  return String(next.transaction_date ?? '') > String(known.transaction_date ?? '');
}

export class PayoutBook {
  constructor() {
    /** client_ref_id → { order, refId, transaction, history: [{ status, via }] } */
    this.byRef = new Map();
    this.unknownEvents = [];
  }

  /** An order this merchant sends (before knowing whether it was made). */
  track(clientRefId, order) {
    if (!this.byRef.has(clientRefId)) this.byRef.set(clientRefId, { order, refId: null, transaction: null, history: [] });
    return this.byRef.get(clientRefId);
  }

  get(clientRefId) {
    return this.byRef.get(clientRefId) ?? null;
  }

  statusOf(clientRefId) {
    return this.byRef.get(clientRefId)?.transaction?.status ?? null;
  }

  isFinal(clientRefId) {
    return FINAL.has(this.statusOf(clientRefId));
  }

  /** Takes a payout record from a status check or a webhook, if it is newer than what is known. */
  apply(transaction, via) {
    const entry = this.byRef.get(transaction.client_ref_id);
    if (!entry) {
      this.unknownEvents.push({ transaction, via });
      return false;
    }
    entry.refId ??= String(transaction.ref_id);
    entry.history.push({ status: transaction.status, via });
    if (!isNewer(entry.transaction, transaction)) return false;
    entry.transaction = transaction;
    return true;
  }

  entries() {
    return [...this.byRef.entries()].map(([clientRefId, e]) => ({ clientRefId, ...e }));
  }

  /** Orders whose payout exists (or may) and is not final. */
  open() {
    return this.entries().filter((e) => e.refId !== null && !FINAL.has(e.transaction?.status));
  }
}

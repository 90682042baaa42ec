// The merchant's payout service, written from docs/api.md and docs/review.md: pays each order
// exactly once (its order id is the client_ref_id), learns every payout's final status (webhooks
// and status checks, waiting out 429 and 503 for their Retry-After), and never pays a payee again
// while an earlier payout of the same payment may still go through.
import { FINAL, PayoutBook } from './book.js';

/** The payee and amount of an order (the "payment"): account and IFSC, or a beneficiary id. */
export function paymentKey(order) {
  const payee = order.beneficiary_id ? `bene:${order.beneficiary_id}` : `${order.account_number}@${order.ifsc_code}`;
  return `${Number(order.amount).toFixed(2)} to ${payee}`;
}

export class PayoutService {
  /**
   * @param {{ api: ReturnType<import('./api.js').payoutApi>, clock: { sleep(ms: number): Promise<void> },
   *           book?: PayoutBook, pollStartMs?: number, pollMaxMs?: number, log?: (line: string) => void }} o
   */
  constructor({ api, clock, book = new PayoutBook(), pollStartMs = 10_000, pollMaxMs = 10 * 60_000, log = () => undefined }) {
    this.api = api;
    this.clock = clock;
    this.book = book;
    this.pollStartMs = pollStartMs;
    this.pollMaxMs = pollMaxMs;
    this.log = log;
  }

  /**
   * A status check, waiting out 429 and 503 for as long as Retry-After says (and a lost answer for
   * a few seconds). Returns found (the record, also put in the book), not-found, or another refusal.
   */
  async check(ids) {
    for (let tries = 0; ; tries++) {
      const r = await this.api.status(ids);
      if (r.kind === 'found') {
        this.book.apply(r.transaction, 'status-check');
        return r;
      }
      if (r.kind === 'limited') {
        this.log(`status ${JSON.stringify(ids)}: 429, waiting ${r.retryAfter ?? 60} s`);
        await this.clock.sleep((r.retryAfter ?? 60) * 1000);
        continue;
      }
      if ((r.kind === 'unavailable' || r.kind === 'no-answer') && tries < 5) {
        const wait = r.retryAfter ?? 5 * 2 ** tries;
        this.log(`status ${JSON.stringify(ids)}: ${r.kind} ${r.http ?? ''}, waiting ${wait} s`);
        await this.clock.sleep(wait * 1000);
        continue;
      }
      return r;
    }
  }

  /** Waits for a beneficiary to be Active (a new one is Pending for a while), checking every 5 s. */
  async untilBeneficiaryActive(beneficiaryId, maxChecks = 50) {
    for (let i = 0; i < maxChecks; i++) {
      const r = await this.api.getBeneficiary({ beneficiary_id: beneficiaryId });
      if (r.kind === 'ok' && r.beneficiary.status === 'Active') return true;
      await this.clock.sleep(5000);
    }
    return false;
  }

  /** Whether this order may be paid now: a payment already made is paid again only after it failed, or as a deliberate #repeat. */
  mayPay(order) {
    if (/#repeat/.test(order.remarks ?? '')) return true;
    const key = paymentKey(order);
    return !this.book
      .entries()
      .some((e) => e.clientRefId !== order.client_ref_id && e.refId !== null && paymentKey(e.order) === key && e.transaction?.status !== 'Failed');
  }

  /**
   * Pays an order once, under its own client_ref_id. After a fault that may have made the payout
   * (a 5xx, a dropped connection, our time-out), the payout is looked up by client_ref_id before
   * anything is sent again, and anything sent again goes under the SAME client_ref_id.
   * Returns { made: true, refId, status } or { made: false, code, message }.
   */
  async pay(order, { attempts = 4 } = {}) {
    if (!this.mayPay(order)) throw new Error(`order ${order.client_ref_id}: ${paymentKey(order)} is already paid or under way`);
    const entry = this.book.track(order.client_ref_id, order);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const r = await this.api.initialize(order);
      if (r.kind === 'ok') {
        entry.refId = r.refId;
        entry.initialStatus = r.status;
        return { made: true, refId: r.refId, status: r.status };
      }
      if (r.kind === 'duplicate') {
        // an earlier attempt of ours made it: find it
        const found = await this.find(order.client_ref_id);
        if (found) return found;
        continue;
      }
      if (r.kind === 'rejected' && r.code === 'INVALID_BENEFICIARY' && order.beneficiary_id) {
        this.log(`${order.client_ref_id}: beneficiary ${order.beneficiary_id} not usable yet, waiting for it to be Active`);
        if (!(await this.untilBeneficiaryActive(order.beneficiary_id))) return { made: false, code: r.code, message: r.message };
        continue;
      }
      if (r.kind === 'rejected' || r.kind === 'invalid') return { made: false, code: r.code ?? null, message: r.message };
      // unavailable (5xx) or no answer: it may have been made
      this.log(`${order.client_ref_id}: initialize ${r.kind} ${r.http ?? r.reason ?? ''}; looking it up before sending again`);
      if (r.retryAfter) await this.clock.sleep(r.retryAfter * 1000);
      const found = await this.find(order.client_ref_id);
      if (found) return found;
      if (!r.retryAfter) await this.clock.sleep(5000 * attempt);
    }
    return { made: false, code: null, message: 'gave up: the provider kept failing' };
  }

  /** Looks a payout up by client_ref_id; "not found" may be the read-after-write lag, so it looks twice more. */
  async find(clientRefId) {
    for (let i = 0; i < 3; i++) {
      const r = await this.check({ client_ref_id: clientRefId });
      if (r.kind === 'found') {
        const entry = this.book.get(clientRefId);
        if (entry) entry.refId = String(r.transaction.ref_id);
        return { made: true, refId: String(r.transaction.ref_id), status: r.transaction.status };
      }
      if (r.kind !== 'not-found') return null;
      await this.clock.sleep(5000 * (i + 1));
    }
    return null;
  }

  /**
   * Until the payout is final: the book may learn it from a webhook; otherwise a status check,
   * backing off (doubling from pollStartMs, at most pollMaxMs). Pending, NEW and Unknown are not
   * failures: it waits. Returns the final status.
   */
  async untilFinal(clientRefId, { maxPolls = 60 } = {}) {
    let interval = this.pollStartMs;
    for (let i = 0; i < maxPolls; i++) {
      if (this.book.isFinal(clientRefId)) return this.book.statusOf(clientRefId);
      const r = await this.check({ client_ref_id: clientRefId });
      if (r.kind === 'found' && FINAL.has(r.transaction.status)) return this.book.statusOf(clientRefId);
      await this.clock.sleep(interval);
      interval = Math.min(interval * 2, this.pollMaxMs);
    }
    throw new Error(`payout ${clientRefId} not final after ${maxPolls} polls`);
  }

  /**
   * Reconciliation: every payout made is checked once more (a Success can still be reversed), and
   * any that is not final is followed until it is.
   */
  async reconcile() {
    for (const e of this.book.entries()) {
      if (e.refId === null) continue;
      await this.check({ client_ref_id: e.clientRefId });
      if (!this.book.isFinal(e.clientRefId)) await this.untilFinal(e.clientRefId);
    }
  }
}

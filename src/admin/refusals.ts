import { RequestError } from '../errors.js';
import type { RefusedTransition } from '../observe/journal.js';
import type { Repo } from '../store/repo.js';
import type { Merchant, Payout } from '../store/state.js';

/** The admin surface's refusals: a record not found (404, naming what was asked for), a transition refused (409). */

export function requireMerchant(repo: Repo, merchantId: string): Merchant {
  const m = repo.merchant(merchantId);
  if (!m) throw new RequestError(404, `No merchant with merchant_id "${merchantId}".`);
  return m;
}

/** A merchant by its id or, as the control API first took it, by its e-mail. */
export function requireMerchantByIdOrEmail(repo: Repo, key: string): Merchant {
  const m = repo.merchant(key) ?? repo.merchantByEmailAddress(key);
  if (!m) throw new RequestError(404, `No merchant with merchant_id or email "${key}".`);
  return m;
}

export function requirePayout(repo: Repo, refId: string): Payout {
  const p = repo.anyPayout(refId);
  if (!p) throw new RequestError(404, `No payout with ref_id ${refId}.`);
  return p;
}

/** A transition the domain refused (409); the control API notes it on the request's journal entry. */
export class TransitionRefused extends RequestError {
  constructor(readonly refusal: RefusedTransition) {
    super(409, refusal.reason);
  }
}

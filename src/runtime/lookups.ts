import { RequestError } from '../errors.js';
import type { Repo } from '../store/repo.js';
import type { Merchant, Payout } from '../store/state.js';

/** The admin surface's lookups of any merchant's records: the record, or a 404 naming what was asked for. */

export function requireMerchant(repo: Repo, merchantId: string): Merchant {
  const m = repo.merchant(merchantId);
  if (!m) throw new RequestError(404, `No merchant with merchant_id "${merchantId}".`);
  return m;
}

export function requirePayout(repo: Repo, refId: string): Payout {
  const p = repo.anyPayout(refId);
  if (!p) throw new RequestError(404, `No payout with ref_id ${refId}.`);
  return p;
}

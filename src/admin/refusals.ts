import { RequestError } from '../errors.js';
import type { RefusedTransition } from '../observe/journal.js';
import type { SandboxCore } from '../sandbox/core.js';
import type { Repo } from '../store/repo.js';
import type { Merchant, Payout } from '../store/state.js';
import { targetAllowed, unsendable } from '../webhooks/targets.js';

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

/**
 * A URL the sandbox is to send to (a merchant's `webhook_url`, a probe's `url`, a listener's
 * `forward_to`), refused with 400 naming `what` and why: one that can never be sent to, a host
 * --webhook-allow does not allow (not asked of a listener's `forward_to`, which its companion
 * posts to on the user's side), or the sandbox's own address and port.
 */
export async function refuseUnfitTarget(sb: SandboxCore, url: string, what: string, { allowList = true } = {}): Promise<void> {
  const unfit = unsendable(url);
  if (unfit !== null) throw new RequestError(400, `The ${what} is refused: ${unfit}.`);
  const allow = sb.config.webhookAllow;
  if (allowList && !targetAllowed(url, allow)) throw new RequestError(400, `The ${what}'s host is not allowed (--webhook-allow ${allow?.join(',')}).`);
  const self = await sb.webhooks.self.problem(url);
  if (self !== null) throw new RequestError(400, `The ${what} is refused: ${self}.`);
}

import type { Response } from 'express';
import type { Sandbox } from '../admin/sandbox.js';
import { SANDBOX_RULE_HEADER } from '../contract/envelopes.js';
import type { Operation } from '../contract/operations.js';
import type { FaultDecision } from '../domain/faults.js';
import { CheckoutError, RequestError, scriptedErrorHeaders, transportMessage } from '../errors.js';
import type { Merchant } from '../store/state.js';
import { sendError } from './respond.js';

/** A fault's refusal, in the shape of the API it answers (envelope A, or the checkout API's). */
function refusal(op: Operation, status: 500 | 503, d: FaultDecision): RequestError | CheckoutError {
  if (op.security === 'checkout') return new CheckoutError(status, transportMessage(status));
  return new RequestError(status, transportMessage(status), scriptedErrorHeaders(status, d.retryAfterS));
}

/**
 * Puts a call through the fault the scenario's rules or the merchant's chaos decide for it, if
 * any (see docs/scenarios.md "Faults of any operation"). Answers whether the operation is to run:
 * not for `error_500`, `unavailable_503` (thrown: nothing done) and `drop` (the connection reset,
 * nothing done); for `delay` after a real delay; for `hold` and `error_500_after` with its answer
 * taken over (held on the merchant's clock; replaced by a 500 once the work is done and written).
 */
export async function throughFault(sb: Sandbox, op: Operation, res: Response, merchant: Merchant, d: FaultDecision): Promise<boolean> {
  res.setHeader(SANDBOX_RULE_HEADER, d.rule);
  res.locals.fault = d;
  sb.events.behaviour(merchant.merchant_id, `transport.${d.effect}`);
  switch (d.effect) {
    case 'error_500':
      throw refusal(op, 500, d);
    case 'unavailable_503':
      throw refusal(op, 503, d);
    case 'drop':
      // What the decision counted is written before the connection goes (a drop answers nothing to wait for).
      await sb.repo.persist();
      res.req.socket.destroy();
      return false;
    case 'delay':
      await new Promise((resolve) => setTimeout(resolve, d.delayMs));
      return true;
    case 'hold':
      res.locals.answerHook = (send: () => void) => {
        void sb.scheduler.wait(d.holdMs, merchant.merchant_id).then(send);
      };
      return true;
    case 'error_500_after':
      res.locals.answerHook = () => sendError(res, refusal(op, 500, d));
      return true;
  }
}

import { initializeResult, statusCheckBody } from '../../contract/records.js';
import type { InitializePayoutRequest, PayoutStatusRequest } from '../../contract/schemas.js';
import { foundPayout, initializePayout, lookupPayout } from '../../domain/payouts.js';
import { MESSAGES, RequestError } from '../../errors.js';
import { toPaise } from '../../money.js';
import type { Sandbox } from '../../runtime/sandbox.js';
import type { ApiVersion, Payout } from '../../store/state.js';
import { SANDBOX_RULE_HEADER } from '../../contract/envelopes.js';
import { callOf, type Call, type OperationHandler, type OperationHandlers } from '../mount.js';
import { limiter } from '../ratelimit.js';
import { sendSuccess } from '../respond.js';

function initialize(sb: Sandbox, version: ApiVersion): OperationHandler<InitializePayoutRequest> {
  return {
    handle: async ({ req, res, merchant, input }) => {
      const { payout, rule, fault } = initializePayout(sb, merchant, { ...input, amount: toPaise(input.amount) }, version);
      await sb.repo.persist();
      res.set(SANDBOX_RULE_HEADER, rule);
      // A scripted fault after the payout was created: the client sees it, the payout lives on.
      if (fault?.type === 'error') throw new RequestError(fault.httpCode, fault.message);
      if (fault?.type === 'drop') {
        req.socket.destroy();
        return;
      }
      if (fault?.type === 'delay') await sb.scheduler.wait(fault.delayMs);
      sendSuccess(res, MESSAGES.payoutPending, initializeResult(payout));
    },
  };
}

type StatusCall = Call<PayoutStatusRequest> & { payout?: Payout };

function statusCheck(sb: Sandbox): OperationHandler<PayoutStatusRequest> {
  const statusLimit = limiter(
    sb.clock,
    () => sb.rateLimit('status_check'),
    (_req, res) => {
      const { merchant, input, payout } = callOf<PayoutStatusRequest>(res) as StatusCall;
      // Both ids of one payout share its counter.
      const id = payout ? `ref:${payout.ref_id}` : input.ref_id !== undefined ? `ref:${input.ref_id}` : `client:${input.client_ref_id}`;
      return `${merchant.merchant_id}\u0000${id}`;
    },
    sb.counters,
  );
  return {
    before: [
      (_req, res, next) => {
        const call = callOf<PayoutStatusRequest>(res) as StatusCall;
        call.payout = lookupPayout(sb, call.merchant, call.input);
        next();
      },
      ...(sb.config.rateLimits ? [statusLimit] : []),
    ],
    handle: (call) => {
      const { res, payout } = call as StatusCall;
      res.status(200).json(statusCheckBody(foundPayout(payout)));
    },
  };
}

export function payoutHandlers(sb: Sandbox): OperationHandlers {
  return { initializePayoutV1: initialize(sb, 'v1'), initializePayoutV2: initialize(sb, 'v2'), payoutStatus: statusCheck(sb) };
}

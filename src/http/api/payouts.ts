import type { Sandbox } from '../../admin/sandbox.js';
import { SANDBOX_RULE_HEADER } from '../../contract/envelopes.js';
import { initializeResult, statusCheckBody } from '../../contract/records.js';
import type { InitializePayoutRequest, PayoutStatusRequest } from '../../contract/schemas.js';
import type { FaultDecision } from '../../domain/faults.js';
import { noteStatusCheck } from '../../domain/lifecycle.js';
import { foundPayout, initializePayout, lookupPayout } from '../../domain/payouts.js';
import { formatDuration } from '../../duration.js';
import { MESSAGES, RequestError, scriptedErrorHeaders, transportMessage } from '../../errors.js';
import { toPaise } from '../../money.js';
import type { ApiVersion, Payout } from '../../store/state.js';
import { type Call, callOf, type OperationHandler, type OperationHandlers } from '../mount.js';
import { referenceLimit } from '../ratelimit.js';
import { sendJson, sendSuccess } from '../respond.js';

function initialize(sb: Sandbox, version: ApiVersion): OperationHandler<InitializePayoutRequest> {
  return {
    handle: async ({ req, res, merchant, input }) => {
      const { payout, rule, fault } = initializePayout(sb, merchant, { ...input, amount: toPaise(input.amount) }, version);
      // A fault rule (or chaos) that answers after the payout is made: the payout says how it was answered, the header names the fault.
      const decided = res.locals.fault as FaultDecision | undefined;
      if (decided?.effect === 'hold' || decided?.effect === 'error_500_after') {
        payout.initialize_fault =
          decided.effect === 'hold'
            ? { type: 'delay', http_code: null, message: `answer held ${formatDuration(decided.holdMs)} (${decided.rule})` }
            : { type: 'error', http_code: 500, message: transportMessage(500) };
      }
      await sb.repo.persist();
      if (!decided) res.set(SANDBOX_RULE_HEADER, rule);
      res.locals.refId = payout.ref_id;
      if (fault) sb.events.behaviour(merchant.merchant_id, `fault.${rule}`);
      // A scripted fault after the payout was created: the client sees it, the payout lives on.
      if (fault?.type === 'error') throw new RequestError(fault.httpCode, fault.message, scriptedErrorHeaders(fault.httpCode));
      if (fault?.type === 'drop') {
        req.socket.destroy();
        return;
      }
      if (fault?.type === 'delay') {
        res.locals.held = true;
        await sb.scheduler.wait(fault.delayMs, merchant.merchant_id);
      }
      sendSuccess(res, MESSAGES.payoutPending, initializeResult(payout));
    },
  };
}

type StatusCall = Call<PayoutStatusRequest> & { payout?: Payout | undefined };

/** The status check's body as JSON, kept per payout until its next status change (polling loops read it often). */
const statusJson = (() => {
  const cache = new WeakMap<Payout, { changes: number; json: string }>();
  return (p: Payout): string => {
    const hit = cache.get(p);
    if (hit && hit.changes === p.history.length) return hit.json;
    const json = JSON.stringify(statusCheckBody(p));
    cache.set(p, { changes: p.history.length, json });
    return json;
  };
})();

function statusCheck(sb: Sandbox): OperationHandler<PayoutStatusRequest> {
  // Looked up once per request: by the rate limit's key (when limits are on) or by the answer.
  const payoutOf = (call: StatusCall) => ('payout' in call ? call.payout : (call.payout = lookupPayout(sb, call.merchant, call.input)));
  const limit = referenceLimit(sb, 'status_check', (res) => {
    const call = callOf<PayoutStatusRequest>(res) as StatusCall;
    const payout = payoutOf(call);
    const { ref_id, client_ref_id } = call.input;
    // Both ids of one payout share its counter.
    return { merchantId: call.merchant.merchant_id, id: payout ? `ref:${payout.ref_id}` : ref_id !== undefined ? `ref:${ref_id}` : `client:${client_ref_id}` };
  });
  return {
    before: limit ? [limit] : [],
    handle: (call) => {
      const payout = foundPayout(payoutOf(call as StatusCall));
      call.res.locals.refId = payout.ref_id;
      // A poll-driven step moves on this check: written, and its webhook sent, before the answer.
      if (noteStatusCheck(sb, payout)) {
        return sb.repo.persist().then(() => {
          sb.scheduler.runDue().catch((err: unknown) => sb.logger.error({ err }, 'running due items failed'));
          sendJson(call.res, 200, statusJson(payout));
        });
      }
      sendJson(call.res, 200, statusJson(payout));
    },
  };
}

export function payoutHandlers(sb: Sandbox): OperationHandlers {
  return { initializePayoutV1: initialize(sb, 'v1'), initializePayoutV2: initialize(sb, 'v2'), getPayoutStatus: statusCheck(sb) };
}

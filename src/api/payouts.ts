import { Router, type Request, type Response } from 'express';
import { initializeResult, payoutRecord } from '../contract/records.js';
import { InitializePayoutRequest, PayoutStatusRequest } from '../contract/schemas.js';
import { foundPayout, initializePayout, lookupPayout } from '../domain/payouts.js';
import { MESSAGES, RequestError } from '../errors.js';
import type { Sandbox } from '../sandbox.js';
import type { ApiVersion, Payout } from '../store/state.js';
import { dashboardAuth, merchantOf } from './auth.js';
import { SANDBOX_RULE_HEADER, sendSuccess } from './envelopes.js';
import { methodNotAllowed } from './routing.js';
import { limiter } from './ratelimit.js';
import { inputParser } from './validation.js';

/** The status check reads its inputs from the query string, or from a JSON body on the GET. */
function statusInputs(req: Request): Record<string, unknown> {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
  const query = req.query as Record<string, unknown>;
  return { ...body, ...Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== '')) };
}

export function payoutsRouter(sb: Sandbox): Router {
  const router = Router();
  const parseInitializePayoutRequest = inputParser(InitializePayoutRequest);
  const parsePayoutStatusRequest = inputParser(PayoutStatusRequest);
  const auth = dashboardAuth(sb.repo);

  const initialize = (version: ApiVersion) => async (req: Request, res: Response) => {
    const merchant = merchantOf(res);
    const input = parseInitializePayoutRequest(req.body);
    const { payout, rule, fault } = initializePayout(sb, merchant, input, version);
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
  };

  router.route('/api/v1/public/payment/transfer').post(auth, initialize('v1')).all(methodNotAllowed);
  router.route('/api/v2/public/payment/transfer').post(auth, initialize('v2')).all(methodNotAllowed);

  const statusLimit = limiter(
    sb.clock,
    () => sb.rateLimit('status_check'),
    (_req, res) => {
      const ids = res.locals.statusInput as PayoutStatusRequest;
      const known = res.locals.payout as Payout | undefined;
      // Both ids of one payout share its counter.
      const id = known ? `ref:${known.ref_id}` : ids.ref_id !== undefined ? `ref:${ids.ref_id}` : `client:${ids.client_ref_id}`;
      return `${merchantOf(res).merchant_id}\u0000${id}`;
    },
    sb.limiterStores,
  );

  router
    .route('/api/v1/public/payment/transfer/status')
    .get(
      auth,
      (req, res, next) => {
        const ids = parsePayoutStatusRequest(statusInputs(req));
        res.locals.statusInput = ids;
        res.locals.payout = lookupPayout(sb, merchantOf(res), ids);
        next();
      },
      statusLimit,
      (_req, res) => {
        const payout = foundPayout(res.locals.payout as Payout | undefined);
        sendSuccess(res, MESSAGES.statusFetched, { transaction: payoutRecord(payout) });
      },
    )
    .all(methodNotAllowed);

  return router;
}

import { Router } from 'express';
import { BalanceRequest } from '../contract/schemas.js';
import { ownAccount } from '../domain/accounts.js';
import { MESSAGES } from '../errors.js';
import { toRupees } from '../money.js';
import type { Sandbox } from '../sandbox.js';
import { dashboardAuth, merchantOf } from './auth.js';
import { sendSuccess } from './envelopes.js';
import { limiter } from './ratelimit.js';
import { methodNotAllowed } from './routing.js';
import { inputParser } from './validation.js';

export function balanceRouter(sb: Sandbox): Router {
  const router = Router();
  const parseBalanceRequest = inputParser(BalanceRequest);
  const balanceLimit = limiter(
    sb.clock,
    () => sb.rateLimit('balance_check'),
    (_req, res) => `${merchantOf(res).merchant_id}\u0000${(res.locals.balanceInput as BalanceRequest).account_no}`,
    sb.limiterStores,
  );

  router
    .route('/api/v1/public/balance/check')
    .get(
      dashboardAuth(sb.repo),
      (req, res, next) => {
        res.locals.balanceInput = parseBalanceRequest(req.query);
        next();
      },
      balanceLimit,
      (_req, res) => {
        const { account_no } = res.locals.balanceInput as BalanceRequest;
        const account = ownAccount(sb.repo, merchantOf(res), account_no, 'account no');
        sendSuccess(res, MESSAGES.balanceFetched, { current_balance: toRupees(account.balance) });
      },
    )
    .all(methodNotAllowed);
  return router;
}

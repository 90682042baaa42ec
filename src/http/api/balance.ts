import type { BalanceRequest } from '../../contract/schemas.js';
import { ownAccount } from '../../domain/accounts.js';
import { MESSAGES } from '../../errors.js';
import { toRupees } from '../../money.js';
import type { Sandbox } from '../../runtime/sandbox.js';
import { callOf, type Call, type OperationHandlers } from '../mount.js';
import { limiter } from '../ratelimit.js';
import { sendSuccess } from '../respond.js';

export function balanceHandlers(sb: Sandbox): OperationHandlers {
  const balanceLimit = limiter(
    sb.clock,
    () => sb.rateLimit('balance_check'),
    (_req, res) => {
      const { merchant, input } = callOf<BalanceRequest>(res);
      return `${merchant.merchant_id}\u0000${input.account_no}`;
    },
    sb.counters,
  );
  return {
    balanceCheck: {
      before: sb.config.rateLimits ? [balanceLimit] : [],
      handle: ({ res, merchant, input }: Call<BalanceRequest>) => {
        const account = ownAccount(sb.repo, merchant, input.account_no, 'account no');
        sendSuccess(res, MESSAGES.balanceFetched, { current_balance: toRupees(account.balance) });
      },
    },
  };
}

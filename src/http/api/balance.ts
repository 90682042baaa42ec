import type { Sandbox } from '../../admin/sandbox.js';
import type { BalanceRequest } from '../../contract/schemas.js';
import { ownAccount } from '../../domain/accounts.js';
import { MESSAGES } from '../../errors.js';
import { toRupees } from '../../money.js';
import { type Call, callOf, type OperationHandlers } from '../mount.js';
import { referenceLimit } from '../ratelimit.js';
import { sendSuccess } from '../respond.js';

export function balanceHandlers(sb: Sandbox): OperationHandlers {
  const limit = referenceLimit(sb, 'balance_check', (res) => {
    const { merchant, input } = callOf<BalanceRequest>(res);
    return { merchantId: merchant.merchant_id, id: input.account_no };
  });
  return {
    getBalance: {
      before: limit ? [limit] : [],
      handle: ({ res, merchant, input }: Call<BalanceRequest>) => {
        const account = ownAccount(sb.repo, merchant, input.account_no, 'account no');
        sendSuccess(res, MESSAGES.balanceFetched, { current_balance: toRupees(account.balance) });
      },
    },
  };
}

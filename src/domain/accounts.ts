import { BusinessError, RequestError } from '../errors.js';
import type { Paise } from '../money.js';
import type { Repo } from '../store/repo.js';
import type { Account, Merchant } from '../store/state.js';

/**
 * The caller's own account named by `field`; another merchant's answers exactly as an unknown one
 * (envelope A 400 `The selected <field> is invalid.`).
 */
export function ownAccount(repo: Repo, merchant: Merchant, accountNo: string, field: string): Account {
  const account = repo.account(merchant.merchant_id, accountNo);
  if (!account) throw new RequestError(400, `The selected ${field} is invalid.`);
  return account;
}

/** The `debit_from` of a payout or a verification: own, and ACTIVE. */
export function debitableAccount(repo: Repo, merchant: Merchant, accountNo: string): Account {
  const account = ownAccount(repo, merchant, accountNo, 'debit from');
  if (account.status !== 'ACTIVE') throw new BusinessError('ACCOUNT_NOT_ACTIVE');
  return account;
}

/** A debit of `amount` must leave the balance at zero or more. */
export function requireFunds(account: Account, amount: Paise): void {
  if (account.balance < amount) throw new BusinessError('INSUFFICIENT_BALANCE');
}

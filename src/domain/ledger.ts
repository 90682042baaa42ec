import type { Paise } from '../money.js';
import type { Repo } from '../store/repo.js';
import type { Account, LedgerEntryType } from '../store/state.js';

export interface Posting {
  type: LedgerEntryType;
  /** Signed: debits negative. */
  amount: Paise;
  note: string;
}

/**
 * The only way an account's balance changes: every movement is a ledger entry, and the balance
 * is the running sum of the entries. The change is told to the repo (the change log).
 */
export function post(repo: Repo, account: Account, at: number, ref: string | null, postings: Posting[]): void {
  postEntries(account, at, ref, postings);
  repo.touch('accounts', account.account_no);
}

/** `post` on an account not stored yet (it is written when it is inserted). */
export function postEntries(account: Account, at: number, ref: string | null, postings: Posting[]): void {
  for (const p of postings) {
    if (p.amount === 0) continue;
    account.balance += p.amount;
    account.ledger.push({
      seq: account.ledger.length + 1,
      at,
      type: p.type,
      amount: p.amount,
      balance_after: account.balance,
      ref,
      note: p.note,
    });
  }
}

export function ledgerSum(account: Account): Paise {
  return account.ledger.reduce((sum, e) => sum + e.amount, 0);
}

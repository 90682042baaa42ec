import { ledgerSum, post, postEntries } from '../../src/domain/ledger.js';
import type { Repo } from '../../src/store/repo.js';
import type { Account } from '../../src/store/state.js';

/** Every balance change is a ledger entry; the balance is the running sum. */

const account = (balance = 0): Account => ({ account_no: 'VAN1', merchant_id: 'M1', status: 'ACTIVE', balance, ledger: [] });

test('entries are numbered from 1, each with the balance after it', () => {
  const a = account();
  postEntries(a, 1_000, null, [{ type: 'credit', amount: 100_000, note: 'opening' }]);
  postEntries(a, 2_000, 'REF1', [
    { type: 'payout', amount: -10_000, note: 'payout' },
    { type: 'fee', amount: -500, note: 'fee' },
    { type: 'tax', amount: -90, note: 'tax' },
  ]);
  expect(a.balance).toBe(89_410);
  expect(a.ledger).toEqual([
    { seq: 1, at: 1_000, type: 'credit', amount: 100_000, balance_after: 100_000, ref: null, note: 'opening' },
    { seq: 2, at: 2_000, type: 'payout', amount: -10_000, balance_after: 90_000, ref: 'REF1', note: 'payout' },
    { seq: 3, at: 2_000, type: 'fee', amount: -500, balance_after: 89_500, ref: 'REF1', note: 'fee' },
    { seq: 4, at: 2_000, type: 'tax', amount: -90, balance_after: 89_410, ref: 'REF1', note: 'tax' },
  ]);
  expect(ledgerSum(a)).toBe(89_410);
});

test('a refund puts back exactly what was taken', () => {
  const a = account();
  postEntries(a, 0, null, [{ type: 'credit', amount: 5_000, note: '' }]);
  postEntries(a, 1, 'R', [
    { type: 'payout', amount: -1_000, note: '' },
    { type: 'fee', amount: -118, note: '' },
    { type: 'tax', amount: -21, note: '' },
  ]);
  postEntries(a, 2, 'R', [
    { type: 'refund', amount: 1_000, note: '' },
    { type: 'fee_refund', amount: 118, note: '' },
    { type: 'tax_refund', amount: 21, note: '' },
  ]);
  expect(a.balance).toBe(5_000);
  expect(a.ledger.map((e) => e.balance_after)).toEqual([5_000, 4_000, 3_882, 3_861, 4_861, 4_979, 5_000]);
  expect(ledgerSum(a)).toBe(5_000);
});

test('a zero amount is no movement: no entry, no gap in the numbering', () => {
  const a = account();
  postEntries(a, 0, null, [
    { type: 'credit', amount: 0, note: 'nothing' },
    { type: 'credit', amount: 300, note: 'something' },
    { type: 'fee', amount: 0, note: 'free' },
    { type: 'fee', amount: -1, note: 'one paisa' },
  ]);
  expect(a.ledger.map((e) => [e.seq, e.amount, e.balance_after, e.note])).toEqual([
    [1, 300, 300, 'something'],
    [2, -1, 299, 'one paisa'],
  ]);
});

test('nothing stops a balance going below zero (the callers check first)', () => {
  const a = account();
  postEntries(a, 0, null, [{ type: 'payout', amount: -250, note: '' }]);
  expect(a.balance).toBe(-250);
  expect(a.ledger[0].balance_after).toBe(-250);
});

test('the running balance starts from the balance the account has; ledgerSum is the sum of the entries only', () => {
  const a = account(1_000); // a balance with no entry behind it
  postEntries(a, 0, null, [{ type: 'credit', amount: 500, note: '' }]);
  expect(a.ledger[0].balance_after).toBe(1_500);
  expect(a.balance).toBe(1_500);
  expect(ledgerSum(a)).toBe(500);
  expect(ledgerSum(account())).toBe(0);
});

test('seq continues after entries already there', () => {
  const a = account();
  postEntries(a, 0, null, [{ type: 'credit', amount: 1, note: '' }]);
  postEntries(a, 0, null, [{ type: 'credit', amount: 1, note: '' }]);
  postEntries(a, 0, null, [{ type: 'credit', amount: 1, note: '' }]);
  expect(a.ledger.map((e) => e.seq)).toEqual([1, 2, 3]);
  expect(a.ledger.map((e) => e.balance_after)).toEqual([1, 2, 3]);
});

test('post: the same entries, and the account told to the repo once', () => {
  const touched: Array<[string, string]> = [];
  const repo = { touch: (c: string, id: string) => touched.push([c, id]) } as unknown as Repo;
  const a = account();
  post(repo, a, 7, 'REF', [
    { type: 'credit', amount: 200, note: 'a' },
    { type: 'fee', amount: -20, note: 'b' },
  ]);
  expect(a.ledger).toEqual([
    { seq: 1, at: 7, type: 'credit', amount: 200, balance_after: 200, ref: 'REF', note: 'a' },
    { seq: 2, at: 7, type: 'fee', amount: -20, balance_after: 180, ref: 'REF', note: 'b' },
  ]);
  expect(touched).toEqual([['accounts', 'VAN1']]);
});

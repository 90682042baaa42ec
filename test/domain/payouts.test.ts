import { openSandbox, type Sandbox } from '../../src/admin/sandbox.js';
import { ledgerSum } from '../../src/domain/ledger.js';
import { forcePayoutStatus } from '../../src/domain/lifecycle.js';
import { initializePayout } from '../../src/domain/payouts.js';
import { BusinessError } from '../../src/errors.js';
import { toPaise } from '../../src/money.js';
import { DEMO } from '../helpers.js';

/** The domain on a Sandbox, without HTTP: inputs and the ledger in paise. */

let sb: Sandbox;
beforeEach(async () => {
  sb = await openSandbox({ data: 'memory', clock: 'manual', seed: 3, logLevel: 'silent' });
});
afterEach(() => sb.close());

const input = (overrides: Record<string, unknown> = {}) => ({
  client_ref_id: 'DOMAIN1',
  amount: toPaise(100.5),
  payment_method: '1001' as const,
  debit_from: DEMO.van1,
  purpose: 'VENDOR_PAYOUT' as const,
  remarks: 'domain test',
  beneficiary_name: 'Payee',
  beneficiary_email: 'p@example.com',
  account_number: '123456789012',
  ifsc_code: 'HDFC0001234',
  ...overrides,
});

test('initialize debits amount, fee and tax in paise and schedules the default timeline', () => {
  const merchant = sb.repo.merchantByEmailAddress(DEMO.email)!;
  const account = sb.repo.account(merchant.merchant_id, DEMO.van1)!;
  const before = account.balance;
  const { payout, rule } = initializePayout(sb, merchant, input(), 'v2');
  expect(rule).toBe('default');
  expect(payout.amount).toBe(10050);
  expect(before - account.balance).toBe(payout.amount + payout.fees + payout.tax);
  expect(ledgerSum(account)).toBe(account.balance);
  expect(sb.scheduler.pending().map((i) => i.kind)).toEqual(['payout_step']);
});

test('a forced failure refunds once; a second failure is refused; a duplicate client_ref_id is rejected', () => {
  const merchant = sb.repo.merchantByEmailAddress(DEMO.email)!;
  const account = sb.repo.account(merchant.merchant_id, DEMO.van1)!;
  const before = account.balance;
  const { payout } = initializePayout(sb, merchant, input(), 'v1');
  expect(forcePayoutStatus(sb, payout, 'Failed')).toEqual({ ok: true });
  expect(account.balance).toBe(before);
  expect(forcePayoutStatus(sb, payout, 'Failed').ok).toBe(false);
  expect(() => initializePayout(sb, merchant, input(), 'v1')).toThrow(BusinessError);
});

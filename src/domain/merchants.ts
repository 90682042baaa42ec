import { RequestError } from '../errors.js';
import { toPaise } from '../money.js';
import type { Account, AccountStatus, Merchant } from '../store/state.js';
import type { DomainContext } from './context.js';
import { post } from './ledger.js';
import { DEFAULT_VERIFICATION_CHARGES } from '../fixtures.js';
import { VERIFICATION_TYPES, type VerificationType } from '../contract/schemas.js';

export interface NewMerchant {
  name?: string;
  email?: string;
  balance?: number;
  fees?: { '1001'?: number; '1002'?: number; '1003'?: number };
  tax_rate_percent?: number;
  per_transaction_limit?: number;
  webhook_url?: string | null;
  webhook_version?: 'v1' | 'v2' | null;
}

/** A new isolated merchant with fresh credentials and one funded ACTIVE VAN (control API). */
export function createMerchant(ctx: DomainContext, input: NewMerchant): { merchant: Merchant; account: Account } {
  const { repo, random, clock } = ctx;
  const merchantId = random.unique(() => `SBX${random.alphanumeric(10)}`, (id) => repo.merchant(id) !== undefined);
  const email = input.email ?? `merchant-${merchantId.toLowerCase()}@payout-sandbox.test`;
  if (repo.merchantByEmailAddress(email)) throw new RequestError(409, `A merchant with the email ${email} exists already.`);
  const merchant: Merchant = {
    merchant_id: merchantId,
    name: input.name ?? `Test Merchant ${merchantId}`,
    email,
    api_key: `sbx_key_${random.alphanumeric(24).toLowerCase()}`,
    api_secret: `sbx_secret_${random.alphanumeric(32).toLowerCase()}`,
    access_token: `sbx_token_${random.alphanumeric(24).toLowerCase()}`,
    fees: {
      '1001': toPaise(input.fees?.['1001'] ?? 5),
      '1002': toPaise(input.fees?.['1002'] ?? 2.5),
      '1003': toPaise(input.fees?.['1003'] ?? 25),
    },
    tax_rate_percent: input.tax_rate_percent ?? 18,
    per_transaction_limit: toPaise(input.per_transaction_limit ?? 1000000),
    webhook_url: input.webhook_url ?? null,
    webhook_version: input.webhook_version ?? null,
    verification_charges: Object.fromEntries(
      VERIFICATION_TYPES.map((t) => [t, toPaise(DEFAULT_VERIFICATION_CHARGES[t])]),
    ) as Record<VerificationType, number>,
  };
  const accountNo = random.unique(() => `VAN${random.digits(17)}`, (no) => repo.anyAccount(no) !== undefined);
  const account: Account = { account_no: accountNo, merchant_id: merchantId, status: 'ACTIVE', balance: 0, ledger: [] };
  post(account, clock.now(), null, [{ type: 'credit', amount: toPaise(input.balance ?? 1000000), note: 'opening balance (control API)' }]);
  repo.insertMerchant(merchant);
  repo.insertAccount(account);
  return { merchant, account };
}

export interface MerchantPatch {
  webhook_url?: string | null;
  webhook_version?: 'v1' | 'v2' | null;
  per_transaction_limit?: number;
}

export function patchMerchant(merchant: Merchant, patch: MerchantPatch): void {
  if (patch.webhook_url !== undefined) merchant.webhook_url = patch.webhook_url;
  if (patch.webhook_version !== undefined) merchant.webhook_version = patch.webhook_version;
  if (patch.per_transaction_limit !== undefined) merchant.per_transaction_limit = toPaise(patch.per_transaction_limit);
}

/** Adds funds through the ledger. */
export function creditAccount(ctx: DomainContext, account: Account, rupees: number, note = 'credit (control API)'): void {
  post(account, ctx.clock.now(), null, [{ type: 'credit', amount: toPaise(rupees), note }]);
}

export function setAccountStatus(account: Account, status: AccountStatus): void {
  account.status = status;
}

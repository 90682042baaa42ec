import type { ClockMode } from '../clock.js';
import { RequestError } from '../errors.js';
import { type Paise, toPaise } from '../money.js';
import { sliceOf } from '../store/slices.js';
import type { Account, AccountStatus, ApiVersion, Merchant, PaymentMethod } from '../store/state.js';
import { VERIFICATION_TYPES, type VerificationType } from '../vocab.js';
import type { DomainContext } from './context.js';
import { post, postEntries } from './ledger.js';

/** Commission per verification, where nothing else is said. */
export const DEFAULT_VERIFICATION_CHARGES: Record<VerificationType, Paise> = {
  BANK: toPaise(3),
  PAN: toPaise(2),
  DRIVING_LICENSE: toPaise(5),
  VOTER_ID: toPaise(4),
  PASSPORT: toPaise(5),
  CIN: toPaise(5),
  GSTIN: toPaise(5),
  AADHAAR: toPaise(6),
  IFSC: toPaise(1),
};

/** A merchant's commercial terms where nothing else is said. */
export const DEFAULT_TERMS = {
  fees: { '1001': toPaise(5), '1002': toPaise(2.5), '1003': toPaise(25) } as Record<PaymentMethod, Paise>,
  tax_rate_percent: 18,
  per_transaction_limit: toPaise(1000000),
};

/** The opening balance of a merchant created through the control API, where nothing else is said. */
export const DEFAULT_OPENING_BALANCE: Paise = toPaise(1000000);

/** A merchant's terms (money in paise); missing ones take the defaults. */
export interface MerchantTerms {
  fees?: Partial<Record<PaymentMethod, Paise>>;
  tax_rate_percent?: number;
  per_transaction_limit?: Paise;
  webhook_url?: string | null;
  webhook_version?: ApiVersion | null;
  verification_charges?: Partial<Record<VerificationType, Paise>>;
}

type Identity = Pick<Merchant, 'merchant_id' | 'name' | 'email' | 'api_key' | 'api_secret' | 'access_token'>;

/** The stored merchant: identity, and terms converted to paise with the defaults filled in. */
export function merchantRecord(identity: Identity, terms: MerchantTerms): Merchant {
  const fee = (m: PaymentMethod) => terms.fees?.[m] ?? DEFAULT_TERMS.fees[m];
  return {
    ...identity,
    fees: { '1001': fee('1001'), '1002': fee('1002'), '1003': fee('1003') },
    tax_rate_percent: terms.tax_rate_percent ?? DEFAULT_TERMS.tax_rate_percent,
    per_transaction_limit: terms.per_transaction_limit ?? DEFAULT_TERMS.per_transaction_limit,
    webhook_url: terms.webhook_url ?? null,
    webhook_version: terms.webhook_version ?? null,
    verification_charges: Object.fromEntries(VERIFICATION_TYPES.map((t) => [t, terms.verification_charges?.[t] ?? DEFAULT_VERIFICATION_CHARGES[t]])) as Record<
      VerificationType,
      number
    >,
  };
}

/** A new account whose opening balance is its first ledger entry. */
export function openAccount(accountNo: string, merchantId: string, status: AccountStatus, balance: Paise, at: number, note: string): Account {
  const account: Account = { account_no: accountNo, merchant_id: merchantId, status, balance: 0, ledger: [] };
  postEntries(account, at, null, [{ type: 'credit', amount: balance, note }]);
  return account;
}

export interface NewMerchant extends Omit<MerchantTerms, 'verification_charges'> {
  name?: string;
  email?: string;
  balance?: Paise;
  /** A clock of its own (absent: it follows the sandbox clock). */
  clock?: { mode: ClockMode; start: number };
}

/** A new isolated merchant with fresh credentials and one funded ACTIVE VAN (control API). */
export function createMerchant(ctx: DomainContext, input: NewMerchant): { merchant: Merchant; account: Account } {
  const { repo, random } = ctx;
  const merchantId = random.unique(
    () => `SBX${random.alphanumeric(10)}`,
    (id) => repo.merchant(id) !== undefined,
  );
  const email = input.email ?? `merchant-${merchantId.toLowerCase()}@payout-sandbox.test`;
  if (repo.merchantByEmailAddress(email)) throw new RequestError(409, `A merchant with the email ${email} exists already.`);
  const merchant = merchantRecord(
    {
      merchant_id: merchantId,
      name: input.name ?? `Test Merchant ${merchantId}`,
      email,
      api_key: `sbx_key_${random.alphanumeric(24).toLowerCase()}`,
      api_secret: `sbx_secret_${random.alphanumeric(32).toLowerCase()}`,
      access_token: `sbx_token_${random.alphanumeric(24).toLowerCase()}`,
    },
    input,
  );
  const accountNo = newAccountNo(ctx);
  if (input.clock) ctx.clocks.attach(merchantId, input.clock.mode, input.clock.start);
  const opened = ctx.clocks.now(merchantId);
  const account = openAccount(accountNo, merchantId, 'ACTIVE', input.balance ?? DEFAULT_OPENING_BALANCE, opened, 'opening balance (control API)');
  repo.insertMerchant(merchant);
  repo.insertAccount(account);
  // What the merchant's reset goes back to.
  repo.put('origins', merchantId, sliceOf(repo.state, merchantId, repo.store.owners));
  return { merchant, account };
}

/** A VAN number no account has: `VAN` + 17 digits (20 characters, as debit_from takes). */
function newAccountNo({ repo, random }: DomainContext): string {
  return random.unique(
    () => `VAN${random.digits(17)}`,
    (no) => repo.anyAccount(no) !== undefined,
  );
}

/** Another VAN of a merchant (control API): funded, ACTIVE or INACTIVE. */
export function addAccount(ctx: DomainContext, merchant: Merchant, balance: Paise, status: AccountStatus): Account {
  const account = openAccount(newAccountNo(ctx), merchant.merchant_id, status, balance, ctx.clocks.now(merchant.merchant_id), 'opening balance (control API)');
  ctx.repo.insertAccount(account);
  return account;
}

export interface MerchantPatch {
  webhook_url?: string | null;
  webhook_version?: ApiVersion | null;
  per_transaction_limit?: Paise;
}

export function patchMerchant(ctx: DomainContext, merchant: Merchant, patch: MerchantPatch): void {
  ctx.repo.touch('merchants', merchant.merchant_id);
  if (patch.webhook_url !== undefined) merchant.webhook_url = patch.webhook_url;
  if (patch.webhook_version !== undefined) merchant.webhook_version = patch.webhook_version;
  if (patch.per_transaction_limit !== undefined) merchant.per_transaction_limit = patch.per_transaction_limit;
}

/** Adds funds through the ledger. */
export function creditAccount(ctx: DomainContext, account: Account, amount: Paise, note = 'credit (control API)'): void {
  post(ctx.repo, account, ctx.clocks.now(account.merchant_id), null, [{ type: 'credit', amount, note }]);
}

export function setAccountStatus(ctx: DomainContext, account: Account, status: AccountStatus): void {
  account.status = status;
  ctx.repo.touch('accounts', account.account_no);
}

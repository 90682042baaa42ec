import type { MerchantTerms } from '../domain/merchants.js';
import { toPaise } from '../money.js';

/** A merchant's terms as fixtures and the control API give them: the same fields, money in rupees. */
export type RupeeTerms = MerchantTerms;

/** Each amount of a table (fees by method, charges by type) converted. */
export function mapAmounts<T extends Partial<Record<string, number>>>(m: T, convert: (n: number) => number): T {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, convert(v as number)])) as T;
}

const paiseMap = <T extends Partial<Record<string, number>>>(m: T | undefined) => (m === undefined ? undefined : mapAmounts(m, toPaise));

/** The edge where a merchant's rupee terms become the domain's paise. */
export function termsInPaise(t: RupeeTerms): MerchantTerms {
  return {
    fees: paiseMap(t.fees),
    tax_rate_percent: t.tax_rate_percent,
    per_transaction_limit: t.per_transaction_limit === undefined ? undefined : toPaise(t.per_transaction_limit),
    webhook_url: t.webhook_url,
    webhook_version: t.webhook_version,
    verification_charges: paiseMap(t.verification_charges),
  };
}

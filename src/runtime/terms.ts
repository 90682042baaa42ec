import type { MerchantTerms } from '../domain/merchants.js';
import { toPaise } from '../money.js';

/** A merchant's terms as fixtures and the control API give them: the same fields, money in rupees. */
export type RupeeTerms = MerchantTerms;

function paiseMap<K extends string>(m: Partial<Record<K, number>> | undefined): Partial<Record<K, number>> | undefined {
  if (m === undefined) return undefined;
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, toPaise(v as number)])) as Partial<Record<K, number>>;
}

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

import { createHmac } from 'node:crypto';
import type { CheckoutTransaction, Merchant } from '../store/state.js';
import { formatTransactionDate } from '../time.js';

/**
 * The canonical string the checkout `signature` signs (a sandbox choice; the reference does not
 * show the algorithm): these fields joined by `|`, amounts with two decimals.
 */
export function checkoutCanonicalString(t: CheckoutTransaction, merchant: Merchant): string {
  return [
    t.payment_id,
    merchant.merchant_id,
    t.order.order_id,
    (t.order.gross_amount / 100).toFixed(2),
    t.order.currency,
    t.status,
    t.status === 'Success' ? '1' : '0',
    t.rrn,
    formatTransactionDate(t.created_at),
  ].join('|');
}

/** Hex HMAC-SHA256 of the canonical string, keyed by the merchant's API secret. */
export function checkoutSignature(t: CheckoutTransaction, merchant: Merchant): string {
  return createHmac('sha256', merchant.api_secret).update(checkoutCanonicalString(t, merchant)).digest('hex');
}

import { createHmac } from 'node:crypto';
import type { WebhookDelivery } from '../store/state.js';
import { VERSION } from '../version.js';

export const SIGNATURE_HEADER = 'X-Sandbox-Signature';

/** `sha256=<hex HMAC-SHA256 of the exact raw body, keyed by the merchant's API secret>`. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

// The key of a deliberately wrong signature (chaos): never a merchant's secret.
export const WRONG_KEY = 'payout-sandbox-wrong-signature-key';

/** The most telling part of a fetch failure: the socket's code (ECONNREFUSED …), else the message. */
export function describeError(err: unknown): string {
  // Duck-typed: errors from fetch may come from another realm (e.g. a test VM), where instanceof fails.
  if (err && typeof err === 'object') {
    const e = err as { message?: string; cause?: { code?: string; message?: string } };
    return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  }
  return String(err);
}

/** The headers of an attempt: `n` of delivery `d`, its raw body signed with `key`. */
export function deliveryHeaders(d: WebhookDelivery, n: number, raw: string, key: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': `payout-sandbox/${VERSION}`,
    'X-Sandbox-Delivery-Id': d.delivery_id,
    'X-Sandbox-Attempt': String(n),
    [SIGNATURE_HEADER]: signBody(raw, key),
  };
}

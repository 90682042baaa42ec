import type { ErrorCode } from '../errors.js';

/** Names the scenario rule that decided a response (sandbox-only information stays in headers). */
export const SANDBOX_RULE_HEADER = 'X-Sandbox-Rule';
/**
 * Sent by `payout-sandbox listen` to attach (a GET that changes where a merchant's webhooks go): a
 * web page cannot add a header of its own to a cross-site request without asking first.
 */
export const LISTENER_HEADER = 'X-Sandbox-Listener';

/** Envelope A: credential, rate-limit, validation and transport failures. HTTP status = http_code. */
export function envelopeA(httpCode: number, message: string) {
  return { success: false as const, http_code: httpCode, message };
}

/** Envelope B: business failures, always HTTP 400. */
export function envelopeB(code: ErrorCode, message: string) {
  return { status: false as const, message, error: { code, message } };
}

/** The dashboard API's success envelope. */
export function successEnvelope<T>(message: string, data: T) {
  return { success: true as const, http_code: 200, message, data };
}

/** The checkout API's success envelope: `{ status: true, message, data }`. */
export function checkoutSuccess<T>(message: string, data: T) {
  return { status: true as const, message, data };
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { VERSION } from '../version.js';

export const SIGNATURE_HEADER = 'X-Sandbox-Signature';
export const TIMESTAMP_HEADER = 'X-Sandbox-Timestamp';
export const SIGNATURE_V2_HEADER = 'X-Sandbox-Signature-V2';
export const PROBE_HEADER = 'X-Sandbox-Probe';
export const DELIVERY_HEADER = 'X-Sandbox-Delivery-Id';

/** How far from the receiver's clock a V2 timestamp may be, in the documented recipe (seconds). */
export const TIMESTAMP_TOLERANCE_S = 300;

/** `sha256=<hex HMAC-SHA256 of the exact raw body, keyed by the merchant's API secret>`. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** The hex HMAC-SHA256 of `"<t>." + body`, keyed by `secret`: one `v1=` entry of X-Sandbox-Signature-V2. */
export function signV2(body: string, t: number, secret: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
}

/** `t=<t>,v1=<hex>[,v1=<hex>…]`: one `v1=` per secret, in the order given. */
export function signatureV2(body: string, t: number, secrets: readonly string[]): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${signV2(body, t, s)}`)].join(',');
}

/** The real wall-clock time in unix seconds (a V2 timestamp is never the sandbox clock's). */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * Whether an X-Sandbox-Signature-V2 value verifies for `body` with `secret`: a `v1=` entry that
 * matches (compared in constant time), and `t` within `toleranceS` of `nowS`. What the documented
 * receiver recipe does.
 */
export function verifySignatureV2(
  header: string | undefined,
  body: string,
  secret: string,
  { toleranceS = TIMESTAMP_TOLERANCE_S, nowS = unixNow() }: { toleranceS?: number; nowS?: number } = {},
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS) return false;
  const expected = Buffer.from(signV2(body, t, secret), 'hex');
  return parts.some(([k, v]) => {
    if (k !== 'v1' || !v) return false;
    const given = Buffer.from(v, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// The key of a deliberately wrong signature (chaos, the probe's forged check): never a merchant's secret.
export const WRONG_KEY = 'payout-sandbox-wrong-signature-key';

/** The most telling part of a failed request: the socket's code (ECONNREFUSED, ENOTFOUND …), else the message. */
export function describeError(err: unknown): string {
  // Duck-typed: errors may come from another realm (e.g. a test VM), where instanceof fails.
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: string; cause?: { code?: string; message?: string } };
    const code = typeof e.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(e.code) ? e.code : undefined;
    return e.cause?.code ?? code ?? e.cause?.message ?? e.message ?? String(err);
  }
  return String(err);
}

/**
 * The keys an attempt is signed with: X-Sandbox-Signature's (`v1`: the previous secret during a
 * rotation's grace, else the current one) and X-Sandbox-Signature-V2's (`v2`: the current secret,
 * then the previous one during the grace).
 */
export interface SigningKeys {
  v1: string;
  v2: readonly string[];
}

/** The signing keys of a merchant now: its webhook secret (the API secret until rotated) and, during a grace, the previous one. */
export function merchantKeys(
  m: { api_secret: string; webhook_secret?: string; previous_webhook_secret?: { secret: string; expires_at: number } | null },
  now: number,
): SigningKeys {
  const current = m.webhook_secret ?? m.api_secret;
  const previous = m.previous_webhook_secret && now < m.previous_webhook_secret.expires_at ? m.previous_webhook_secret.secret : null;
  return previous === null ? { v1: current, v2: [current] } : { v1: previous, v2: [current, previous] };
}

export const WRONG_KEYS: SigningKeys = { v1: WRONG_KEY, v2: [WRONG_KEY] };

/** The headers of attempt `n` of delivery `deliveryId`: its raw body signed with `keys`, at unix time `t`. */
export function deliveryHeaders(deliveryId: string, n: number, raw: string, keys: SigningKeys, t: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': `payout-sandbox/${VERSION}`,
    [DELIVERY_HEADER]: deliveryId,
    'X-Sandbox-Attempt': String(n),
    [SIGNATURE_HEADER]: signBody(raw, keys.v1),
    [TIMESTAMP_HEADER]: String(t),
    [SIGNATURE_V2_HEADER]: signatureV2(raw, t, keys.v2),
  };
}

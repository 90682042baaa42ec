import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Repo } from '../store/repo.js';
import type { Merchant } from '../store/state.js';

/**
 * Constant-time equality of a presented value and an expected one held as bytes: no hashing per
 * request. Only the expected value's length can be learned from timing (a wrong length compares
 * the expected value with itself, so it costs the same as a wrong value of the right length).
 */
export function bytesEqual(given: string, expected: Buffer): boolean {
  const g = Buffer.from(given, 'utf8');
  if (g.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(g, expected);
}

/** Constant-time equality of two secrets of any length, length included (compared as SHA-256 digests: the admin token). */
export function secretEquals(given: string, expected: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

interface Expected {
  key: Buffer;
  secret: Buffer;
  token: Buffer;
}

/** Each merchant's credentials as bytes, made once per merchant record (a restore makes new records). */
const expectedOf = (() => {
  const cache = new WeakMap<object, Expected>();
  return (m: Pick<Merchant, 'api_key' | 'api_secret' | 'access_token'>): Expected => {
    let e = cache.get(m);
    if (!e) cache.set(m, (e = { key: Buffer.from(m.api_key), secret: Buffer.from(m.api_secret), token: Buffer.from(m.access_token) }));
    return e;
  };
})();

// Compared against when the merchant is unknown, so a miss costs the same as a wrong secret.
const NO_MERCHANT = {
  api_key: '\u0000no-merchant-key-00000',
  api_secret: '\u0000no-merchant-secret-000000000000000',
  access_token: '\u0000no-merchant-token-00000',
};

/** The three dashboard headers, matched to one merchant. */
export function authenticateDashboard(repo: Repo, headers: Request['headers']): Merchant | null {
  const email = headerValue(headers['x-merchant-email']);
  const merchant = repo.merchantByEmailAddress(email);
  const expected = expectedOf(merchant ?? NO_MERCHANT);
  const keyOk = bytesEqual(headerValue(headers['x-api-key']), expected.key);
  const secretOk = bytesEqual(headerValue(headers['x-api-secret']), expected.secret);
  return merchant && keyOk && secretOk && email !== '' ? merchant : null;
}

/** The checkout API's `MerchantId` and `AccessToken` headers, matched to one merchant. */
export function authenticateCheckout(repo: Repo, headers: Request['headers']): Merchant | null {
  const merchant = repo.merchant(headerValue(headers.merchantid));
  const tokenOk = bytesEqual(headerValue(headers.accesstoken), expectedOf(merchant ?? NO_MERCHANT).token);
  return merchant && tokenOk ? merchant : null;
}

/**
 * Why the dashboard headers were refused, in words (sandbox-only: the answer stays the
 * reference's "Credentials are not valid"; this goes in X-Sandbox-Auth-Reason and the journal).
 * Worked out only for a refused request, off the path of a good one. `revealing` (a loopback
 * sandbox without an admin token: one developer's) says which value is wrong; on a shared
 * sandbox that would tell anyone who can reach it which merchant e-mails are registered, so
 * only a missing header is named there.
 */
export function dashboardAuthReason(repo: Repo, headers: Request['headers'], revealing = true): string {
  const email = headerValue(headers['x-merchant-email']);
  const missing = ['X-Merchant-Email', 'X-Api-Key', 'X-Api-Secret'].filter((h) => headerValue(headers[h.toLowerCase()]) === '');
  if (missing.length === 3 && (headers.merchantid !== undefined || headers.accesstoken !== undefined)) {
    return 'checkout headers (MerchantId, AccessToken) sent to the dashboard API, which takes X-Merchant-Email, X-Api-Key and X-Api-Secret';
  }
  if (missing.length > 0) return `missing header${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
  if (!revealing) return SHARED_MISMATCH;
  const merchant = repo.merchantByEmailAddress(email);
  if (!merchant) return `no merchant has the e-mail ${email}`;
  const expected = expectedOf(merchant);
  if (!bytesEqual(headerValue(headers['x-api-key']), expected.key)) return `the X-Api-Key does not match ${email}'s key`;
  return `the X-Api-Secret does not match ${email}'s secret`;
}

/** What a shared sandbox says of credentials that are all there but do not match (see dashboardAuthReason). */
export const SHARED_MISMATCH =
  'the credentials do not match a merchant (checked together; this sandbox is shared, an admin token or a non-loopback address, so it does not say which value is wrong)';

/** Why the checkout headers were refused, in words (as dashboardAuthReason). */
export function checkoutAuthReason(repo: Repo, headers: Request['headers'], revealing = true): string {
  const missing = ['MerchantId', 'AccessToken'].filter((h) => headerValue(headers[h.toLowerCase()]) === '');
  if (missing.length === 2 && headers['x-merchant-email'] !== undefined) {
    return 'dashboard headers (X-Merchant-Email, X-Api-Key, X-Api-Secret) sent to the checkout API, which takes MerchantId and AccessToken';
  }
  if (missing.length > 0) return `missing header${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
  if (!revealing) return SHARED_MISMATCH;
  const id = headerValue(headers.merchantid);
  if (!repo.merchant(id)) return `no merchant has the MerchantId ${id}`;
  return `the AccessToken does not match merchant ${id}'s token`;
}

function headerValue(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

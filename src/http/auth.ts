import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Repo } from '../store/repo.js';
import type { Merchant } from '../store/state.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time equality of two secrets of any length (compared as SHA-256 digests). */
export function secretEquals(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

// Compared against when the email is unknown, so a miss costs the same as a wrong secret.
const NO_MERCHANT = { api_key: '\u0000no-merchant-key', api_secret: '\u0000no-merchant-secret' };

/** The three dashboard headers, matched to one merchant. */
export function authenticateDashboard(repo: Repo, headers: Request['headers']): Merchant | null {
  const email = headerValue(headers['x-merchant-email']);
  const key = headerValue(headers['x-api-key']);
  const secret = headerValue(headers['x-api-secret']);
  const merchant = repo.merchantByEmailAddress(email);
  const expected = merchant ?? NO_MERCHANT;
  const keyOk = secretEquals(key, expected.api_key);
  const secretOk = secretEquals(secret, expected.api_secret);
  return merchant && keyOk && secretOk && email !== '' ? merchant : null;
}

/** The checkout API's `MerchantId` and `AccessToken` headers, matched to one merchant. */
export function authenticateCheckout(repo: Repo, headers: Request['headers']): Merchant | null {
  const merchant = repo.merchant(headerValue(headers['merchantid']));
  const tokenOk = secretEquals(headerValue(headers['accesstoken']), merchant?.access_token ?? NO_MERCHANT.api_secret);
  return merchant && tokenOk ? merchant : null;
}

function headerValue(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

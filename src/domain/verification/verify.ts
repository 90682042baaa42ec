import { VerificationMembers, type VerifyRequest } from '../../contract/schemas.js';
import { BusinessError, RequestError } from '../../errors.js';
import { taxOn } from '../../money.js';
import type { Repo } from '../../store/repo.js';
import type { Account, Merchant, Verification } from '../../store/state.js';
import type { VerificationType } from '../../vocab.js';
import { debitableAccount, requireFunds } from '../accounts.js';
import type { DomainContext } from '../context.js';
import { post } from '../ledger.js';
import { documentNumber, verifyDocument } from './documents.js';

/** How long an Aadhaar OTP request waits for its second step. */
export const AADHAAR_OTP_TTL_MS = 10 * 60_000;

export const VERIFICATION_MESSAGES = {
  done: 'Verification completed successfully',
  otpSent: 'OTP sent to the mobile number linked with the Aadhaar number',
  fetched: 'Verification details fetched successfully',
  notFound: 'Unable to find verification using provided ID',
  otpRefInvalid: 'The aadhaar.ref id is invalid or has expired.',
} as const;

export interface VerifyOutcome {
  verification: Verification;
  message: string;
}

/**
 * Verify, for all nine types: account checks as for payouts, the commission and its tax debited
 * through the ledger, the record stored. AADHAAR is two steps: the number alone starts an OTP
 * request (not charged); the number with the request's `ref_id` and the OTP completes it.
 */
export function verify(ctx: DomainContext, merchant: Merchant, req: VerifyRequest): VerifyOutcome {
  const { repo, random } = ctx;
  const account = debitableAccount(repo, merchant, req.debit_from);
  const type = req.verification_type;
  const fields = req[VerificationMembers[type].member] as Record<string, string | undefined>;
  const now = ctx.clocks.now(merchant.merchant_id);
  // A new record (everything but completing an Aadhaar OTP request) needs room.
  if (type !== 'AADHAAR' || fields.otp === undefined) repo.requireRoom(merchant.merchant_id, 'verifications');

  if (type === 'AADHAAR' && fields.otp === undefined) {
    const refId = random.unique(
      () => `OTP${random.digits(12)}`,
      (id) => repo.aadhaarOtpExists(id),
    );
    const verification = newVerification(ctx, merchant, account, type, fields, now);
    verification.verification_status = 'Pending';
    verification.verify_response = {
      ref_id: refId,
      aadhaar_number: `XXXXXXXX${(fields.aadhaar_number ?? '').slice(8)}`,
      otp_sent: true,
      otp_expires_in_seconds: AADHAAR_OTP_TTL_MS / 1000,
      valid: false,
      message: VERIFICATION_MESSAGES.otpSent,
    };
    repo.insertVerification(verification);
    repo.insertAadhaarOtp({
      ref_id: refId,
      merchant_id: merchant.merchant_id,
      verification_id: verification.verification_id,
      aadhaar_number: fields.aadhaar_number ?? '',
      expires_at: now + AADHAAR_OTP_TTL_MS,
    });
    ctx.events.behaviour(merchant.merchant_id, 'verification.AADHAAR.otp_sent');
    return { verification, message: VERIFICATION_MESSAGES.otpSent };
  }

  let verification: Verification;
  if (type === 'AADHAAR') {
    const otpRequest = repo.aadhaarOtp(merchant.merchant_id, fields.ref_id ?? '');
    if (!otpRequest || otpRequest.aadhaar_number !== fields.aadhaar_number || otpRequest.expires_at <= now) {
      ctx.events.behaviour(merchant.merchant_id, 'verification.AADHAAR.otp_expired');
      throw new RequestError(400, VERIFICATION_MESSAGES.otpRefInvalid);
    }
    const pending = repo.verification(merchant.merchant_id, otpRequest.verification_id);
    if (!pending) throw new RequestError(400, VERIFICATION_MESSAGES.otpRefInvalid);
    // One charge per verification, however many OTP attempts it takes.
    if (pending.commission === 0 && pending.tax === 0) charge(repo, account, merchant, type, pending, now);
    verification = pending;
    verification.debit_from = account.account_no;
  } else {
    verification = newVerification(ctx, merchant, account, type, fields, now);
    charge(repo, account, merchant, type, verification, now);
    repo.insertVerification(verification);
  }
  verification.verification_status = 'Success';
  const { response, result } = verifyDocument(type, fields, ctx.scenario().verification.invalid[type]);
  verification.verify_response = response;
  repo.touch('verifications', verification.verification_id);
  if (type === 'AADHAAR' && result === 'valid') repo.deleteAadhaarOtp(fields.ref_id ?? '');
  ctx.events.behaviour(merchant.merchant_id, result === 'otp_wrong' ? 'verification.AADHAAR.otp_wrong' : `verification.${type}.${result}`);
  return { verification, message: VERIFICATION_MESSAGES.done };
}

function newVerification(
  ctx: DomainContext,
  merchant: Merchant,
  account: Account,
  type: VerificationType,
  fields: Record<string, string | undefined>,
  now: number,
): Verification {
  const { repo, random } = ctx;
  return {
    verification_id: random.unique(
      () => `VRF${random.alphanumeric(17)}`,
      (id) => repo.verificationExists(id),
    ),
    merchant_id: merchant.merchant_id,
    source_type: type,
    doc_number: documentNumber(type, fields),
    debit_from: account.account_no,
    commission: 0,
    tax: 0,
    verification_status: 'Success',
    verify_response: {},
    created_at: now,
  };
}

/** Checks the balance covers commission + tax, then debits both. */
function charge(repo: Repo, account: Account, merchant: Merchant, type: VerificationType, v: Verification, now: number): void {
  const commission = merchant.verification_charges[type];
  const tax = taxOn(commission, merchant.tax_rate_percent);
  requireFunds(account, commission + tax);
  v.commission = commission;
  v.tax = tax;
  post(repo, account, now, v.verification_id, [
    { type: 'verification', amount: -commission, note: `${type} verification ${v.doc_number}` },
    { type: 'verification_tax', amount: -tax, note: `tax on ${type} verification ${v.doc_number}` },
  ]);
}

export function findVerification(ctx: DomainContext, merchant: Merchant, verificationId: string): Verification {
  const v = ctx.repo.verification(merchant.merchant_id, verificationId);
  if (!v) throw new BusinessError('GENERIC_EXCEPTION', VERIFICATION_MESSAGES.notFound);
  return v;
}

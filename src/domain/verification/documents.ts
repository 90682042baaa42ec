import type { VerificationType } from '../../vocab.js';
import { verifyBank, verifyIfsc } from './documents/bank.js';
import { verifyCin, verifyGstin } from './documents/business.js';
import { aadhaarOtpOk, type DocumentVerifier, fakerFor, MAGIC_INVALID, type VerifyResponse } from './documents/common.js';
import { verifyAadhaar, verifyDrivingLicense, verifyPan, verifyPassport, verifyVoterId } from './documents/identity.js';

export { AADHAAR_OTP, MAGIC_INVALID, type VerifyResponse } from './documents/common.js';

/** Per type: the request field that holds the document number, and the verifier. */
const DOCUMENTS: Record<VerificationType, { field: string; verify: DocumentVerifier }> = {
  BANK: { field: 'account_no', verify: verifyBank },
  PAN: { field: 'pan_number', verify: verifyPan },
  DRIVING_LICENSE: { field: 'dl_number', verify: verifyDrivingLicense },
  VOTER_ID: { field: 'voter_id_number', verify: verifyVoterId },
  PASSPORT: { field: 'file_number', verify: verifyPassport },
  CIN: { field: 'cin_number', verify: verifyCin },
  GSTIN: { field: 'gstin_number', verify: verifyGstin },
  AADHAAR: { field: 'aadhaar_number', verify: verifyAadhaar },
  IFSC: { field: 'ifsc_code', verify: verifyIfsc },
};

/** The number a verification request verifies, by type (a driving licence without its separators). */
export function documentNumber(type: VerificationType, fields: Record<string, string | undefined>): string {
  const doc = fields[DOCUMENTS[type].field] ?? '';
  return type === 'DRIVING_LICENSE' ? doc.replace(/[ -]/g, '') : doc;
}

/** What a verification found, as data: valid, invalid, or (Aadhaar step 2) a wrong OTP. */
export type VerifyResult = 'valid' | 'invalid' | 'otp_wrong';

/**
 * The verify_response of a well-formed document: realistic details generated from the number,
 * `valid: false` for the type's magic number, a number the scenario lists as invalid, or a number
 * whose structure does not hold; and what that result was.
 */
export function verifyDocument(
  type: VerificationType,
  fields: Record<string, string | undefined>,
  scenarioInvalid: ReadonlySet<string> = new Set(),
): { response: VerifyResponse; result: VerifyResult } {
  const doc = documentNumber(type, fields);
  const magic = doc === MAGIC_INVALID[type] || scenarioInvalid.has(doc);
  const response = DOCUMENTS[type].verify(fakerFor(type, doc), doc, fields, magic);
  const result: VerifyResult = response.valid === true ? 'valid' : type === 'AADHAAR' && !magic && !aadhaarOtpOk(fields) ? 'otp_wrong' : 'invalid';
  return { response, result };
}

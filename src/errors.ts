/** The business error codes of the reference (envelope B). */
export const ERROR_CODES = [
  'TRANSACTION_LIMIT_EXCEEDED',
  'INSUFFICIENT_BALANCE',
  'ACCOUNT_NOT_ACTIVE',
  'TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE',
  'INVALID_BENEFICIARY',
  'INVALID_TRANSFER_ID',
  'GENERIC_EXCEPTION',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The message each code carries when nothing more specific is said. */
export const DEFAULT_ERROR_MESSAGES: Record<ErrorCode, string> = {
  TRANSACTION_LIMIT_EXCEEDED: 'Transaction limit exceeded. Please retry with a smaller amount.',
  INSUFFICIENT_BALANCE: 'Insufficient balance in the account.',
  ACCOUNT_NOT_ACTIVE: 'Account is not active to do real transactions.',
  TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE: 'Transaction amount is not compatible with the selected payment mode.',
  INVALID_BENEFICIARY: 'Beneficiary does not have valid account details for the transaction.',
  INVALID_TRANSFER_ID: 'Transfer id is not valid.',
  GENERIC_EXCEPTION: 'Something went wrong. Please try again later.',
};

/** A business failure: answered with envelope B. `rule`: the scenario rule that produced it. */
export class BusinessError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string = DEFAULT_ERROR_MESSAGES[code],
    readonly rule?: string,
  ) {
    super(message);
  }
}

/** A credential, rate-limit, validation or transport failure: answered with envelope A. */
export class RequestError extends Error {
  constructor(
    readonly httpCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** How long a payout rule's scripted 503 asks the client to wait (an operation fault's default too). */
export const SCRIPTED_RETRY_AFTER_S = 5;

/** A scripted error's headers: a 503 says when to try again (in `seconds`), as every 503 of the sandbox does. */
export function scriptedErrorHeaders(httpCode: number, seconds = SCRIPTED_RETRY_AFTER_S): Record<string, string> {
  return httpCode === 503 ? { 'Retry-After': String(seconds) } : {};
}

/** A scripted transport fault that creates nothing: answered as envelope A with its status. */
export class FaultError extends RequestError {
  constructor(
    httpCode: number,
    message: string,
    readonly rule: string,
  ) {
    super(httpCode, message, scriptedErrorHeaders(httpCode));
  }
}

/**
 * A failure of the checkout API that the reference does not give an envelope for (an unknown
 * transaction, a fault): `{ status: false, message }` with this HTTP status. Its credential
 * failures are the reference's envelope A (invalidCredentials()).
 */
export class CheckoutError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a transport-level failure says, by HTTP status (internal errors and scripted faults alike). */
const TRANSPORT_MESSAGES: Record<number, string> = {
  500: 'Something went wrong on our side. Please try again.',
  503: 'Service temporarily unavailable. Please try again later.',
};

export function transportMessage(httpCode: number): string {
  return TRANSPORT_MESSAGES[httpCode] ?? TRANSPORT_MESSAGES[500];
}

export const MESSAGES = {
  invalidCredentials: 'Credentials are not valid',
  tooManyAttempts: 'Too many attempts',
  duplicateClientRefId: 'Duplicate Client Reference ID',
  transactionNotFound: 'Unable to find transaction using provided ID',
  beneficiaryNotFound: 'Beneficiary not found in the system using the provided details',
  payoutPending: 'Transaction is pending. Please check status after some time.',
  statusFetched: 'Transaction status fetched successfully',
  balanceFetched: 'Balance fetched successfully',
  beneficiaryCreated: 'Beneficiary created successfully. It will be active within 24 hours.',
  beneficiaryExists: 'Beneficiary already exists',
  beneficiaryFetched: 'Beneficiary details fetched successfully',
  checkoutFetched: 'Transaction status fetched successfully',
  checkoutNotFound: 'Transaction not found',
  // As the reference's error table gives it: no closing full stop (Laravel's wording has one).
  refIdRequired: 'The ref id field is required when client ref id is not present',
} as const;

/** The reference's "Invalid credentials": envelope A 401, on the dashboard and the checkout API alike. */
export function invalidCredentials(): RequestError {
  return new RequestError(401, MESSAGES.invalidCredentials);
}

/** The reference's "Status check with neither ref_id nor client_ref_id": envelope A 400. */
export function refIdRequired(): RequestError {
  return new RequestError(400, MESSAGES.refIdRequired);
}

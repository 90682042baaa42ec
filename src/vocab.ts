/**
 * The reference's vocabulary: every closed list of values it uses. A leaf module: request and
 * response schemas, the stored state's types and the domain all derive from these lists.
 */

export const PAYOUT_STATUSES = ['NEW', 'Pending', 'Success', 'Failed', 'Unknown'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const CHECKOUT_STATUSES = ['Initialized', 'Success', 'Failed', 'Dropped'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export const BENEFICIARY_STATUSES = ['Pending', 'Active'] as const;
export type BeneficiaryStatus = (typeof BENEFICIARY_STATUSES)[number];

export const ACCOUNT_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** Webhook body versions, and the API versions of initialize (the same two names). */
export const WEBHOOK_VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof WEBHOOK_VERSIONS)[number];

/** 1001 IMPS, 1002 NEFT, 1003 RTGS. */
export const PAYMENT_METHODS = ['1001', '1002', '1003'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const PURPOSES = ['CASHBACK', 'REWARDS', 'VENDOR_PAYOUT', 'SALARY'] as const;
export type Purpose = (typeof PURPOSES)[number];

export const TRANSFER_TYPES = ['BANK'] as const;

export const VERIFICATION_TYPES = ['BANK', 'PAN', 'DRIVING_LICENSE', 'VOTER_ID', 'PASSPORT', 'CIN', 'GSTIN', 'AADHAAR', 'IFSC'] as const;
export type VerificationType = (typeof VERIFICATION_TYPES)[number];

/**
 * The emulated API's operations as fault rules and chaos name them (their OpenAPI operation ids;
 * `initializePayout` is both initialize versions, `initializePayoutV1`/`V2` in the document).
 */
export const OPERATION_NAMES = [
  'initializePayout',
  'getPayoutStatus',
  'getBalance',
  'createBeneficiary',
  'getBeneficiary',
  'verify',
  'getVerification',
  'getCheckoutStatus',
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

/** The operations that change state: only these can fail after doing their work (`error_500_after`). */
export const STATE_CHANGING_OPERATIONS: readonly OperationName[] = ['initializePayout', 'createBeneficiary', 'verify'];

/**
 * What a fault does to a call: `error_500` (nothing done), `error_500_after` (done, then 500),
 * `unavailable_503` (nothing done, Retry-After), `drop` (nothing done, the connection reset),
 * `hold` (done, the answer held on the merchant's clock), `delay` (a short real delay, then as usual).
 */
export const FAULT_EFFECTS = ['error_500', 'error_500_after', 'unavailable_503', 'drop', 'hold', 'delay'] as const;
export type FaultEffect = (typeof FAULT_EFFECTS)[number];

/** What a bank outage does to a payout to that bank: refused, held Pending until it ends, or Unknown until it ends. */
export const OUTAGE_EFFECTS = ['reject', 'hold', 'unknown'] as const;
export type OutageEffect = (typeof OUTAGE_EFFECTS)[number];

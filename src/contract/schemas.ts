import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { PAYMENT_METHODS, PURPOSES, TRANSFER_TYPES, VERIFICATION_TYPES, type VerificationType } from '../vocab.js';
import { StringEnum } from './kit.js';

/**
 * One schema per request of the reference. Each is the validator (ajv), the TypeScript type
 * (Static<>) and, later, the OpenAPI document. Annotations read by the validator's messages:
 * - `x-decimals`: most decimal places a number may have;
 * - `x-message`: the Laravel-style message when a `pattern` fails (after "The <field> field ");
 * - `x-required-when`: on a conditional `then`, the clause of "is required when …".
 */

const Digits = (n: number, extra: Record<string, unknown> = {}) => Type.String({ pattern: `^[0-9]{${n}}$`, 'x-message': `must be ${n} digits.`, ...extra });

const IFSC_PATTERN = '^[A-Z]{4}0[A-Z0-9]{6}$';
const Ifsc = () => Type.String({ pattern: IFSC_PATTERN, 'x-message': 'format is invalid.' });
/**
 * The two readings of the reference's rule for `beneficiary_name`, "alphanumeric only": letters,
 * digits and spaces (the default: real names have spaces), or letters and digits alone, as
 * written. A scenario's `validation.beneficiary_name` picks one; each has Laravel's wording.
 */
export const BENEFICIARY_NAME_RULES = ['alphanumeric-and-spaces', 'alphanumeric'] as const;
export type BeneficiaryNameRule = (typeof BENEFICIARY_NAME_RULES)[number];
export const DEFAULT_BENEFICIARY_NAME_RULE: BeneficiaryNameRule = 'alphanumeric-and-spaces';
const NAME_RULES: Record<BeneficiaryNameRule, { pattern: string; 'x-message': string }> = {
  'alphanumeric-and-spaces': { pattern: '^[A-Za-z0-9 ]+$', 'x-message': 'must only contain letters, numbers and spaces.' },
  alphanumeric: { pattern: '^[A-Za-z0-9]+$', 'x-message': 'must only contain letters and numbers.' },
};
const AlphaNumName = (rule: BeneficiaryNameRule) =>
  Type.String({
    ...NAME_RULES[rule],
    maxLength: 100,
    description:
      'The reference\'s "alphanumeric only": letters, digits and spaces; letters and digits alone under a scenario\'s `validation.beneficiary_name: alphanumeric`.',
  });
const Email = () => Type.String({ format: 'email', maxLength: 255 });
const AccountNumber = () => Type.String({ pattern: '^[0-9]{9,18}$', 'x-message': 'must be between 9 and 18 digits.' });

const INLINE_BENEFICIARY_FIELDS = ['beneficiary_email', 'beneficiary_name', 'account_number', 'ifsc_code'];

/** POST /api/v1|v2/public/payment/transfer */
const initializePayoutRequest = (nameRule: BeneficiaryNameRule) =>
  Type.Object(
    {
      client_ref_id: Type.String({ minLength: 5, maxLength: 30 }),
      transfer_type: StringEnum(TRANSFER_TYPES),
      amount: Type.Number({ 'x-decimals': 2 }),
      payment_method: StringEnum(PAYMENT_METHODS),
      debit_from: Type.String({ minLength: 20, maxLength: 20 }),
      beneficiary_id: Type.Optional(Type.String({ minLength: 20, maxLength: 20 })),
      beneficiary_email: Type.Optional(Email()),
      beneficiary_mobile: Type.Optional(Type.String({ minLength: 10, maxLength: 10 })),
      beneficiary_name: Type.Optional(AlphaNumName(nameRule)),
      account_number: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
      ifsc_code: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
      purpose: StringEnum(PURPOSES),
      remarks: Type.String({ minLength: 1, maxLength: 50 }),
    },
    {
      if: { not: { required: ['beneficiary_id'] }, properties: { transfer_type: { const: 'BANK' } }, required: ['transfer_type'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
      then: { required: INLINE_BENEFICIARY_FIELDS, 'x-required-when': 'beneficiary id is not present' },
    },
  );
export const InitializePayoutRequest = initializePayoutRequest(DEFAULT_BENEFICIARY_NAME_RULE);
export type InitializePayoutRequest = Static<typeof InitializePayoutRequest>;

/** GET /api/v1/public/payment/transfer/status (query string or JSON body) */
export const PayoutStatusRequest = Type.Object(
  {
    client_ref_id: Type.Optional(Type.String({ minLength: 5, maxLength: 30 })),
    ref_id: Type.Optional(Type.String({ minLength: 10, maxLength: 10 })),
  },
  {
    if: { not: { required: ['client_ref_id'] } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
    then: { required: ['ref_id'], 'x-required-when': 'client ref id is not present' },
  },
);
export type PayoutStatusRequest = Static<typeof PayoutStatusRequest>;

/** GET /api/v1/public/balance/check */
export const BalanceRequest = Type.Object({
  account_no: Type.String({ minLength: 1, maxLength: 40 }),
});
export type BalanceRequest = Static<typeof BalanceRequest>;

/** POST /api/v1/public/beneficiary/create */
const createBeneficiaryRequest = (nameRule: BeneficiaryNameRule) =>
  Type.Object({
    transfer_type: StringEnum(TRANSFER_TYPES),
    beneficiary_name: AlphaNumName(nameRule),
    beneficiary_email: Email(),
    beneficiary_mobile: Digits(10),
    account_number: AccountNumber(),
    ifsc_code: Ifsc(),
  });
export const CreateBeneficiaryRequest = createBeneficiaryRequest(DEFAULT_BENEFICIARY_NAME_RULE);
export type CreateBeneficiaryRequest = Static<typeof CreateBeneficiaryRequest>;

/**
 * The request schemas that take `beneficiary_name`, by name rule: the default's schema (the one the
 * operations table and the OpenAPI document hold) → the same request under each rule.
 */
export const BY_NAME_RULE: ReadonlyMap<TSchema, Record<BeneficiaryNameRule, TSchema>> = new Map<TSchema, Record<BeneficiaryNameRule, TSchema>>([
  [InitializePayoutRequest, { 'alphanumeric-and-spaces': InitializePayoutRequest, alphanumeric: initializePayoutRequest('alphanumeric') }],
  [CreateBeneficiaryRequest, { 'alphanumeric-and-spaces': CreateBeneficiaryRequest, alphanumeric: createBeneficiaryRequest('alphanumeric') }],
]);

/** POST /api/v1/public/beneficiary/get */
export const GetBeneficiaryRequest = Type.Object(
  {
    beneficiary_id: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    beneficiary_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    account_number: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  },
  {
    if: { not: { required: ['beneficiary_id'] } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
    then: { required: ['beneficiary_name', 'account_number'], 'x-required-when': 'beneficiary id is not present' },
  },
);
export type GetBeneficiaryRequest = Static<typeof GetBeneficiaryRequest>;

const IsoDate = () => Type.String({ format: 'date', 'x-message': 'must be a valid date in the format YYYY-MM-DD.' });

/** The member of a verification request that each type reads, and its document fields. */
export const VerificationMembers = {
  BANK: { member: 'bank', schema: Type.Object({ account_no: AccountNumber(), ifsc_code: Ifsc() }) },
  PAN: {
    member: 'pan',
    schema: Type.Object({
      pan_number: Type.String({ pattern: '^[A-Z]{5}[0-9]{4}[A-Z]$', 'x-message': 'format is invalid.' }),
      name: Type.Optional(Type.String({ maxLength: 100 })),
    }),
  },
  DRIVING_LICENSE: {
    member: 'dl',
    schema: Type.Object({
      dl_number: Type.String({ pattern: '^[A-Z]{2}[ -]?[0-9]{2}[ -]?[0-9]{4}[ -]?[0-9]{7}$', 'x-message': 'format is invalid.' }),
      dob: IsoDate(),
    }),
  },
  VOTER_ID: {
    member: 'voter_id',
    schema: Type.Object({
      voter_id_number: Type.String({ pattern: '^[A-Z]{3}[0-9]{7}$', 'x-message': 'format is invalid.' }),
    }),
  },
  PASSPORT: {
    member: 'passport',
    schema: Type.Object({
      file_number: Type.String({ pattern: '^[A-Z]{2}[0-9A-Z]{10,13}$', 'x-message': 'format is invalid.' }),
      dob: IsoDate(),
    }),
  },
  CIN: {
    member: 'cin',
    schema: Type.Object({
      cin_number: Type.String({ pattern: '^[LU][0-9]{5}[A-Z]{2}[0-9]{4}[A-Z]{3}[0-9]{6}$', 'x-message': 'format is invalid.' }),
    }),
  },
  GSTIN: {
    member: 'gstin',
    schema: Type.Object({
      gstin_number: Type.String({
        pattern: '^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z]$',
        'x-message': 'format is invalid.',
      }),
    }),
  },
  AADHAAR: {
    member: 'aadhaar',
    schema: Type.Object(
      {
        aadhaar_number: Digits(12),
        otp: Type.Optional(Digits(6)),
        ref_id: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
      },
      { dependentRequired: { otp: ['ref_id'], ref_id: ['otp'] } },
    ),
  },
  IFSC: { member: 'ifsc', schema: Type.Object({ ifsc_code: Ifsc() }) },
} satisfies Record<VerificationType, { member: string; schema: TSchema }>;

/** POST /api/v1/public/verification/ */
export const VerifyRequest = Type.Object(
  {
    debit_from: Type.String({ minLength: 20, maxLength: 20 }),
    verification_type: StringEnum(VERIFICATION_TYPES),
    ...Object.fromEntries(Object.values(VerificationMembers).map(({ member, schema }) => [member, Type.Optional(schema)])),
  },
  {
    allOf: VERIFICATION_TYPES.map((t) => ({
      if: { properties: { verification_type: { const: t } }, required: ['verification_type'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
      then: { required: [VerificationMembers[t].member], 'x-required-when': `verification type is ${t}` },
    })),
  },
);
export interface VerifyRequest {
  debit_from: string;
  verification_type: VerificationType;
  [member: string]: unknown;
}

/** GET /api/v1/public/verification/:verification_id */
export const VerificationDetailsParams = Type.Object({ verification_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** GET {checkout_url}/api/v1/payment/transaction/:transaction_id/status */
export const CheckoutStatusParams = Type.Object({ transaction_id: Type.String({ minLength: 1, maxLength: 64 }) });

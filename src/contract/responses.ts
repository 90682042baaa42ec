import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CODES } from '../errors.js';
import { BENEFICIARY_STATUSES, CHECKOUT_STATUSES, PAYMENT_METHODS, PAYOUT_STATUSES, PURPOSES, VERIFICATION_TYPES } from '../vocab.js';
import { Nullable, StringEnum } from './kit.js';

/**
 * The response shapes of the reference, as schemas: the presenters in records.ts are typed by
 * them, and the OpenAPI document serves them.
 */

export const PayoutRecord = Type.Object(
  {
    ref_id: Type.Integer({ description: '10 digits; a number here, a string in the initialize result' }),
    client_ref_id: Type.String(),
    purpose: StringEnum(PURPOSES),
    amount: Type.Number({ description: 'rupees' }),
    fees: Type.Number(),
    tax: Type.Number(),
    type: Type.Literal('Debit'),
    status: StringEnum(PAYOUT_STATUSES),
    payment_method: StringEnum(PAYMENT_METHODS),
    bank_ref_number: Type.String({ description: '12-digit UTR once the bank answered; empty before' }),
    bank_res_msg: Type.String(),
    beneficiary: Type.Object({ id: Type.String(), name: Type.String(), email_id: Type.String(), mobile_no: Type.String() }),
    transaction_date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', description: 'YYYY-MM-DD HH:MM:SS, India time' }),
    created_at: Type.String({ pattern: '^\\d{2}/\\d{2}/\\d{4} \\d{2}:\\d{2}:\\d{2} (AM|PM)$', description: 'DD/MM/YYYY hh:mm:ss AM, India time' }),
  },
  { additionalProperties: false },
);
export type PayoutRecord = Static<typeof PayoutRecord>;

export const InitializeResult = Type.Object(
  { ref_id: Type.String({ pattern: '^[1-9][0-9]{9}$' }), client_ref_id: Type.String(), status: StringEnum(['NEW', 'Pending'] as const) },
  { additionalProperties: false },
);
export type InitializeResult = Static<typeof InitializeResult>;

export const BeneficiaryRecord = Type.Object(
  {
    bene_id: Type.String({ minLength: 20, maxLength: 20 }),
    email_id: Type.String({ description: "the owning merchant's email" }),
    bene_name: Type.String(),
    bene_email: Type.String(),
    bene_mobile_no: Type.String(),
    bank_name: Type.String(),
    bank_account_number: Type.String(),
    ifsc_code: Type.String(),
    vpa_address: Nullable(Type.String()),
    status: StringEnum(BENEFICIARY_STATUSES),
    timestamp: Type.String({ description: 'DD/MM/YYYY hh:mm:ss AM, India time' }),
  },
  { additionalProperties: false },
);
export type BeneficiaryRecord = Static<typeof BeneficiaryRecord>;

export const VerificationRecord = Type.Object(
  {
    verification_id: Type.String({ pattern: '^VRF[A-Z0-9]{17}$' }),
    source_type: StringEnum(VERIFICATION_TYPES),
    doc_number: Type.String(),
    commission: Type.Number(),
    tax: Type.Number(),
    verification_status: StringEnum(['Success', 'Pending'] as const),
    verify_response: Type.Object({ valid: Type.Boolean(), message: Type.String() }, { additionalProperties: true }),
  },
  { additionalProperties: false },
);
export type VerificationRecord = Static<typeof VerificationRecord>;

const Address = Type.Object({
  address: Nullable(Type.String()),
  city: Nullable(Type.String()),
  state: Nullable(Type.String()),
  country: Nullable(Type.String()),
  pincode: Nullable(Type.String()),
});

export const CheckoutTransactionRecord = Type.Object(
  {
    payment_id: Type.String(),
    merchant_email: Type.String(),
    merchant_id: Type.String(),
    status: StringEnum(CHECKOUT_STATUSES),
    status_flag: Type.Union([Type.Literal(0), Type.Literal(1)], { description: '1 exactly when status is Success' }),
    payment_mode: Type.String(),
    rrn: Type.String(),
    order: Type.Object({
      order_id: Type.String(),
      product_name: Type.String(),
      gross_amount: Type.Number(),
      gateway_fee: Type.Number(),
      currency: Type.String(),
      tax: Type.Number(),
    }),
    customer: Type.Object({ name: Type.String(), email_id: Type.String(), mobile_no: Type.String() }),
    shipping: Address,
    billing: Address,
    custom_field_1: Type.String(),
    custom_field_2: Type.String(),
    custom_field_3: Type.String(),
    custom_field_4: Type.String(),
    custom_field_5: Type.String(),
    date: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, India time' }),
    signature: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'hex HMAC-SHA256 of the canonical string, keyed by the API secret' }),
  },
  { additionalProperties: false },
);
export type CheckoutTransactionRecord = Static<typeof CheckoutTransactionRecord>;

export const Balance = Type.Object({ current_balance: Type.Number() }, { additionalProperties: false });

/** Envelope A: credential, rate-limit, validation and transport failures; HTTP status = http_code. */
export const EnvelopeA = Type.Object({ success: Type.Literal(false), http_code: Type.Integer(), message: Type.String() }, { additionalProperties: false });

/** Envelope B: business failures, HTTP 400. */
export const EnvelopeB = Type.Object(
  {
    status: Type.Literal(false),
    message: Type.String(),
    error: Type.Object({ code: StringEnum(ERROR_CODES), message: Type.String() }),
  },
  { additionalProperties: false },
);

export const Success = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Literal(true), http_code: Type.Literal(200), message: Type.String(), data }, { additionalProperties: false });

export const CheckoutSuccess = Type.Object(
  { status: Type.Literal(true), message: Type.String(), data: CheckoutTransactionRecord },
  { additionalProperties: false },
);
export const CheckoutFailure = Type.Object({ status: Type.Literal(false), message: Type.String() }, { additionalProperties: false });

/** The webhook bodies (reference section Events). */
export const WebhookV1 = Type.Object({ transaction: PayoutRecord }, { additionalProperties: false });
export const WebhookV2 = Success(Type.Object({ transaction: PayoutRecord }));

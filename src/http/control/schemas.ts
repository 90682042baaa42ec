import { Type, type Static } from '@sinclair/typebox';
import { SCENARIO_NAME_PATTERN } from '../../runtime/admin.js';
import { RANGES } from '../../runtime/config.js';
import { DURATION_PATTERN } from '../../duration.js';
import { ACCOUNT_STATUSES, CHECKOUT_STATUSES, PAYOUT_STATUSES, WEBHOOK_VERSIONS } from '../../vocab.js';
import { Nullable, Rupees, StringEnum } from '../../contract/kit.js';

/** Request bodies of the control API (plain JSON, `{ error }` on failure). */

export const AdvanceClockBody = Type.Object({
  by: Type.String({ pattern: DURATION_PATTERN, 'x-message': 'must be a duration such as 500ms, 5s, 30m, 24h or 1d.' }),
});
export type AdvanceClockBody = Static<typeof AdvanceClockBody>;

export const CreateCheckoutBody = Type.Object({
  merchant_id: Type.String({ minLength: 1 }),
  amount: Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 }),
  payment_mode: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  product_name: Type.Optional(Type.String({ maxLength: 200 })),
  customer: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String()),
      email_id: Type.Optional(Type.String()),
      mobile_no: Type.Optional(Type.String()),
    }),
  ),
  custom_fields: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
});
export type CreateCheckoutBody = Static<typeof CreateCheckoutBody>;


export const CreateMerchantBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  email: Type.Optional(Type.String({ format: 'email' })),
  balance: Type.Optional(Rupees()),
  fees: Type.Optional(Type.Object({ '1001': Type.Optional(Rupees()), '1002': Type.Optional(Rupees()), '1003': Type.Optional(Rupees()) })),
  tax_rate_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  per_transaction_limit: Type.Optional(Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 })),
  webhook_url: Type.Optional(Nullable(Type.String({ format: 'uri' }))),
  webhook_version: Type.Optional(Type.Union([StringEnum(WEBHOOK_VERSIONS), Type.Null()])),
  clock: Type.Optional(
    Type.Object({
      mode: Type.Optional(StringEnum(['real', 'manual'] as const)),
      start: Type.Optional(Type.String({ format: 'date-time', 'x-message': 'must be an ISO date and time with its offset, e.g. 2026-01-01T09:00:00+05:30.' })),
    }, { additionalProperties: false }),
  ),
});
export type CreateMerchantBody = Static<typeof CreateMerchantBody>;

export const PatchMerchantBody = Type.Object({
  webhook_url: Type.Optional(Nullable(Type.String({ format: 'uri' }))),
  webhook_version: Type.Optional(Type.Union([StringEnum(WEBHOOK_VERSIONS), Type.Null()])),
  per_transaction_limit: Type.Optional(Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 })),
});
export type PatchMerchantBody = Static<typeof PatchMerchantBody>;

export const CreditBody = Type.Object({ amount: Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 }) });

export const AccountStatusBody = Type.Object({
  status: StringEnum(ACCOUNT_STATUSES),
});

export const PayoutStatusBody = Type.Object({
  status: StringEnum(PAYOUT_STATUSES),
  bank_res_msg: Type.Optional(Type.String({ maxLength: 200 })),
});

export const BeneficiaryStatusBody = Type.Object({
  status: StringEnum(['Active'] as const),
});

export const CheckoutStatusBody = Type.Object({
  status: StringEnum(CHECKOUT_STATUSES),
});

export const ScenarioBody = Type.Object({
  name: Type.Optional(Type.String({ pattern: SCENARIO_NAME_PATTERN, 'x-message': 'must name a file in scenarios/ (letters, digits, - and _).' })),
  scenario: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const SnapshotBody = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', 'x-message': 'must be 1 to 64 letters, digits, dots, dashes or underscores.' }),
});

export const RetentionBody = Type.Object({
  max_deliveries_per_merchant: Type.Integer({ minimum: RANGES.maxDeliveriesPerMerchant.min, maximum: RANGES.maxDeliveriesPerMerchant.max }),
});
export type RetentionBody = Static<typeof RetentionBody>;

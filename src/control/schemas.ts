import { Type, type Static } from '@sinclair/typebox';
import { DURATION_PATTERN } from '../duration.js';

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

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Version = () => Type.Unsafe<'v1' | 'v2'>({ type: 'string', enum: ['v1', 'v2'] });
const Rupees = () => Type.Number({ minimum: 0, 'x-decimals': 2 });

export const CreateMerchantBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  email: Type.Optional(Type.String({ format: 'email' })),
  balance: Type.Optional(Rupees()),
  fees: Type.Optional(Type.Object({ '1001': Type.Optional(Rupees()), '1002': Type.Optional(Rupees()), '1003': Type.Optional(Rupees()) })),
  tax_rate_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  per_transaction_limit: Type.Optional(Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 })),
  webhook_url: Type.Optional(Nullable(Type.String({ format: 'uri' }))),
  webhook_version: Type.Optional(Type.Union([Version(), Type.Null()])),
});
export type CreateMerchantBody = Static<typeof CreateMerchantBody>;

export const PatchMerchantBody = Type.Object({
  webhook_url: Type.Optional(Nullable(Type.String({ format: 'uri' }))),
  webhook_version: Type.Optional(Type.Union([Version(), Type.Null()])),
  per_transaction_limit: Type.Optional(Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 })),
});
export type PatchMerchantBody = Static<typeof PatchMerchantBody>;

export const CreditBody = Type.Object({ amount: Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 }) });

export const AccountStatusBody = Type.Object({
  status: Type.Unsafe<'ACTIVE' | 'INACTIVE'>({ type: 'string', enum: ['ACTIVE', 'INACTIVE'] }),
});

export const PayoutStatusBody = Type.Object({
  status: Type.Unsafe<'NEW' | 'Pending' | 'Success' | 'Failed' | 'Unknown'>({
    type: 'string',
    enum: ['NEW', 'Pending', 'Success', 'Failed', 'Unknown'],
  }),
  bank_res_msg: Type.Optional(Type.String({ maxLength: 200 })),
});

export const BeneficiaryStatusBody = Type.Object({
  status: Type.Unsafe<'Active'>({ type: 'string', enum: ['Active'] }),
});

export const CheckoutStatusBody = Type.Object({
  status: Type.Unsafe<'Initialized' | 'Success' | 'Failed' | 'Dropped'>({
    type: 'string',
    enum: ['Initialized', 'Success', 'Failed', 'Dropped'],
  }),
});

export const ScenarioBody = Type.Object({
  name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', 'x-message': 'must name a file in scenarios/ (letters, digits, - and _).' })),
  scenario: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const SnapshotBody = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', 'x-message': 'must be 1 to 64 letters, digits, dots, dashes or underscores.' }),
});

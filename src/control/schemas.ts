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

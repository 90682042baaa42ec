import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { StringEnum } from '../contract/kit.js';
import { DURATION_PATTERN } from '../duration.js';
import { ERROR_CODES } from '../errors.js';
import { CHECKOUT_STATUSES, PAYMENT_METHODS, PAYOUT_STATUSES, VERIFICATION_TYPES } from '../vocab.js';

const Duration = () => Type.String({ pattern: DURATION_PATTERN, description: 'a duration: 500ms, 5s, 30m, 24h, 1d' });
const Strict = <T extends Record<string, TSchema>>(props: T, extra: Record<string, unknown> = {}) =>
  Type.Object(props, { additionalProperties: false, ...extra });

const AmountMatch = Type.Union([
  Type.Number({ minimum: 0 }),
  Strict({ min: Type.Optional(Type.Number({ minimum: 0 })), max: Type.Optional(Type.Number({ minimum: 0 })) }),
]);

export const PayoutMatch = Strict({
  amount: Type.Optional(AmountMatch),
  payment_method: Type.Optional(Type.Union([StringEnum(PAYMENT_METHODS), Type.Array(StringEnum(PAYMENT_METHODS), { minItems: 1 })])),
  account_number: Type.Optional(Type.String({ minLength: 1 })),
  ifsc_code: Type.Optional(Type.String({ minLength: 1 })),
  beneficiary_name: Type.Optional(Type.String({ minLength: 1 })),
  client_ref_id_prefix: Type.Optional(Type.String({ minLength: 1 })),
  /** Of the payouts the other keys match, this share (0 to 1, drawn from the seeded random). */
  share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});

export const PayoutStep = Strict({
  after: Duration(),
  status: StringEnum(PAYOUT_STATUSES),
  bank_res_msg: Type.Optional(Type.String({ maxLength: 200 })),
});

export const Fault = Strict({
  /** error: answer envelope A with http_code; delay: hold the answer; drop: close the connection. */
  type: StringEnum(['error', 'delay', 'drop'] as const),
  http_code: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
  message: Type.Optional(Type.String()),
  delay: Type.Optional(Duration()),
  /** Whether the payout is created (debited, stored, on its timeline) although the client sees the fault. */
  create: Type.Boolean(),
});

/** Webhook chaos: off by default; for proving a handler idempotent, order-tolerant and verifying. */
export const WebhookChaos = Strict({
  /** Share (0–1) of deliveries sent twice. */
  duplicate: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  /** Hold a payout's deliveries until its timeline ends, then send them newest first. */
  reorder: Type.Optional(Type.Boolean()),
  /** Delay every delivery's first attempt by this much sandbox time. */
  delay: Type.Optional(Duration()),
  /** Share (0–1) of deliveries signed with a wrong key. */
  wrong_signature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});

export const PayoutRule = Strict({
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  match: PayoutMatch,
  reject: Type.Optional(Strict({ code: StringEnum(ERROR_CODES), message: Type.Optional(Type.String({ minLength: 1 })) })),
  initial_status: Type.Optional(StringEnum(['NEW', 'Pending'] as const)),
  timeline: Type.Optional(Type.Array(PayoutStep)),
  fault: Type.Optional(Fault),
  /** Webhook chaos for the payouts this rule decides (over the scenario's own). */
  webhooks: Type.Optional(WebhookChaos),
});

const CheckoutStep = Strict({ after: Duration(), status: StringEnum(CHECKOUT_STATUSES) });

export const ScenarioSchema = Strict({
  $schema: Type.Optional(Type.String()),
  /** Another scenario this one puts its fields over (resolved before validation: see extends.ts). */
  extends: Type.Optional(Type.String({ minLength: 1 })),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  payouts: Strict({
    initial_status: Type.Optional(StringEnum(['NEW', 'Pending'] as const)),
    default_timeline: Type.Array(PayoutStep),
    rules: Type.Optional(Type.Array(PayoutRule)),
  }),
  beneficiaries: Type.Optional(
    Strict({
      activation_delay: Duration(),
      rules: Type.Optional(
        Type.Array(
          Strict({
            name: Type.String({ minLength: 1 }),
            description: Type.Optional(Type.String()),
            match: Strict({
              account_number: Type.Optional(Type.String({ minLength: 1 })),
              ifsc_code: Type.Optional(Type.String({ minLength: 1 })),
              beneficiary_name: Type.Optional(Type.String({ minLength: 1 })),
            }),
            /** `never`: stays Pending until the control API activates it. */
            activation: Type.Union([Duration(), Type.Literal('never')]),
          }),
        ),
      ),
    }),
  ),
  checkout: Type.Optional(
    Strict({
      default_timeline: Type.Array(CheckoutStep),
      rules: Type.Optional(
        Type.Array(
          Strict({
            name: Type.String({ minLength: 1 }),
            description: Type.Optional(Type.String()),
            match: Strict({ amount: Type.Optional(AmountMatch), payment_mode: Type.Optional(Type.String({ minLength: 1 })) }),
            timeline: Type.Array(CheckoutStep),
          }),
        ),
      ),
    }),
  ),
  verification: Type.Optional(
    Strict({
      /** Document numbers (as the record's doc_number) that verify as `valid: false`, by type, beside the built-in magic ones. */
      invalid: Type.Optional(
        Type.Object(Object.fromEntries(VERIFICATION_TYPES.map((t) => [t, Type.Optional(Type.Array(Type.String({ minLength: 1 })))])), {
          additionalProperties: false,
        }),
      ),
    }),
  ),
  limits: Type.Optional(
    Strict({
      status_check: Type.Optional(Strict({ limit: Type.Integer({ minimum: 1 }), window: Duration() })),
      balance_check: Type.Optional(Strict({ limit: Type.Integer({ minimum: 1 }), window: Duration() })),
    }),
  ),
  webhooks: Type.Optional(
    Strict({
      retry_schedule: Type.Optional(Type.Array(Duration(), { maxItems: 20 })),
      timeout: Type.Optional(Duration()),
      chaos: Type.Optional(WebhookChaos),
    }),
  ),
});
export type ScenarioFile = Static<typeof ScenarioSchema>;
export type PayoutRuleFile = Static<typeof PayoutRule>;
export type PayoutMatchFile = Static<typeof PayoutMatch>;
export type WebhookChaos = Static<typeof WebhookChaos>;

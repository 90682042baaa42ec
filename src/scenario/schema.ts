import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { StringEnum } from '../contract/kit.js';
import { BENEFICIARY_NAME_RULES } from '../contract/schemas.js';
import { DURATION_PATTERN } from '../duration.js';
import { ERROR_CODES } from '../errors.js';
import { CHECKOUT_STATUSES, FAULT_EFFECTS, OPERATION_NAMES, OUTAGE_EFFECTS, PAYMENT_METHODS, PAYOUT_STATUSES, VERIFICATION_TYPES } from '../vocab.js';

const Duration = () => Type.String({ pattern: DURATION_PATTERN, description: 'a duration: 500ms, 5s, 30m, 24h, 1d, 1h30m or PT1H30M' });
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
  /** After this much time (on the merchant's clock) since the step before; or: */
  after: Type.Optional(Duration()),
  /** on the N-th status check of the payout since the step before (a poll-driven transition). */
  after_polls: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
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
  /** Share (0–1) of deliveries whose first answered request is sent again 10 minutes later, byte for byte (a captured request replayed). */
  replay: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  /** Share (0–1) of deliveries whose first attempt is signed correctly with a timestamp over 10 minutes old. */
  stale_timestamp: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});

/** The moments of a demo's story, in the order they can happen (the dashboard's story view). */
export const STORY_MOMENTS = ['answer', 'NEW', 'Pending', 'not_found', 'Unknown', 'Success', 'Failed', 'reversed', 'webhook', 'end'] as const;

const Narration = () => Type.Optional(Type.String({ minLength: 1, maxLength: 600 }));

/**
 * A demo's story (the dashboard's Stories): a title, a summary, and what to say at each moment:
 * `answer` (the initialize's answer), a status first reached, `not_found` (a status check that
 * did not find it yet), `reversed` (Success, then Failed), `webhook` (the first delivery), `end`.
 */
export const Story = Strict({
  title: Type.String({ minLength: 1, maxLength: 120 }),
  summary: Type.Optional(Type.String({ minLength: 1, maxLength: 600 })),
  steps: Type.Optional(
    Strict(Object.fromEntries(STORY_MOMENTS.map((m) => [m, Narration()])) as Record<(typeof STORY_MOMENTS)[number], ReturnType<typeof Narration>>),
  ),
});

export const PayoutRule = Strict({
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  match: PayoutMatch,
  reject: Type.Optional(Strict({ code: StringEnum(ERROR_CODES), message: Type.Optional(Type.String({ minLength: 1 })) })),
  initial_status: Type.Optional(StringEnum(['NEW', 'Pending'] as const)),
  timeline: Type.Optional(Type.Array(PayoutStep)),
  fault: Type.Optional(Fault),
  /** The payout is invisible to the status check for this long after initialize (read-after-write lag). */
  lag: Type.Optional(Duration()),
  /** Webhook chaos for the payouts this rule decides (over the scenario's own). */
  webhooks: Type.Optional(WebhookChaos),
  /** How the dashboard tells this rule as a story (its Stories view). */
  story: Type.Optional(Story),
});

const OperationNames = Type.Union([StringEnum(OPERATION_NAMES), Type.Array(StringEnum(OPERATION_NAMES), { minItems: 1 })]);

/** A fault of an operation: which calls (operation, fields of its input), what happens, how often. */
export const OperationFaultRule = Strict({
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  operation: OperationNames,
  /** Fields of the operation's input (dotted for a nested one: `pan.pan_number`), each equal; a value ending in `*` is a prefix. */
  match: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
  effect: StringEnum(FAULT_EFFECTS),
  /** Only the first N matching calls (of each merchant) fail; the others succeed. */
  times: Type.Optional(Type.Integer({ minimum: 1 })),
  /** `hold`: how long, on the merchant's clock (default 35s). */
  hold: Type.Optional(Duration()),
  /** `delay`: a real delay, at most 2 s: one duration, or a range drawn from uniformly (seeded). */
  delay: Type.Optional(Type.Union([Duration(), Strict({ min: Duration(), max: Duration() })])),
  /** `unavailable_503`: the Retry-After given (default 5s). */
  retry_after: Type.Optional(Duration()),
});

/** The effects chaos draws from. */
export const CHAOS_MODES = ['error_500', 'unavailable_503', 'drop', 'delay'] as const;

/** Seeded chaos: `percent` of the calls of `operations` fail, each with one of `modes`. */
export const ChaosSettings = Strict({
  percent: Type.Number({ minimum: 0, maximum: 100 }),
  modes: Type.Optional(Type.Array(StringEnum(CHAOS_MODES), { minItems: 1 })),
  operations: Type.Optional(Type.Array(StringEnum(OPERATION_NAMES), { minItems: 1 })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 32 - 1 })),
});

/** A bank outage window: payouts to an IFSC prefix (and payment method) refused, held or Unknown while it lasts. */
export const OutageWindow = Strict({
  name: Type.Optional(Type.String({ minLength: 1 })),
  bank: Type.String({ pattern: '^[A-Z]{4}$', description: "the IFSC's first four letters, e.g. HDFC" }),
  payment_method: Type.Optional(StringEnum(PAYMENT_METHODS)),
  from: Type.Optional(Type.String({ format: 'date-time' })),
  to: Type.Optional(Type.String({ format: 'date-time' })),
  for: Type.Optional(Duration()),
  effect: StringEnum(OUTAGE_EFFECTS),
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
    /** Every new payout is invisible to the status check for this long (a rule's `lag` wins). */
    visibility_lag: Type.Optional(Duration()),
    rules: Type.Optional(Type.Array(PayoutRule)),
  }),
  /** Faults of any operation of the emulated API (see operation-faults.ts). */
  faults: Type.Optional(Type.Array(OperationFaultRule)),
  /** Seeded chaos for every merchant without chaos of its own. */
  chaos: Type.Optional(ChaosSettings),
  /** Bank outage windows. */
  outages: Type.Optional(Type.Array(OutageWindow)),
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
  /** How the integration review judges (docs/review.md). */
  review: Type.Optional(
    Strict({
      /** A payment made again within this long after the first succeeded is judged a double payout (double-payout-after-success). */
      repeat_window: Type.Optional(Duration()),
    }),
  ),
  /** Which reading of the reference's field rules requests are checked by, where it can be read two ways. */
  validation: Type.Optional(
    Strict({
      /** The reference's "alphanumeric only" on initialize and create beneficiary. */
      beneficiary_name: Type.Optional(
        StringEnum(BENEFICIARY_NAME_RULES, {
          description:
            'alphanumeric-and-spaces (the default: letters, digits and spaces) or alphanumeric (letters and digits only, as the reference writes it)',
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
      /** An endpoint whose genuine deliveries kept failing this long (the merchant's clock) with none succeeding is disabled. */
      disable_after: Type.Optional(Duration()),
      chaos: Type.Optional(WebhookChaos),
    }),
  ),
});
export type ScenarioFile = Static<typeof ScenarioSchema>;
export type PayoutRuleFile = Static<typeof PayoutRule>;
export type PayoutMatchFile = Static<typeof PayoutMatch>;
export type WebhookChaos = Static<typeof WebhookChaos>;

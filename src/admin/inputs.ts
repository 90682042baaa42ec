import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { Nullable, Rupees, StringEnum } from '../contract/kit.js';
import { inputParser } from '../contract/parse.js';
import { DURATION_FORMS, DURATION_PATTERN } from '../duration.js';
import { COVERAGE_GROUPS } from '../observe/catalogue.js';
import { FINDINGS_PAGE } from '../observe/review/report.js';
import { RANGES } from '../sandbox/config.js';
import { SCENARIO_NAME_PATTERN } from '../sandbox/scenario-files.js';
import { ACCOUNT_STATUSES, CHECKOUT_STATUSES, PAYMENT_METHODS, PAYOUT_STATUSES, WEBHOOK_VERSIONS } from '../vocab.js';
import { HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from '../webhooks/targets.js';

/**
 * The control API's inputs, declared once: each schema validates the request body (the Admin
 * parses its own input with it, so the control API and the in-process handle refuse the same
 * input with the same message), types the Admin's methods (`Static`), and describes the route in
 * the control API's OpenAPI document. Every input is closed: an unknown field is refused, named.
 */
const input = <P extends TProperties>(properties: P, description: string): TObject<P> => Type.Object(properties, { additionalProperties: false, description });

/** The same rule as the CLI's --webhook-url: http or https, absolute. */
const WebhookUrl = Type.String({ pattern: HTTP_URL_PATTERN, 'x-message': HTTP_URL_MESSAGE });
const Duration = Type.String({ pattern: DURATION_PATTERN, 'x-message': `must be ${DURATION_FORMS}.` });
const Amount = Type.Number({ exclusiveMinimum: 0, 'x-decimals': 2 });

export const AdvanceClockBody = input({ by: Duration }, 'How far to move the clock.');
export type AdvanceClockBody = Static<typeof AdvanceClockBody>;

export const CreateCheckoutBody = input(
  {
    merchant_id: Type.String({ minLength: 1 }),
    amount: Amount,
    payment_mode: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    product_name: Type.Optional(Type.String({ maxLength: 200 })),
    customer: Type.Optional(
      Type.Object(
        { name: Type.Optional(Type.String()), email_id: Type.Optional(Type.String()), mobile_no: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
    ),
    custom_fields: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
  },
  'An Initialized checkout transaction of a merchant (amount in rupees).',
);
export type NewCheckoutInput = Static<typeof CreateCheckoutBody>;

const Terms = {
  fees: Type.Optional(
    Type.Object({ '1001': Type.Optional(Rupees()), '1002': Type.Optional(Rupees()), '1003': Type.Optional(Rupees()) }, { additionalProperties: false }),
  ),
  tax_rate_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  per_transaction_limit: Type.Optional(Amount),
  webhook_url: Type.Optional(Nullable(WebhookUrl)),
  webhook_version: Type.Optional(Type.Union([StringEnum(WEBHOOK_VERSIONS), Type.Null()])),
};

export const CreateMerchantBody = input(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    email: Type.Optional(Type.String({ format: 'email' })),
    balance: Type.Optional(Rupees()),
    ...Terms,
    clock: Type.Optional(
      Type.Object(
        {
          mode: Type.Optional(StringEnum(['real', 'manual'] as const)),
          start: Type.Optional(
            Type.String({ format: 'date-time', 'x-message': 'must be an ISO date and time with its offset, e.g. 2026-01-01T09:00:00+05:30.' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  'A new isolated merchant with one funded ACTIVE VAN (money in rupees); `clock` gives it a clock of its own.',
);
export type NewMerchantInput = Static<typeof CreateMerchantBody>;

export const PatchMerchantBody = input(
  { webhook_url: Terms.webhook_url, webhook_version: Terms.webhook_version, per_transaction_limit: Terms.per_transaction_limit },
  'Changes a merchant: `null` (or "") clears its webhook URL or version.',
);
export type MerchantPatchInput = Static<typeof PatchMerchantBody>;

export const AddAccountBody = input(
  { balance: Type.Optional(Rupees()), status: Type.Optional(StringEnum(ACCOUNT_STATUSES)) },
  'Another VAN of the merchant: its opening balance in rupees (default 1,000,000) and status (default ACTIVE).',
);
export type AddAccountInput = Static<typeof AddAccountBody>;

export const CreditBody = input({ amount: Amount }, 'Funds added to the account, in rupees.');
export type CreditInput = Static<typeof CreditBody>;

export const AccountStatusBody = input({ status: StringEnum(ACCOUNT_STATUSES) }, "The account's status.");
export type AccountStatusInput = Static<typeof AccountStatusBody>;

export const PayoutStatusBody = input(
  { status: StringEnum(PAYOUT_STATUSES), bank_res_msg: Type.Optional(Type.String({ maxLength: 200 })) },
  'A forced transition (webhook and refunds as usual).',
);
export type PayoutStatusInput = Static<typeof PayoutStatusBody>;

export const BeneficiaryStatusBody = input({ status: StringEnum(['Active'] as const) }, 'Activates a Pending beneficiary.');
export type BeneficiaryStatusInput = Static<typeof BeneficiaryStatusBody>;

export const CheckoutStatusBody = input({ status: StringEnum(CHECKOUT_STATUSES) }, "A checkout transaction's forced status.");
export type CheckoutStatusInput = Static<typeof CheckoutStatusBody>;

export const ScenarioBody = input(
  {
    name: Type.Optional(Type.String({ pattern: SCENARIO_NAME_PATTERN, 'x-message': 'must name a file in scenarios/ (letters, digits, - and _).' })),
    scenario: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  'The scenario to put in force: a file of scenarios/ by name, or one given whole.',
);
export type ScenarioChoice = Static<typeof ScenarioBody>;

export const SnapshotBody = input(
  { name: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', 'x-message': 'must be 1 to 64 letters, digits, dots, dashes or underscores.' }) },
  'A snapshot name.',
);
export type SnapshotInput = Static<typeof SnapshotBody>;

export const RetentionBody = input(
  { max_deliveries_per_merchant: Type.Integer({ minimum: RANGES.maxDeliveriesPerMerchant.min, maximum: RANGES.maxDeliveriesPerMerchant.max }) },
  'How many finished webhook deliveries each merchant keeps.',
);
export type RetentionInput = Static<typeof RetentionBody>;

/** Query strings (every value a string on the wire; numbers are read as numbers). */
const Limit = (max: number) => Type.Optional(Type.Integer({ minimum: 1, maximum: max }));

export const PayoutsQuery = input(
  {
    status: Type.Optional(StringEnum(PAYOUT_STATUSES)),
    mode: Type.Optional(StringEnum(PAYMENT_METHODS)),
    van: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    limit: Limit(200),
    cursor: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  "A page of a merchant's payouts, newest first: filters, page size, and where the previous page ended (its `next`).",
);
export type PayoutsQuery = Static<typeof PayoutsQuery>;

export const DeliveriesQuery = input(
  {
    ref_id: Type.Optional(Type.String({ minLength: 1 })),
    merchant_id: Type.Optional(Type.String({ minLength: 1 })),
    delivery_id: Type.Optional(Type.String({ minLength: 1 })),
    limit: Limit(1000),
  },
  'Webhook deliveries, newest first: of one payout, or one merchant; `delivery_id`: the delivery a receiver saw under that X-Sandbox-Delivery-Id, with its duplicate and replay copies.',
);
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const RequestsQuery = input(
  {
    merchant_id: Type.Optional(Type.String({ minLength: 1 })),
    refused: Type.Optional(StringEnum(['true', 'false'] as const)),
    include: Type.Optional(StringEnum(['control'] as const)),
    limit: Limit(100_000),
  },
  "The request journal, newest first: the emulated API's requests (`include=control`: the control API's and the dashboard's too); `refused=true`: only those answered 400 and up; of one merchant.",
);
export type RequestsQuery = Static<typeof RequestsQuery>;

export const COVERAGE_FORMATS = ['json', 'markdown', 'junit'] as const;
const COVERAGE_GROUP_NAMES = COVERAGE_GROUPS.map((g) => `${g.replace(/ /g, '[- ]')}`).join('|');
export const CoverageQuery = input(
  {
    format: Type.Optional(StringEnum(COVERAGE_FORMATS)),
    uncovered: Type.Optional(StringEnum(['failed', 'failure', 'skipped'] as const)),
    ignore: Type.Optional(
      Type.String({
        pattern: `^((${COVERAGE_GROUP_NAMES})(,|$))+$`,
        'x-message': `must be groups of the coverage catalogue, comma-separated: ${COVERAGE_GROUPS.map((g) => g.replace(/ /g, '-')).join(', ')}.`,
      }),
    ),
    min: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  },
  'The coverage report as JSON, Markdown or JUnit (`uncovered`: how JUnit reports an uncovered behaviour; `ignore`: groups left out, comma-separated; `min`: the gate, a percentage: under it the answer is HTTP 422 with the report).',
);
export type CoverageQuery = Static<typeof CoverageQuery>;

export const REVIEW_FORMATS = ['json', 'markdown', 'junit'] as const;
export const ReviewQuery = input(
  {
    format: Type.Optional(StringEnum(REVIEW_FORMATS)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FINDINGS_PAGE.max })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    fail_on: Type.Optional(StringEnum(['high', 'medium', 'low', 'unproven'] as const)),
  },
  `The integration review as JSON, Markdown or JUnit (one test case per merchant and rule); the JSON lists findings from \`offset\`, \`limit\` of them (default ${FINDINGS_PAGE.default}); \`fail_on\`: the gate, as --review-fail-on: a finding at or above it (unproven: or a high rule not proven) answers HTTP 422 with the report.`,
);

const strict = { strict: true };

/** The parsers the Admin runs on its input: a RequestError 400 naming the first wrong field. */
export const parse = {
  advance: inputParser(AdvanceClockBody, strict),
  checkout: inputParser(CreateCheckoutBody, strict),
  merchant: inputParser(CreateMerchantBody, strict),
  patchMerchant: inputParser(PatchMerchantBody, strict),
  credit: inputParser(CreditBody, strict),
  addAccount: inputParser(AddAccountBody, strict),
  accountStatus: inputParser(AccountStatusBody, strict),
  payoutStatus: inputParser(PayoutStatusBody, strict),
  beneficiaryStatus: inputParser(BeneficiaryStatusBody, strict),
  checkoutStatus: inputParser(CheckoutStatusBody, strict),
  scenario: inputParser(ScenarioBody, strict),
  snapshot: inputParser(SnapshotBody, strict),
  retention: inputParser(RetentionBody, strict),
  payoutsQuery: inputParser(PayoutsQuery, strict),
  deliveriesQuery: inputParser(DeliveriesQuery, strict),
  requestsQuery: inputParser(RequestsQuery, strict),
  coverageQuery: inputParser(CoverageQuery, strict),
  reviewQuery: inputParser(ReviewQuery, strict),
};

/** A plain value given in-process where the control API takes a body: as that body. */
export function bodyOf(value: unknown, field: string): unknown {
  return typeof value === 'object' && value !== null ? value : { [field]: value };
}

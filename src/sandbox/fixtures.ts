import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Rupees, StringEnum } from '../contract/kit.js';
import { schemaErrors } from '../contract/validate.js';
import { merchantRecord, openAccount } from '../domain/merchants.js';
import { readDocument } from '../input-file.js';
import { toPaise } from '../money.js';
import { sliceOf } from '../store/slices.js';
import { emptyState, type State } from '../store/state.js';
import { ACCOUNT_STATUSES, BENEFICIARY_STATUSES, CHECKOUT_STATUSES, PAYMENT_METHODS, VERIFICATION_TYPES, WEBHOOK_VERSIONS } from '../vocab.js';
import { unsendable } from '../webhooks/targets.js';
import { secretRule } from './secrets.js';
import { type RupeeTerms, termsInPaise } from './terms.js';

const AddressFixture = Type.Object(
  {
    address: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
    country: Nullable(Type.String()),
    pincode: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const CheckoutFixture = Type.Object(
  {
    payment_id: Type.String({ pattern: '^[A-Za-z0-9_-]{6,40}$' }),
    status: StringEnum(CHECKOUT_STATUSES),
    payment_mode: Type.String(),
    rrn: Type.String(),
    order: Type.Object(
      {
        order_id: Type.String({ minLength: 1 }),
        product_name: Type.String(),
        gross_amount: Rupees(),
        gateway_fee: Rupees(),
        currency: Type.String({ minLength: 3, maxLength: 3 }),
        tax: Rupees(),
      },
      { additionalProperties: false },
    ),
    customer: Type.Object({ name: Type.String(), email_id: Type.String(), mobile_no: Type.String() }, { additionalProperties: false }),
    shipping: AddressFixture,
    billing: AddressFixture,
    custom_fields: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const MerchantFixture = Type.Object(
  {
    merchant_id: Type.String({ pattern: '^[A-Za-z0-9_-]{4,40}$' }),
    name: Type.String({ minLength: 1 }),
    email: Type.String({ format: 'email' }),
    api_key: Type.String(secretRule(8)),
    api_secret: Type.String(secretRule(8)),
    access_token: Type.String(secretRule(8)),
    fees: Type.Object(Object.fromEntries(PAYMENT_METHODS.map((m) => [m, Rupees()])) as Record<(typeof PAYMENT_METHODS)[number], ReturnType<typeof Rupees>>, {
      additionalProperties: false,
    }),
    tax_rate_percent: Type.Number({ minimum: 0, maximum: 100 }),
    /** Commission per verification type in rupees; a type left out costs the default (domain/merchants.ts). */
    verification_charges: Type.Optional(
      Type.Object(Object.fromEntries(VERIFICATION_TYPES.map((t) => [t, Type.Optional(Rupees())])), {
        additionalProperties: false,
      }),
    ),
    per_transaction_limit: Type.Optional(Rupees({ exclusiveMinimum: 0 })),
    webhook_url: Type.Optional(Type.Union([Type.String({ format: 'uri' }), Type.Null()])),
    webhook_version: Type.Optional(Nullable(StringEnum(WEBHOOK_VERSIONS))),
    accounts: Type.Array(
      Type.Object(
        {
          account_no: Type.String({ minLength: 20, maxLength: 20, pattern: '^[A-Z0-9]{20}$' }),
          status: StringEnum(ACCOUNT_STATUSES),
          balance: Rupees(),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
    beneficiaries: Type.Optional(
      Type.Array(
        Type.Object(
          {
            bene_id: Type.String({ pattern: '^[A-Z0-9]{20}$' }),
            name: Type.String({ pattern: '^[A-Za-z0-9 ]+$' }),
            email: Type.String({ format: 'email' }),
            mobile_no: Type.String({ pattern: '^[0-9]{10}$' }),
            bank_name: Type.String(),
            account_number: Type.String({ pattern: '^[0-9]{9,18}$' }),
            ifsc_code: Type.String({ pattern: '^[A-Z]{4}0[A-Z0-9]{6}$' }),
            status: StringEnum(BENEFICIARY_STATUSES),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    checkout_transactions: Type.Optional(Type.Array(CheckoutFixture)),
  },
  { additionalProperties: false },
);

export const FixturesSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    merchants: Type.Array(MerchantFixture, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type Fixtures = Static<typeof FixturesSchema>;

export class FixturesError extends Error {}

/** Reads and validates a fixtures file; every problem names the file, the field and the rule. */
export async function loadFixtures(file: string): Promise<Fixtures> {
  const { value, verified } = await readDocument(file, 'fixtures', (m) => new FixturesError(m), { yaml: false });
  return verified ? (value as Fixtures) : fixturesFromValue(value, file);
}

/** Checks fixtures (from a file, or given in-process): the schema, then what it cannot say. */
export function fixturesFromValue(value: unknown, source: string): Fixtures {
  const problems = schemaErrors(FixturesSchema, value) ?? crossRecordProblems(value as Fixtures);
  if (problems.length > 0) throw new FixturesError(problems.map((p) => `${source}: ${p}`).join('\n'));
  return value as Fixtures;
}

function crossRecordProblems(f: Fixtures): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const unique = (kind: string, key: string, path: string) => {
    const k = `${kind}\u0000${key.toLowerCase()}`;
    const first = seen.get(k);
    if (first !== undefined) problems.push(`${path}: must be unique (${kind} "${key}" is also at ${first})`);
    else seen.set(k, path);
  };
  f.merchants.forEach((m, i) => {
    const at = `/merchants/${i}`;
    unique('merchant_id', m.merchant_id, `${at}/merchant_id`);
    unique('email', m.email, `${at}/email`);
    unique('api_key', m.api_key, `${at}/api_key`);
    unique('access_token', m.access_token, `${at}/access_token`);
    const unfit = m.webhook_url ? unsendable(m.webhook_url) : null;
    if (unfit !== null) problems.push(`${at}/webhook_url: cannot be sent to: ${unfit}`);
    for (const [j, a] of m.accounts.entries()) unique('account_no', a.account_no, `${at}/accounts/${j}/account_no`);
    for (const [j, b] of (m.beneficiaries ?? []).entries()) unique('bene_id', b.bene_id, `${at}/beneficiaries/${j}/bene_id`);
    for (const [j, t] of (m.checkout_transactions ?? []).entries()) unique('payment_id', t.payment_id, `${at}/checkout_transactions/${j}/payment_id`);
  });
  return problems;
}

/** The state of a new store: the fixtures' records, each opening balance posted as a credit. */
export function stateFromFixtures(f: Fixtures, now: number): State {
  const state = emptyState();
  for (const m of f.merchants) {
    const identity = { merchant_id: m.merchant_id, name: m.name, email: m.email, api_key: m.api_key, api_secret: m.api_secret, access_token: m.access_token };
    const merchant = merchantRecord(identity, termsInPaise({ ...m, verification_charges: m.verification_charges as RupeeTerms['verification_charges'] }));
    state.merchants[merchant.merchant_id] = merchant;
    for (const a of m.accounts) {
      state.accounts[a.account_no] = openAccount(a.account_no, m.merchant_id, a.status, toPaise(a.balance), now, 'opening balance (fixtures)');
    }
    for (const b of m.beneficiaries ?? []) {
      state.beneficiaries[b.bene_id] = {
        bene_id: b.bene_id,
        merchant_id: m.merchant_id,
        bene_name: b.name,
        bene_email: b.email,
        bene_mobile_no: b.mobile_no,
        bank_name: b.bank_name,
        bank_account_number: b.account_number,
        ifsc_code: b.ifsc_code,
        vpa_address: null,
        status: b.status,
        created_at: now,
        activates_at: null,
      };
    }
    for (const t of m.checkout_transactions ?? []) {
      const custom = [...(t.custom_fields ?? [])];
      while (custom.length < 5) custom.push('');
      state.checkout_transactions[t.payment_id] = {
        payment_id: t.payment_id,
        merchant_id: m.merchant_id,
        status: t.status,
        payment_mode: t.payment_mode,
        rrn: t.rrn,
        order: {
          ...t.order,
          gross_amount: toPaise(t.order.gross_amount),
          gateway_fee: toPaise(t.order.gateway_fee),
          tax: toPaise(t.order.tax),
        },
        customer: { ...t.customer },
        shipping: { ...t.shipping },
        billing: { ...t.billing },
        custom_fields: custom as [string, string, string, string, string],
        created_at: Date.parse(t.created_at),
        next_step: null,
      };
    }
  }
  // What a merchant's reset goes back to.
  for (const m of f.merchants) (state.origins ??= {})[m.merchant_id] = sliceOf(state, m.merchant_id);
  return state;
}

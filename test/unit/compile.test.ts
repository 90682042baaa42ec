import { compileScenario } from '../../src/scenario/compile.js';
import { scenarioFromValue } from '../../src/scenario/scenario.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { NO_CHAOS, type PayoutRule, ScenarioError } from '../../src/scenario/types.js';
import { VERIFICATION_TYPES } from '../../src/vocab.js';

/** A checked scenario file → the compiled scenario: defaults filled, durations in ms, amounts in paise. */

const NO_CHAOS_AT_START = structuredClone(NO_CHAOS);

type RuleFile = NonNullable<ScenarioFile['payouts']['rules']>[number];

const file = (rules: RuleFile[], payouts: Partial<ScenarioFile['payouts']> = {}): ScenarioFile => ({
  name: 'unit',
  payouts: { default_timeline: [{ after: '5s', status: 'Success', bank_res_msg: 'ok' }], rules, ...payouts },
});

const onlyRule = (r: RuleFile): PayoutRule => compileScenario(file([r]), null).payouts.rules[0];

function refusal(f: ScenarioFile, source: string | null = null): string {
  try {
    compileScenario(f, source);
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return (e as Error).message;
  }
  throw new Error('compiled without a refusal');
}

test('the smallest scenario: every default', () => {
  const s = compileScenario({ name: 'min', payouts: { default_timeline: [] } }, null);
  const { name, source, payouts, beneficiaries, checkout, verification, validation, limits } = s;
  const { retryScheduleMs, timeoutMs, chaos } = s.webhooks;
  expect({ name, source, payouts, beneficiaries, checkout, verification, validation, limits, webhooks: { retryScheduleMs, timeoutMs, chaos } }).toEqual({
    name: 'min',
    source: null,
    payouts: { defaultPlan: { rule: 'default', initialStatus: 'Pending', steps: [] }, rules: [] },
    beneficiaries: { activationDelayMs: 10_000, rules: [] },
    checkout: { defaultTimeline: [{ afterMs: 30_000, status: 'Success' }], rules: [] },
    verification: { invalid: Object.fromEntries(VERIFICATION_TYPES.map((t) => [t, new Set()])) },
    validation: { beneficiaryName: 'alphanumeric-and-spaces' },
    limits: { status_check: { limit: 3, windowMs: 60_000 }, balance_check: { limit: 10, windowMs: 60_000 } },
    webhooks: { retryScheduleMs: [10_000, 60_000, 300_000, 1_800_000, 7_200_000], timeoutMs: 5_000, chaos: NO_CHAOS },
  });
});

test('the source is kept', () => {
  expect(compileScenario(file([]), 'scenarios/x.json').source).toBe('scenarios/x.json');
});

test('validation as given: the literal reading of "alphanumeric only" for beneficiary_name', () => {
  const s = compileScenario({ name: 'strict', payouts: { default_timeline: [] }, validation: { beneficiary_name: 'alphanumeric' } }, null);
  expect(s.validation).toEqual({ beneficiaryName: 'alphanumeric' });
  expect(compileScenario({ name: 'empty', payouts: { default_timeline: [] }, validation: {} }, null).validation).toEqual({
    beneficiaryName: 'alphanumeric-and-spaces',
  });
  expect(() => scenarioFromValue({ name: 'typo', payouts: { default_timeline: [] }, validation: { beneficiary_name: 'letters' } }, 'typo.json')).toThrow(
    'typo.json: /validation/beneficiary_name: must be one of alphanumeric-and-spaces, alphanumeric',
  );
});

test('durations, limits, webhooks and verification as given', () => {
  const s = compileScenario(
    {
      name: 'given',
      payouts: {
        initial_status: 'NEW',
        default_timeline: [
          { after: '1.5m', status: 'Unknown' },
          { after: '1d', status: 'Failed', bank_res_msg: 'Bank down' },
        ],
      },
      beneficiaries: { activation_delay: '0s' },
      limits: { status_check: { limit: 1, window: '1s' }, balance_check: { limit: 100, window: '1h' } },
      webhooks: { retry_schedule: [], timeout: '250ms', chaos: { duplicate: 0.5, delay: '2s' } },
      verification: { invalid: { PAN: ['ABCDE1234F', 'ABCDE1234F'], BANK: ['000'] } },
    },
    null,
  );
  expect(s.payouts.defaultPlan).toEqual({
    rule: 'default',
    initialStatus: 'NEW',
    steps: [
      { afterMs: 90_000, status: 'Unknown' },
      { afterMs: 86_400_000, status: 'Failed', bank_res_msg: 'Bank down' },
    ],
  });
  expect(s.beneficiaries.activationDelayMs).toBe(0);
  expect(s.limits).toEqual({ status_check: { limit: 1, windowMs: 1_000 }, balance_check: { limit: 100, windowMs: 3_600_000 } });
  expect(s.webhooks.retryScheduleMs).toEqual([]);
  expect(s.webhooks.timeoutMs).toBe(250);
  // The scenario's chaos over the defaults: only what it gives changes.
  expect(s.webhooks.chaos).toEqual({ ...NO_CHAOS_AT_START, duplicate: 0.5, delayMs: 2_000 });
  expect([...s.verification.invalid.PAN]).toEqual(['ABCDE1234F']);
  expect([...s.verification.invalid.BANK]).toEqual(['000']);
  expect(s.verification.invalid.GSTIN.size).toBe(0);
  // The shared default is not changed by a scenario's chaos.
  expect(NO_CHAOS).toEqual(NO_CHAOS_AT_START);
  expect(NO_CHAOS).toMatchObject({ duplicate: 0, reorder: false, delayMs: 0, wrongSignature: 0 });
});

describe('payout rules', () => {
  test('amounts in rupees become paise ranges: a number is exact, a missing end is open', () => {
    const m = (amount: RuleFile['match']['amount']) => onlyRule({ name: 'r', match: { amount }, timeline: [] }).match.amount;
    expect(m(1001.01)).toEqual({ min: 100_101, max: 100_101 });
    expect(m(0.29)).toEqual({ min: 29, max: 29 });
    expect(m({ min: 10, max: 20.5 })).toEqual({ min: 1_000, max: 2_050 });
    expect(m({ min: 10 })).toEqual({ min: 1_000, max: Number.MAX_SAFE_INTEGER });
    expect(m({ max: 20 })).toEqual({ min: 0, max: 2_000 });
    expect(m({})).toEqual({ min: 0, max: Number.MAX_SAFE_INTEGER });
    expect(m(undefined)).toBeUndefined();
  });

  test('one payment method becomes a list; the beneficiary name is lower-cased; the rest as given', () => {
    expect(
      onlyRule({
        name: 'r',
        match: {
          payment_method: '1002',
          beneficiary_name: 'Payee ONE',
          account_number: '0001',
          ifsc_code: 'SBIN0000001',
          client_ref_id_prefix: 'Fail',
          share: 0.3,
        },
        timeline: [],
      }).match,
    ).toEqual({
      amount: undefined,
      payment_method: ['1002'],
      beneficiary_name: 'payee one',
      account_number: '0001',
      ifsc_code: 'SBIN0000001',
      client_ref_id_prefix: 'Fail',
      share: 0.3,
    });
    expect(onlyRule({ name: 'r', match: { payment_method: ['1001', '1003'] }, timeline: [] }).match.payment_method).toEqual(['1001', '1003']);
  });

  test("a timeline rule: its own steps, and the file's initial status unless it says its own", () => {
    const s = compileScenario(
      file(
        [
          { name: 'own', match: {}, timeline: [{ after: '1s', status: 'Failed', bank_res_msg: 'no' }] },
          { name: 'pending', match: {}, initial_status: 'Pending', timeline: [] },
        ],
        { initial_status: 'NEW' },
      ),
      null,
    );
    expect(s.payouts.rules.map((r) => r.outcome)).toEqual([
      { kind: 'timeline', plan: { rule: 'own', initialStatus: 'NEW', steps: [{ afterMs: 1_000, status: 'Failed', bank_res_msg: 'no' }] } },
      { kind: 'timeline', plan: { rule: 'pending', initialStatus: 'Pending', steps: [] } },
    ]);
    expect(s.payouts.rules.map((r) => [r.name, r.description, r.chaos])).toEqual([
      ['own', '', null],
      ['pending', '', null],
    ]);
  });

  test("a reject: its code and the code's default message, or its own", () => {
    expect(onlyRule({ name: 'r', match: {}, reject: { code: 'INSUFFICIENT_BALANCE' } }).outcome).toEqual({
      kind: 'reject',
      code: 'INSUFFICIENT_BALANCE',
      message: 'Insufficient balance in the account.',
    });
    expect(onlyRule({ name: 'r', match: {}, reject: { code: 'GENERIC_EXCEPTION', message: 'Nope.' } }).outcome).toEqual({
      kind: 'reject',
      code: 'GENERIC_EXCEPTION',
      message: 'Nope.',
    });
  });

  test('an error fault: its HTTP status and the transport message for it (500 for any status without one of its own)', () => {
    const fault = (http_code: number, message?: string) =>
      onlyRule({ name: 'f', match: {}, fault: { type: 'error', http_code, create: false, ...(message ? { message } : {}) } }).outcome;
    expect(fault(500)).toEqual({
      kind: 'fault',
      fault: { type: 'error', httpCode: 500, message: 'Something went wrong on our side. Please try again.', delayMs: 0, create: false },
      plan: { rule: 'f', initialStatus: 'Pending', steps: [{ afterMs: 5_000, status: 'Success', bank_res_msg: 'ok' }] },
    });
    expect(fault(503)).toMatchObject({ fault: { httpCode: 503, message: 'Service temporarily unavailable. Please try again later.' } });
    expect(fault(502)).toMatchObject({ fault: { httpCode: 502, message: 'Something went wrong on our side. Please try again.' } });
    expect(fault(429, 'Slow down')).toMatchObject({ fault: { httpCode: 429, message: 'Slow down' } });
  });

  test('a delay fault answers 200 after its delay; a drop answers nothing (0); both with an empty message; a timeline beside a fault is the plan', () => {
    expect(onlyRule({ name: 'd', match: {}, fault: { type: 'delay', delay: '30s', create: true } }).outcome).toEqual({
      kind: 'fault',
      fault: { type: 'delay', httpCode: 200, message: '', delayMs: 30_000, create: true },
      plan: { rule: 'd', initialStatus: 'Pending', steps: [{ afterMs: 5_000, status: 'Success', bank_res_msg: 'ok' }] },
    });
    expect(onlyRule({ name: 'x', match: {}, fault: { type: 'drop', create: true }, timeline: [{ after: '1h', status: 'Unknown' }] }).outcome).toEqual({
      kind: 'fault',
      fault: { type: 'drop', httpCode: 0, message: '', delayMs: 0, create: true },
      plan: { rule: 'x', initialStatus: 'Pending', steps: [{ afterMs: 3_600_000, status: 'Unknown' }] },
    });
  });

  test("a rule's webhook chaos: only the keys it gives, the delay in ms", () => {
    expect(onlyRule({ name: 'c', match: {}, timeline: [], webhooks: { reorder: true, delay: '1m', wrong_signature: 1 } }).chaos).toEqual({
      reorder: true,
      delayMs: 60_000,
      wrongSignature: 1,
    });
    expect(onlyRule({ name: 'c', match: {}, timeline: [], webhooks: {} }).chaos).toEqual({});
  });

  test('the description is kept', () => {
    expect(onlyRule({ name: 'r', description: 'why', match: {}, timeline: [] }).description).toBe('why');
  });
});

describe('refusals: what the schema cannot say, each naming its path, all at once', () => {
  test.each<[string, RuleFile, string]>([
    [
      'no outcome',
      { name: 'r', match: {} },
      "/payouts/rules/0: must have exactly one of reject, timeline or fault (a fault may also carry the created payout's timeline)",
    ],
    [
      'reject and timeline',
      { name: 'r', match: {}, reject: { code: 'GENERIC_EXCEPTION' }, timeline: [] },
      "/payouts/rules/0: must have exactly one of reject, timeline or fault (a fault may also carry the created payout's timeline)",
    ],
    [
      'reject and fault',
      { name: 'r', match: {}, reject: { code: 'GENERIC_EXCEPTION' }, fault: { type: 'error', http_code: 500, create: false } },
      "/payouts/rules/0: must have exactly one of reject, timeline or fault (a fault may also carry the created payout's timeline)",
    ],
    [
      'an error fault without http_code',
      { name: 'r', match: {}, fault: { type: 'error', create: true } },
      '/payouts/rules/0/fault/http_code: is required for an error fault',
    ],
    [
      'a delay fault without delay',
      { name: 'r', match: {}, fault: { type: 'delay', create: true } },
      '/payouts/rules/0/fault/delay: is required for a delay fault',
    ],
    [
      'a delay fault that creates nothing',
      { name: 'r', match: {}, fault: { type: 'delay', delay: '1s', create: false } },
      '/payouts/rules/0/fault/create: a delay fault must create the payout',
    ],
    [
      'a drop fault that creates nothing',
      { name: 'r', match: {}, fault: { type: 'drop', create: false } },
      '/payouts/rules/0/fault/create: a drop fault must create the payout',
    ],
    [
      'a reject with an initial status',
      { name: 'r', match: {}, reject: { code: 'GENERIC_EXCEPTION' }, initial_status: 'NEW' },
      '/payouts/rules/0/initial_status: a rejection creates no payout',
    ],
  ])('%s', (_what, r, problem) => {
    expect(refusal(file([r]))).toBe(`scenario: ${problem}`);
  });

  test('reject, timeline and fault together are refused (a fault takes a timeline, nothing else)', () => {
    expect(
      refusal(file([{ name: 'r', match: {}, reject: { code: 'GENERIC_EXCEPTION' }, timeline: [], fault: { type: 'error', http_code: 500, create: true } }])),
    ).toBe("scenario: /payouts/rules/0: must have exactly one of reject, timeline or fault (a fault may also carry the created payout's timeline)");
  });

  test('an error fault may create the payout', () => {
    expect(onlyRule({ name: 'r', match: {}, fault: { type: 'error', http_code: 500, create: true } }).outcome).toMatchObject({
      kind: 'fault',
      fault: { create: true },
    });
  });

  test('a rule name used twice; every problem of every rule, in order, each prefixed with the source', () => {
    expect(
      refusal(
        file([
          { name: 'a', match: {}, timeline: [] },
          { name: 'b', match: {}, fault: { type: 'delay', create: false } },
          { name: 'a', match: {}, timeline: [] },
        ]),
        'scenarios/mine.yaml',
      ),
    ).toBe(
      [
        'scenarios/mine.yaml: /payouts/rules/1/fault/delay: is required for a delay fault',
        'scenarios/mine.yaml: /payouts/rules/1/fault/create: a delay fault must create the payout',
        'scenarios/mine.yaml: /payouts/rules/2/name: must be unique ("a" is used twice)',
      ].join('\n'),
    );
  });
});

describe('beneficiaries and checkout', () => {
  test('beneficiary rules: the name lower-cased, never → null', () => {
    const s = compileScenario(
      {
        ...file([]),
        beneficiaries: {
          activation_delay: '24h',
          rules: [
            { name: 'stuck', match: { account_number: '000' }, activation: 'never' },
            { name: 'quick', match: { beneficiary_name: 'Quick Payee', ifsc_code: 'SBIN0000001' }, activation: '500ms' },
          ],
        },
      },
      null,
    );
    expect(s.beneficiaries).toEqual({
      activationDelayMs: 86_400_000,
      rules: [
        { name: 'stuck', match: { account_number: '000' }, activationMs: null },
        { name: 'quick', match: { beneficiary_name: 'quick payee', ifsc_code: 'SBIN0000001' }, activationMs: 500 },
      ],
    });
  });

  test('checkout: the default timeline and rules with amount ranges in paise', () => {
    const s = compileScenario(
      {
        ...file([]),
        checkout: {
          default_timeline: [{ after: '1s', status: 'Failed' }],
          rules: [{ name: 'drop', match: { amount: { min: 1.5 }, payment_mode: 'UPI' }, timeline: [{ after: '2m', status: 'Dropped' }] }],
        },
      },
      null,
    );
    expect(s.checkout).toEqual({
      defaultTimeline: [{ afterMs: 1_000, status: 'Failed' }],
      rules: [
        {
          name: 'drop',
          match: { amount: { min: 150, max: Number.MAX_SAFE_INTEGER }, payment_mode: 'UPI' },
          timeline: [{ afterMs: 120_000, status: 'Dropped' }],
        },
      ],
    });
  });
});

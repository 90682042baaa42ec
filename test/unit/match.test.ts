import { toPaise } from '../../src/money.js';
import { SandboxRandom } from '../../src/random.js';
import { compileScenario } from '../../src/scenario/compile.js';
import { beneficiaryActivation, checkoutTimeline, matchPayoutRule, type PayoutFacts } from '../../src/scenario/match.js';
import type { PayoutMatcher, PayoutRule, Scenario } from '../../src/scenario/types.js';

/** Which scenario rule decides a payout, a beneficiary's activation, a checkout's timeline. */

function rule(name: string, match: PayoutMatcher): PayoutRule {
  return { name, description: '', match, outcome: { kind: 'timeline', plan: { rule: name, initialStatus: 'Pending', steps: [] } }, chaos: null, story: null };
}

function scenarioWith(rules: PayoutRule[], extra: Partial<Scenario> = {}): Scenario {
  const base = compileScenario({ name: 'unit', payouts: { default_timeline: [] } }, null);
  return { ...base, payouts: { ...base.payouts, rules }, ...extra };
}

const facts = (over: Partial<PayoutFacts> = {}): PayoutFacts => ({
  amount: toPaise(100),
  payment_method: '1001',
  account_number: '123456789012',
  ifsc_code: 'HDFC0001234',
  beneficiary_name: 'Payee One',
  client_ref_id: 'CREF000001',
  ...over,
});

/** A random that answers `answer` and records the shares it was asked about. */
function fixedRandom(answer: boolean) {
  const asked: number[] = [];
  const random = {
    chance: (share: number) => {
      asked.push(share);
      return answer;
    },
  } as unknown as SandboxRandom;
  return { random, asked };
}

const name = (r: PayoutRule | null) => r?.name ?? null;

describe('matchPayoutRule', () => {
  const { random } = fixedRandom(true);

  test('no rules: null; a rule with no keys matches everything', () => {
    expect(matchPayoutRule(scenarioWith([]), facts(), random)).toBeNull();
    expect(name(matchPayoutRule(scenarioWith([rule('any', {})]), facts(), random))).toBe('any');
  });

  test('the amount range includes both ends, in paise', () => {
    const s = scenarioWith([rule('range', { amount: { min: toPaise(100), max: toPaise(200) } })]);
    expect(name(matchPayoutRule(s, facts({ amount: 9_999 }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ amount: 10_000 }), random))).toBe('range');
    expect(name(matchPayoutRule(s, facts({ amount: 15_050 }), random))).toBe('range');
    expect(name(matchPayoutRule(s, facts({ amount: 20_000 }), random))).toBe('range');
    expect(name(matchPayoutRule(s, facts({ amount: 20_001 }), random))).toBeNull();
  });

  test('an exact amount is a range of one value (a magic amount)', () => {
    const s = scenarioWith([rule('magic', { amount: { min: 10_001, max: 10_001 } })]);
    expect(name(matchPayoutRule(s, facts({ amount: 10_001 }), random))).toBe('magic');
    expect(name(matchPayoutRule(s, facts({ amount: 10_000 }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ amount: 10_002 }), random))).toBeNull();
  });

  test('the payment method list: any one of them', () => {
    const s = scenarioWith([rule('neft-rtgs', { payment_method: ['1002', '1003'] })]);
    expect(name(matchPayoutRule(s, facts({ payment_method: '1001' }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ payment_method: '1002' }), random))).toBe('neft-rtgs');
    expect(name(matchPayoutRule(s, facts({ payment_method: '1003' }), random))).toBe('neft-rtgs');
  });

  test('account number and IFSC: exact, case-sensitive', () => {
    const s = scenarioWith([rule('acct', { account_number: '000111222333', ifsc_code: 'SBIN0000001' })]);
    expect(name(matchPayoutRule(s, facts({ account_number: '000111222333', ifsc_code: 'SBIN0000001' }), random))).toBe('acct');
    expect(name(matchPayoutRule(s, facts({ account_number: '000111222333', ifsc_code: 'sbin0000001' }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ account_number: '00011122233', ifsc_code: 'SBIN0000001' }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ account_number: '0001112223334', ifsc_code: 'SBIN0000001' }), random))).toBeNull();
  });

  test("the beneficiary name: the rule's (lower-cased when compiled) against the payout's lower-cased", () => {
    const s = scenarioWith([rule('name', { beneficiary_name: 'payee one' })]);
    expect(name(matchPayoutRule(s, facts({ beneficiary_name: 'Payee One' }), random))).toBe('name');
    expect(name(matchPayoutRule(s, facts({ beneficiary_name: 'PAYEE ONE' }), random))).toBe('name');
    expect(name(matchPayoutRule(s, facts({ beneficiary_name: 'Payee  One' }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ beneficiary_name: 'Payee On' }), random))).toBeNull();
  });

  test('the client_ref_id prefix: starts with, case-sensitive', () => {
    const s = scenarioWith([rule('prefix', { client_ref_id_prefix: 'FAIL-' })]);
    expect(name(matchPayoutRule(s, facts({ client_ref_id: 'FAIL-0001' }), random))).toBe('prefix');
    expect(name(matchPayoutRule(s, facts({ client_ref_id: 'FAIL-' }), random))).toBe('prefix');
    expect(name(matchPayoutRule(s, facts({ client_ref_id: 'fail-0001' }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ client_ref_id: 'X-FAIL-0001' }), random))).toBeNull();
  });

  test('every key of a rule must match', () => {
    const s = scenarioWith([rule('both', { amount: { min: 0, max: 50_000 }, payment_method: ['1003'], client_ref_id_prefix: 'R' })]);
    expect(name(matchPayoutRule(s, facts({ payment_method: '1003', client_ref_id: 'R1' }), random))).toBe('both');
    expect(name(matchPayoutRule(s, facts({ payment_method: '1001', client_ref_id: 'R1' }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ payment_method: '1003', client_ref_id: 'Q1' }), random))).toBeNull();
    expect(name(matchPayoutRule(s, facts({ payment_method: '1003', client_ref_id: 'R1', amount: 50_001 }), random))).toBeNull();
  });

  test('the first matching rule in file order wins', () => {
    const s = scenarioWith([rule('narrow', { amount: { min: 100, max: 100 } }), rule('wide', {}), rule('never-reached', { amount: { min: 100, max: 100 } })]);
    expect(name(matchPayoutRule(s, facts({ amount: 100 }), random))).toBe('narrow');
    expect(name(matchPayoutRule(s, facts({ amount: 101 }), random))).toBe('wide');
  });

  test('share is drawn only once the other keys match, and a lost draw falls through to the next rule', () => {
    const s = scenarioWith([rule('some', { payment_method: ['1002'], share: 0.25 }), rule('rest', {})]);
    const lost = fixedRandom(false);
    expect(name(matchPayoutRule(s, facts({ payment_method: '1001' }), lost.random))).toBe('rest');
    expect(lost.asked).toEqual([]);
    expect(name(matchPayoutRule(s, facts({ payment_method: '1002' }), lost.random))).toBe('rest');
    expect(lost.asked).toEqual([0.25]);
    const won = fixedRandom(true);
    expect(name(matchPayoutRule(s, facts({ payment_method: '1002' }), won.random))).toBe('some');
    expect(won.asked).toEqual([0.25]);
  });

  test('share with the seeded random: 0 never matches and draws nothing; 1 always matches; the draws follow the seed', () => {
    const zero = scenarioWith([rule('none', { share: 0 })]);
    const r = new SandboxRandom(7);
    for (let i = 0; i < 50; i++) expect(matchPayoutRule(zero, facts(), r)).toBeNull();
    // Nothing was drawn: the next id is the seed's first.
    expect(r.digits(10)).toBe(new SandboxRandom(7).digits(10));

    const one = scenarioWith([rule('all', { share: 1 })]);
    const r1 = new SandboxRandom(7);
    for (let i = 0; i < 200; i++) expect(name(matchPayoutRule(one, facts(), r1))).toBe('all');

    const half = scenarioWith([rule('half', { share: 0.5 })]);
    const a = new SandboxRandom(42);
    const b = new SandboxRandom(42);
    const picks = Array.from({ length: 200 }, () => matchPayoutRule(half, facts(), a) !== null);
    expect(picks).toEqual(Array.from({ length: 200 }, () => b.chance(0.5)));
    const hits = picks.filter(Boolean).length;
    expect(hits).toBeGreaterThan(60);
    expect(hits).toBeLessThan(140);
  });
});

describe('beneficiaryActivation', () => {
  const base = compileScenario({ name: 'unit', payouts: { default_timeline: [] }, beneficiaries: { activation_delay: '1h' } }, null);
  const bene = { account_number: '123456789012', ifsc_code: 'HDFC0001234', beneficiary_name: 'Payee One' };

  test("no rule matches: the scenario's delay, as rule 'default'", () => {
    expect(beneficiaryActivation(base, bene)).toEqual({ rule: 'default', delayMs: 3_600_000 });
  });

  test('the first matching rule: its delay, null for never; names compared lower-cased', () => {
    const s: Scenario = {
      ...base,
      beneficiaries: {
        activationDelayMs: 1_000,
        rules: [
          { name: 'stuck', match: { account_number: '000000000000' }, activationMs: null },
          { name: 'slow', match: { beneficiary_name: 'payee one', ifsc_code: 'HDFC0001234' }, activationMs: 86_400_000 },
          { name: 'any', match: {}, activationMs: 5 },
        ],
      },
    };
    expect(beneficiaryActivation(s, { ...bene, account_number: '000000000000' })).toEqual({ rule: 'stuck', delayMs: null });
    expect(beneficiaryActivation(s, { ...bene, beneficiary_name: 'PAYEE ONE' })).toEqual({ rule: 'slow', delayMs: 86_400_000 });
    expect(beneficiaryActivation(s, { ...bene, ifsc_code: 'SBIN0000001' })).toEqual({ rule: 'any', delayMs: 5 });
  });
});

describe('checkoutTimeline', () => {
  const s = compileScenario(
    {
      name: 'unit',
      payouts: { default_timeline: [] },
      checkout: {
        default_timeline: [{ after: '10s', status: 'Success' }],
        rules: [
          { name: 'big-upi', match: { amount: { min: 1000 }, payment_mode: 'UPI' }, timeline: [{ after: '1m', status: 'Failed' }] },
          { name: 'exact', match: { amount: 5 }, timeline: [{ after: '2s', status: 'Dropped' }] },
        ],
      },
    },
    null,
  );

  test('a matching rule: its timeline; otherwise the default', () => {
    expect(checkoutTimeline(s, { amount: toPaise(1000), payment_mode: 'UPI' })).toEqual({ rule: 'big-upi', timeline: [{ afterMs: 60_000, status: 'Failed' }] });
    expect(checkoutTimeline(s, { amount: toPaise(999.99), payment_mode: 'UPI' })).toEqual({
      rule: 'default',
      timeline: [{ afterMs: 10_000, status: 'Success' }],
    });
    expect(checkoutTimeline(s, { amount: toPaise(5000), payment_mode: 'upi' })).toEqual({
      rule: 'default',
      timeline: [{ afterMs: 10_000, status: 'Success' }],
    });
    expect(checkoutTimeline(s, { amount: toPaise(5), payment_mode: 'CARD' })).toEqual({ rule: 'exact', timeline: [{ afterMs: 2_000, status: 'Dropped' }] });
  });
});

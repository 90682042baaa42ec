import type { Paise } from '../money.js';
import type { SandboxRandom } from '../random.js';
import type { PaymentMethod } from '../store/state.js';
import type { PayoutRule, Scenario } from './scenario.js';

/** What a payout rule can match on. */
export interface PayoutFacts {
  amount: Paise;
  payment_method: PaymentMethod;
  account_number: string;
  ifsc_code: string;
  beneficiary_name: string;
  client_ref_id: string;
}

function inRange(amount: Paise, range: { min: Paise; max: Paise } | undefined): boolean {
  return range === undefined || (amount >= range.min && amount <= range.max);
}

/** The first rule, in file order, whose every key matches; `share` draws from the seeded random. */
export function matchPayoutRule(scenario: Scenario, facts: PayoutFacts, random: SandboxRandom): PayoutRule | null {
  for (const rule of scenario.payouts.rules) {
    const m = rule.match;
    if (!inRange(facts.amount, m.amount)) continue;
    if (m.payment_method && !m.payment_method.includes(facts.payment_method)) continue;
    if (m.account_number !== undefined && m.account_number !== facts.account_number) continue;
    if (m.ifsc_code !== undefined && m.ifsc_code !== facts.ifsc_code) continue;
    if (m.beneficiary_name !== undefined && m.beneficiary_name !== facts.beneficiary_name.toLowerCase()) continue;
    if (m.client_ref_id_prefix !== undefined && !facts.client_ref_id.startsWith(m.client_ref_id_prefix)) continue;
    if (m.share !== undefined && !random.chance(m.share)) continue;
    return rule;
  }
  return null;
}

/** The activation delay of a new beneficiary: a matching rule's, else the scenario's; null = never. */
export function beneficiaryActivation(
  scenario: Scenario,
  facts: { account_number: string; ifsc_code: string; beneficiary_name: string },
): { rule: string; delayMs: number | null } {
  for (const r of scenario.beneficiaries.rules) {
    const m = r.match;
    if (m.account_number !== undefined && m.account_number !== facts.account_number) continue;
    if (m.ifsc_code !== undefined && m.ifsc_code !== facts.ifsc_code) continue;
    if (m.beneficiary_name !== undefined && m.beneficiary_name !== facts.beneficiary_name.toLowerCase()) continue;
    return { rule: r.name, delayMs: r.activationMs };
  }
  return { rule: 'default', delayMs: scenario.beneficiaries.activationDelayMs };
}

/** The checkout timeline of a new transaction: a matching rule's, else the scenario's default. */
export function checkoutTimeline(scenario: Scenario, facts: { amount: Paise; payment_mode: string }) {
  for (const r of scenario.checkout.rules) {
    const m = r.match;
    if (!inRange(facts.amount, m.amount)) continue;
    if (m.payment_mode !== undefined && m.payment_mode !== facts.payment_mode) continue;
    return { rule: r.name, timeline: r.timeline };
  }
  return { rule: 'default', timeline: scenario.checkout.defaultTimeline };
}

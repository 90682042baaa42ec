// Scenario pieces for the test suites (docs/scenarios.md "Extending a scenario", docs/webhooks.md
// "Chaos"): payout rules, by client_ref_id prefix, whose webhooks misbehave on purpose.

const settles = [{ after: '5s', status: 'Success' }];

/** One rule per chaos kind: orders whose id starts with the prefix get that chaos on their webhooks. */
export const chaosRules = [
  { name: 'chaos-duplicate', match: { client_ref_id_prefix: 'CHXDUP' }, timeline: settles, webhooks: { duplicate: 1 } },
  {
    name: 'chaos-reorder',
    match: { client_ref_id_prefix: 'CHXORD' },
    initial_status: 'NEW',
    timeline: [
      { after: '5s', status: 'Pending' },
      { after: '5s', status: 'Success' },
    ],
    webhooks: { reorder: true },
  },
  { name: 'chaos-forged', match: { client_ref_id_prefix: 'CHXFRG' }, timeline: settles, webhooks: { wrong_signature: 1 } },
  { name: 'chaos-stale', match: { client_ref_id_prefix: 'CHXSTL' }, timeline: settles, webhooks: { stale_timestamp: 1 } },
  { name: 'chaos-replay', match: { client_ref_id_prefix: 'CHXRPL' }, timeline: settles, webhooks: { replay: 1 } },
];

/** The default scenario with the chaos rules above (and any more rules or fields given). */
export function chaosScenario(name, { rules = [], ...rest } = {}) {
  return { extends: 'default', name, payouts: { rules: [...rules, ...chaosRules] }, ...rest };
}

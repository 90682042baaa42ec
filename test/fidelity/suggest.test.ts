import { OPERATIONS } from '../../src/contract/operations.js';
import type { Call } from '../../src/fidelity/calls.js';
import type { Difference } from '../../src/fidelity/compare.js';
import type { Replayed, ReplayResult } from '../../src/fidelity/replay.js';
import { suggestScenario } from '../../src/fidelity/suggest.js';

/**
 * The suggested scenario (docs/fidelity.md "Close what a scenario can"), on replays made by hand:
 * which differences it claims, and which it leaves to a change of the sandbox.
 */

const op = (id: string) => OPERATIONS.find((o) => o.id === id) as Call['operation'];
let entry = 0;

const call = (id: string, body: Record<string, unknown> | null, recorded: { status: number; body: unknown }): Call => ({
  entry: entry++,
  operation: op(id),
  method: op(id).method.toUpperCase(),
  params: {},
  query: {},
  body,
  form: false,
  credentials: {},
  at: 0,
  recorded,
});

const A = (message: string) => ({ success: false, http_code: 400, message });
const B = (code: string, message: string) => ({ status: false, error: { code, message } });
const OK = { success: true, http_code: 200, message: 'Transaction is pending', data: { ref_id: '1234567890', client_ref_id: 'X', status: 'Pending' } };

/** An initialize of `amount` by `method` that each side answered. */
function initialize(amount: number, method: string, recorded: unknown, sandbox: unknown, differences: Difference[]): Replayed {
  return {
    call: call('initializePayoutV2', { amount, payment_method: method, client_ref_id: `C-${entry}` }, { status: 200, body: recorded }),
    sandbox: { status: 200, body: sandbox },
    differences,
  };
}

const envelope: Difference = { kind: 'envelope', path: '', recorded: 'B', sandbox: 'success' };
const result = (replayed: Replayed[], payouts: ReplayResult['payouts'] = new Map()): ReplayResult => ({ replayed, skipped: [], payouts });

test('an amount refused by the real service gets a rule for that amount and method, answering its code and message', () => {
  const s = suggestScenario(result([initialize(777, '1001', B('TRANSACTION_LIMIT_EXCEEDED', 'Limit.'), OK, [{ ...envelope }])]), 'default');
  expect(s.scenario).toMatchObject({
    extends: 'default',
    payouts: {
      rules: [
        {
          name: 'recorded-amount-777-1001',
          match: { amount: 777, payment_method: '1001' },
          reject: { code: 'TRANSACTION_LIMIT_EXCEEDED', message: 'Limit.' },
        },
      ],
    },
  });
  expect(s.needsSandboxChange).toEqual([]);
});

test('a validation failure on either side gets no rule (validation comes before any rule): it needs a change to the sandbox', () => {
  const recordedA = initialize(500, '1001', A('The amount field must be at least 1.'), OK, [{ ...envelope }]);
  const sandboxA = initialize(600, '1001', OK, A('The remarks field is required.'), [{ ...envelope, recorded: 'success', sandbox: 'A' }]);
  const s = suggestScenario(result([recordedA, sandboxA]), 'default');
  expect((s.scenario.payouts as { rules: unknown[] }).rules).toEqual([]);
  expect(s.needsSandboxChange.map((n) => n.entries)).toEqual([[recordedA.call.entry, sandboxA.call.entry]]);
});

test('an amount and method the real service answered two ways gets no rule; the same amount by another method is its own', () => {
  const twice = [
    initialize(900, '1001', B('GENERIC_EXCEPTION', 'Try later.'), OK, [{ ...envelope }]),
    initialize(900, '1001', OK, OK, []),
    initialize(900, '2002', B('GENERIC_EXCEPTION', 'Try later.'), OK, [{ ...envelope }]),
  ];
  const s = suggestScenario(result(twice), 'default');
  expect((s.scenario.payouts as { rules: Array<{ name: string }> }).rules.map((r) => r.name)).toEqual(['recorded-amount-900-2002']);
  expect(s.needsSandboxChange).toHaveLength(1);
  expect(s.needsSandboxChange[0]?.entries).toEqual([twice[0]?.call.entry]);
});

test('a method whose payouts never left the status they were made in gets an empty timeline: they stay in it', () => {
  const made = initialize(1500, '3003', OK, OK, []);
  const checks = [0, 1].map((i) => ({
    call: call('getPayoutStatus', null, { status: 200, body: { success: true, data: { transaction: { status: 'Pending' } } } }),
    sandbox: { status: 200, body: { success: true, data: { transaction: { status: i === 0 ? 'Pending' : 'Success' } } } },
    differences: [] as Difference[],
  }));
  (checks[1] as Replayed).differences.push({ kind: 'sequence', path: 'data.transaction.status', recorded: 'Pending', sandbox: 'Pending → Success' });
  const payouts: ReplayResult['payouts'] = new Map([
    [
      'C-1',
      {
        method: '3003',
        initialStatus: 'Pending',
        observations: checks.map((c, i) => ({ entry: c.call.entry, elapsedMs: i * 60_000, recorded: 'Pending', sandbox: i === 0 ? 'Pending' : 'Success' })),
      },
    ],
  ]);
  const s = suggestScenario(result([made, ...checks], payouts), 'default');
  expect((s.scenario.payouts as { rules: unknown[] }).rules).toEqual([
    expect.objectContaining({ name: 'recorded-timeline-3003', match: { payment_method: '3003' }, timeline: [] }),
  ]);
  expect(s.needsSandboxChange).toEqual([]);
});

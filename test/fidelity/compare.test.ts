import { callsOf, operationOf } from '../../src/fidelity/calls.js';
import { compareAnswers, envelopeOf, sequenceDifferences } from '../../src/fidelity/compare.js';

/** Behaviour compared answer by answer (src/fidelity/compare.ts), without HTTP. */

const ok = (data: unknown) => ({ success: true, http_code: 200, message: 'Transaction status fetched successfully', data });
const envA = (code: number, message: string) => ({ success: false, http_code: code, message });
const envB = (code: string, message: string) => ({ status: false, message: 'Failed', error: { code, message } });

test('the envelopes are told apart', () => {
  expect(envelopeOf(ok({}))).toBe('success');
  expect(envelopeOf(envA(401, 'Credentials are not valid'))).toBe('A');
  expect(envelopeOf(envB('INSUFFICIENT_BALANCE', 'x'))).toBe('B');
  expect(envelopeOf({ status: false, message: 'Transaction not found' })).toBe('checkout');
  expect(envelopeOf('text')).toBe('none');
});

test('alike answers: no difference, whatever the ids, dates and references are', () => {
  const tx = (ref: number, date: string) => ({
    transaction: { ref_id: ref, status: 'Success', bank_ref_number: '123456789012', transaction_date: date, created_at: '01/01/2026 09:00:05 AM', amount: 100 },
  });
  expect(
    compareAnswers({ status: 200, body: ok(tx(1234567890, '2026-01-01 09:00:05')) }, { status: 200, body: ok(tx(9876543210, '2026-11-26 10:00:00')) }),
  ).toEqual([]);
});

test('each kind of difference, with its path', () => {
  expect(compareAnswers({ status: 400, body: envB('INSUFFICIENT_BALANCE', 'x') }, { status: 200, body: ok({}) })).toEqual([
    { kind: 'status', path: '', recorded: 400, sandbox: 200 },
    { kind: 'envelope', path: '', recorded: 'B', sandbox: 'success' },
  ]);
  expect(compareAnswers({ status: 400, body: envB('INSUFFICIENT_BALANCE', 'a') }, { status: 400, body: envB('TRANSACTION_LIMIT_EXCEEDED', 'a') })).toEqual([
    { kind: 'error_code', path: 'error.code', recorded: 'INSUFFICIENT_BALANCE', sandbox: 'TRANSACTION_LIMIT_EXCEEDED' },
  ]);
  expect(
    compareAnswers({ status: 400, body: envB('INSUFFICIENT_BALANCE', 'Low funds') }, { status: 400, body: envB('INSUFFICIENT_BALANCE', 'Insufficient') }),
  ).toEqual([{ kind: 'message', path: 'error.message', recorded: 'Low funds', sandbox: 'Insufficient' }]);
  expect(compareAnswers({ status: 401, body: envA(401, 'Credentials are not valid') }, { status: 401, body: envA(401, 'Bad key') })).toEqual([
    { kind: 'message', path: 'message', recorded: 'Credentials are not valid', sandbox: 'Bad key' },
  ]);
  const diffs = compareAnswers(
    { status: 200, body: ok({ transaction: { ref_id: 1234567890, utr: 'X', purpose: 'SALARY', amount: 1 } }) },
    { status: 200, body: ok({ transaction: { ref_id: '1234567890', purpose: 'REWARDS', amount: 1, extra: true } }) },
  );
  expect(diffs).toEqual([
    { kind: 'type', path: 'data.transaction.ref_id', recorded: 'number', sandbox: 'string' },
    { kind: 'missing_field', path: 'data.transaction.utr', recorded: 'string', sandbox: undefined },
    { kind: 'value_shape', path: 'data.transaction.purpose', recorded: 'SALARY', sandbox: 'REWARDS' },
    { kind: 'extra_field', path: 'data.transaction.extra', recorded: undefined, sandbox: 'boolean' },
  ]);
  expect(
    compareAnswers(
      { status: 200, body: ok({ transaction: { transaction_date: '2026-01-01 09:00:05' } }) },
      { status: 200, body: ok({ transaction: { transaction_date: '01/01/2026' } }) },
    ),
  ).toEqual([{ kind: 'value_shape', path: 'data.transaction.transaction_date', recorded: '2026-01-01 09:00:05', sandbox: '01/01/2026' }]);
});

test('ignored paths and paths compared apart are left out', () => {
  const r = { status: 200, body: ok({ transaction: { status: 'Pending', utr: 'X' } }) };
  const s = { status: 200, body: ok({ transaction: { status: 'Success' } }) };
  expect(compareAnswers(r, s, { ignore: ['data.transaction.utr'], apart: ['data.transaction.status'] })).toEqual([]);
});

test("a payout's statuses over a session: the sequence and when each status first appeared", () => {
  const seq = (pairs: Array<[number, string, string]>) => pairs.map(([s, recorded, sandbox], i) => ({ entry: i + 1, elapsedMs: s * 1000, recorded, sandbox }));
  expect(
    sequenceDifferences(
      seq([
        [5, 'Pending', 'Pending'],
        [30, 'Success', 'Success'],
      ]),
    ),
  ).toEqual([]);
  expect(
    sequenceDifferences(
      seq([
        [5, 'Pending', 'Success'],
        [10, 'Pending', 'Success'],
        [35, 'Success', 'Success'],
      ]),
    ),
  ).toEqual([
    { entry: 1, difference: { kind: 'sequence', path: 'data.transaction.status', recorded: 'Pending → Success', sandbox: 'Success' } },
    {
      entry: 1,
      difference: {
        kind: 'timing',
        path: 'data.transaction.status=Success',
        recorded: 'first seen 35 s after initialize',
        sandbox: 'first seen 5 s after initialize',
      },
    },
  ]);
});

test('HAR entries matched to operations; what is not a call of this API is counted', () => {
  expect(operationOf('GET', '/api/v1/public/verification/VER123')?.params).toEqual({ verification_id: 'VER123' });
  expect(operationOf('POST', '/api/v1/public/verification/')?.operation.id).toBe('verify');
  expect(operationOf('GET', '/api/v1/payment/transaction/PAY1/status')?.operation.id).toBe('getCheckoutStatus');
  expect(operationOf('DELETE', '/api/v1/public/balance/check')).toBeNull();
  const entry = (url: string, status = 200, text = '{"success":true}') => ({
    startedDateTime: '2026-01-01T00:00:00.000Z',
    request: { method: 'GET', url },
    response: { status, content: { text } },
  });
  const found = callsOf([
    entry('https://uat.example/api/v1/public/balance/check?account_no=VAN1'),
    entry('https://uat.example/favicon.ico'),
    { ...entry('http://hooks.example/hooks'), _webhook: true },
    entry('https://uat.example/api/v1/public/balance/check?account_no=VAN1', 0, ''),
  ]);
  expect(found.calls.map((c) => [c.entry, c.operation.id, c.query])).toEqual([[0, 'getBalance', { account_no: 'VAN1' }]]);
  expect(found.notApi).toBe(2);
  expect(found.skipped).toEqual([{ entry: 3, reason: expect.stringMatching(/did not answer/) }]);
});

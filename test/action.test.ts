import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ACTION_YML, actionCheckout, runStep, type StepResult, useStartedSandboxes } from './action-runner.js';

/**
 * action.yml's main and post steps, run as the GitHub runner runs them (test/action-runner.ts),
 * from a checkout of the action that runs the CLI with Node (test/binary.test.ts runs them with
 * the standalone executable): the sandbox started in the background and healthy, the outputs,
 * the stop in post with the summary and the gates.
 */

// What the runner does at the end of a job: no sandbox outlives the test.
const { started, dir } = useStartedSandboxes();

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function main(inputs: Record<string, string>): Promise<{ checkout: string; result: StepResult }> {
  const checkout = actionCheckout(dir(), 'node');
  const result = await runStep(checkout, 'main', dir(), inputs);
  if (result.state.pid) started.push(Number(result.state.pid));
  return { checkout, result };
}

const payout = (outputs: Record<string, string>, ref: string, amount: number) =>
  fetch(`${outputs.url}/api/v1/public/payment/transfer`, {
    method: 'POST',
    headers: {
      'x-merchant-email': outputs['merchant-email'],
      'x-api-key': outputs['api-key'],
      'x-api-secret': outputs['api-secret'],
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      client_ref_id: ref,
      transfer_type: 'BANK',
      amount,
      payment_method: '1001',
      debit_from: 'DEMOVAN0000000000001',
      beneficiary_id: 'BENEDEMO000000000001',
      purpose: 'VENDOR_PAYOUT',
      remarks: 'action',
    }),
  });

test('action.yml: a node20 action with main and post, and the inputs and outputs the docs name', () => {
  expect(ACTION_YML.runs).toEqual({ using: 'node20', main: 'action/main.js', post: 'action/post.js' });
  expect(Object.keys(ACTION_YML.inputs)).toEqual(
    expect.arrayContaining(['port', 'scenario', 'fixtures', 'clock', 'seed', 'admin-token', 'coverage-report', 'review-report', 'fail-on-review']),
  );
  expect(ACTION_YML.inputs.port.default).toBe('4010');
  expect(Object.keys(ACTION_YML.outputs)).toEqual(['url', 'control-url', 'merchant-email', 'api-key', 'api-secret', 'pid']);
});

test('main starts it healthy and writes the outputs and the pid; post stops it, writes the reports and the summary', async () => {
  const port = await freePort();
  const coverage = join(dir(), 'reports/coverage.json');
  const { checkout, result } = await main({
    port: String(port),
    clock: 'manual',
    seed: '7',
    'admin-token': 'action-admin-token-0001',
    'coverage-report': coverage,
  });
  expect(result.out).toContain('::add-mask::action-admin-token-0001');
  expect(result.code).toBe(0);
  expect(result.outputs).toEqual({
    url: `http://127.0.0.1:${port}`,
    'control-url': `http://127.0.0.1:${port}/__sandbox`,
    'merchant-email': 'demo@payout-sandbox.test',
    'api-key': 'sbx_key_demo_0001',
    'api-secret': 'sbx_secret_demo_0001',
    pid: result.state.pid,
  });
  expect(Number(result.state.pid)).toBeGreaterThan(0);
  // The sandbox outlived the main step, with the inputs' options.
  expect((await fetch(`${result.outputs.url}/__sandbox/health`)).status).toBe(200);
  expect((await fetch(`${result.outputs['control-url']}/clock`)).status).toBe(401);
  const clock = await (await fetch(`${result.outputs['control-url']}/clock`, { headers: { authorization: 'Bearer action-admin-token-0001' } })).json();
  expect(clock.mode).toBe('manual');
  expect((await payout(result.outputs, 'ACTION0001', 100)).status).toBe(200);

  const post = await runStep(
    checkout,
    'post',
    dir(),
    { port: String(port), 'admin-token': 'action-admin-token-0001', 'coverage-report': coverage },
    result.state,
  );
  expect(post.out).toContain('stopped cleanly');
  expect(post.code).toBe(0);
  expect(post.summary).toMatch(/^## payout-sandbox/);
  expect(post.summary).toMatch(/coverage/i);
  expect(existsSync(coverage)).toBe(true);
  expect(JSON.parse(readFileSync(coverage, 'utf8'))).toHaveProperty('summary.covered', 1);
  expect(() => process.kill(Number(result.state.pid), 0)).toThrow();
});

test('a failed gate fails the post step: coverage under coverage-min (exit 3), a review finding (exit 4)', async () => {
  const { checkout, result } = await main({ port: '0', clock: 'manual', 'coverage-min': '100', 'coverage-report': join(dir(), 'coverage.md') });
  expect(result.code).toBe(0);
  const post = await runStep(checkout, 'post', dir(), { 'coverage-min': '100' }, result.state);
  expect(post.code).toBe(1);
  expect(post.out).toMatch(/::error title=payout-sandbox::behaviour coverage is under the coverage-min input \(100\): payout-sandbox exited 3/);
  expect(readFileSync(join(dir(), 'coverage.md'), 'utf8')).toMatch(/^### Behaviour coverage: 0 of \d+/);

  const review = await main({ port: '0', 'fail-on-review': 'high', 'review-report': join(dir(), 'review.md') });
  expect(review.result.code).toBe(0);
  // A payout answered 500 but made (3003.01), sent again under a new client_ref_id: paid twice.
  expect((await payout(review.result.outputs, 'NAIVE-A1', 3003.01)).status).toBe(500);
  expect((await payout(review.result.outputs, 'NAIVE-A2', 3003.01)).status).toBe(500);
  const post2 = await runStep(review.checkout, 'post', dir(), { 'fail-on-review': 'high' }, review.result.state);
  expect(post2.code).toBe(1);
  expect(post2.out).toMatch(/review has a finding of severity high or above: payout-sandbox exited 4/);
  expect(post2.summary).toMatch(/double-payout/);
}, 30_000);

test('stopped by a step of the job first (to upload the reports): post takes the summary from the .md reports and still fails the gate', async () => {
  const coverage = join(dir(), 'coverage.md');
  const { checkout, result } = await main({ port: '0', 'coverage-report': coverage, 'coverage-min': '100' });
  expect(result.code).toBe(0);
  // The job's step: kill -TERM "$PID"; while kill -0 "$PID"; do sleep 0.1; done
  const pid = Number(result.outputs.pid);
  process.kill(pid, 'SIGTERM');
  while (existsSync(`/proc/${pid}`)) await new Promise((r) => setTimeout(r, 20));
  expect(existsSync(coverage)).toBe(true);
  const post = await runStep(checkout, 'post', dir(), { 'coverage-report': coverage, 'coverage-min': '100' }, result.state);
  expect(post.code).toBe(1);
  expect(post.out).toContain('payout-sandbox exited 3');
  expect(post.summary).toContain(readFileSync(coverage, 'utf8').trim());
});

test('a bad input fails main with the sandbox own message; post then has nothing to stop', async () => {
  const { checkout, result } = await main({ port: '0', clock: 'sometimes' });
  expect(result.code).toBe(1);
  expect(result.out).toMatch(/::error title=payout-sandbox::payout-sandbox exited 2 before it was ready:.*clock/);
  expect(result.state).toEqual({});
  const post = await runStep(checkout, 'post', dir(), {}, result.state);
  expect(post.code).toBe(0);
  expect(post.out).toContain('nothing to stop');
});

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * The CI steps of docs/testing.md ("In CI") and docs/review.md ("In CI"), run as written: the
 * sandbox started in the background from a clone, a suite run against it, SIGTERM to the
 * sandbox's own process, and the step's exit code the gate's. The clone is this repository; the
 * suite a small one.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = useTempDir(killAll);

/** The `run: |` lines of a recipe between its markers (docs/testing.md's by default), as a shell script. */
function recipe(file = 'docs/testing.md', marker = 'ci-recipe'): string {
  const doc = readFileSync(join(ROOT, file), 'utf8');
  const block = doc.slice(doc.indexOf(`<!-- ${marker}:start -->`), doc.indexOf(`<!-- ${marker}:end -->`));
  expect(block.length).toBeGreaterThan(0);
  const lines = block.split('\n');
  const start = lines.findIndex((l) => /^\s+run: \|$/.test(l) && lines[lines.indexOf(l) - 1].includes('shell: bash'));
  const indent = /^(\s*)/.exec(lines[start + 1])![1].length;
  const body: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() !== '' && /^(\s*)/.exec(l)![1].length < indent) break;
    body.push(l.slice(indent));
  }
  return body.join('\n');
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A merchant's project beside a clone of the sandbox (`payout-sandbox/`, a link to this
 * repository, built), whose `npm test` is the given suite.
 */
function project(suite: string): string {
  const root = join(dir(), 'merchant');
  mkdirSync(root);
  symlinkSync(ROOT, join(root, 'payout-sandbox'));
  writeFileSync(join(root, 'suite.mjs'), suite);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'merchant', private: true, scripts: { test: 'node suite.mjs' } }));
  return root;
}

/** Initializes payouts against the sandbox: one that settles, one refused; exits `code`. */
const suite = (port: number, code: number) => `
const h = { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001', 'content-type': 'application/json' };
const body = (ref, amount) => JSON.stringify({ client_ref_id: ref, transfer_type: 'BANK', amount, payment_method: '1001', debit_from: 'DEMOVAN0000000000001',
  beneficiary_email: 'b@example.com', beneficiary_mobile: '9876543210', beneficiary_name: 'Payee', account_number: '123456789012', ifsc_code: 'HDFC0000001', purpose: 'VENDOR_PAYOUT', remarks: 'ci' });
for (const [ref, amount] of [['CI0000001', 100], ['CI0000002', 1001.02]]) {
  const res = await fetch('http://127.0.0.1:${port}/api/v1/public/payment/transfer', { method: 'POST', headers: h, body: body(ref, amount) });
  console.log(ref, res.status);
}
process.exit(${code});
`;

/** Runs the recipe in the project (the port it names made a free one), as a CI's bash -e step. */
function runRecipe(root: string, port: number, script = recipe()): Promise<{ code: number | null; out: string }> {
  const summary = join(dir(), 'summary.md');
  const env: NodeJS.ProcessEnv = { ...process.env, GITHUB_STEP_SUMMARY: summary, npm_config_loglevel: 'silent' };
  delete env.npm_lifecycle_event;
  const proc = spawn('bash', ['-e', '-c', script.replaceAll('4010', String(port))], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, out })));
}

test('the recipe is one bash step that starts the sandbox by node (never npx), keeps its pid and stops it with SIGTERM', () => {
  const script = recipe();
  expect(script).toMatch(/^node payout-sandbox\/bin\/payout-sandbox\.js /m);
  expect(script).not.toMatch(/npx/);
  expect(script).toMatch(/kill -TERM "\$\(cat sandbox\.pid\)"/);
  // Parses as bash.
  expect(spawnSync('bash', ['-n', '-c', script]).status).toBe(0);
});

test('below the coverage gate: the suite passes, the step fails with the gate (3), the report is written and the sandbox is gone', async () => {
  const port = await freePort();
  const root = project(suite(port, 0));
  const { code, out } = await runRecipe(root, port);
  expect(out).toContain('CI0000001 200');
  expect(out).toContain('CI0000002 400');
  expect(code).toBe(3);
  const report = readFileSync(join(root, 'coverage/sandbox.md'), 'utf8');
  expect(report).toMatch(/^### Behaviour coverage: \d+ of \d+/);
  expect(readFileSync(join(dir(), 'summary.md'), 'utf8')).toBe(report);
  expect(existsSync(join(root, 'sandbox.ready'))).toBe(false);
  const pid = Number(readFileSync(join(root, 'sandbox.pid'), 'utf8'));
  expect(() => process.kill(pid, 0)).toThrow();
}, 60_000);

test('a failing suite fails the step with its own code; a gate the run meets passes it', async () => {
  const port = await freePort();
  const failing = await runRecipe(project(suite(port, 7)), port);
  expect(failing.code).toBe(7);
  const port2 = await freePort();
  const root = join(dir(), 'merchant');
  writeFileSync(join(root, 'suite.mjs'), suite(port2, 0));
  const met = await runRecipe(root, port2, recipe().replace('--coverage-min 60', '--coverage-min 1'));
  expect(met.code).toBe(0);
}, 60_000);

/**
 * A payout answered 500 (magic amount 3003.01: the payout is made), then either paid again under
 * a new client_ref_id (a double payout: a high finding) or looked up by its client_ref_id first
 * and left alone (careful); exits 0.
 */
const reviewSuite = (port: number, careful: boolean) => `
const base = 'http://127.0.0.1:${port}/api/v1/public/payment/transfer';
const h = { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001', 'content-type': 'application/json' };
const body = (ref) => JSON.stringify({ client_ref_id: ref, transfer_type: 'BANK', amount: 3003.01, payment_method: '1001', debit_from: 'DEMOVAN0000000000001',
  beneficiary_email: 'b@example.com', beneficiary_mobile: '9876543210', beneficiary_name: 'Payee', account_number: '123456789012', ifsc_code: 'HDFC0000001', purpose: 'VENDOR_PAYOUT', remarks: 'ci' });
const first = await fetch(base, { method: 'POST', headers: h, body: body('RV0000001') });
console.log('first', first.status);
if (${careful}) {
  const look = await fetch(base + '/status?client_ref_id=RV0000001', { headers: h });
  console.log('looked up', look.status);
} else {
  const again = await fetch(base, { method: 'POST', headers: h, body: body('RV0000002') });
  console.log('again', again.status);
}
`;

test("the review's CI step (docs/review.md) is one bash step that keeps the pid it stops", () => {
  const script = recipe('docs/review.md', 'review-recipe');
  expect(script).toMatch(/^node payout-sandbox\/bin\/payout-sandbox\.js .*--review-fail-on high/ms);
  expect(script).toMatch(/^echo \$! > sandbox\.pid$/m);
  expect(spawnSync('bash', ['-n', '-c', script]).status).toBe(0);
});

test("the review's CI step, run as written: a double payout after a 500 fails the step with 4 and the report says so; a lookup first passes it", async () => {
  const port = await freePort();
  const root = project(reviewSuite(port, false));
  const doubled = await runRecipe(root, port, recipe('docs/review.md', 'review-recipe'));
  expect(doubled.out).toContain('first 500');
  expect(doubled.out).toContain('again 500'); // 3003.01 again: made again, answered 500 again
  expect(doubled.code).toBe(4);
  const report = readFileSync(join(root, 'review/review.md'), 'utf8');
  expect(report).toMatch(/\*\*not-ready\*\*/);
  expect(readFileSync(join(dir(), 'summary.md'), 'utf8')).toBe(report);
  const pid = Number(readFileSync(join(root, 'sandbox.pid'), 'utf8'));
  expect(() => process.kill(pid, 0)).toThrow();

  const port2 = await freePort();
  writeFileSync(join(root, 'suite.mjs'), reviewSuite(port2, true));
  const careful = await runRecipe(root, port2, recipe('docs/review.md', 'review-recipe'));
  expect(careful.out).toContain('first 500');
  expect(careful.out).toContain('looked up 200');
  expect(careful.code).toBe(0);
}, 60_000);

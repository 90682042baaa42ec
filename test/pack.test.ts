import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * The package as users install it: `npm pack` (of the built tree), installed into a project with
 * `--omit=dev` (no TypeScript, no build), runs: the CLI serves, the in-process API starts. (A
 * clone, by contrast, needs its dev dependencies: `prepare` builds it.)
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = useTempDir(killAll);

test('npm pack, then npm install --omit=dev of the tarball: the CLI and startSandbox() run', () => {
  const out = join(dir(), 'pack');
  mkdirSync(out);
  // The tree is built (npm test builds first); --ignore-scripts: pack what is there.
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], { cwd: ROOT, stdio: 'pipe' });
  const tarball = join(out, readdirSync(out).find((f) => f.endsWith('.tgz'))!);
  const project = join(dir(), 'merchant');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'merchant', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--silent', tarball], {
    cwd: project,
    stdio: 'pipe',
    timeout: 240_000,
  });
  expect(readdirSync(join(project, 'node_modules'))).not.toContain('typescript');
  const help = execFileSync(join(project, 'node_modules/.bin/payout-sandbox'), ['--version'], { encoding: 'utf8' });
  expect(help.trim()).toMatch(/^\d+\.\d+\.\d+/);
  // The in-process API, as a merchant's suite imports it: start, a payout, stop.
  writeFileSync(
    join(project, 'try.mjs'),
    `import { startSandbox } from 'payout-sandbox';
const sb = await startSandbox({ clock: 'manual' });
const body = { client_ref_id: 'PACK0001', transfer_type: 'BANK', amount: 100, payment_method: '1001', debit_from: sb.merchant.accounts[0], beneficiary_email: 'b@example.com',
  beneficiary_mobile: '9876543210', beneficiary_name: 'Payee', account_number: '123456789012', ifsc_code: 'HDFC0000001', purpose: 'VENDOR_PAYOUT', remarks: 'pack' };
const res = await fetch(sb.url + '/api/v1/public/payment/transfer', { method: 'POST', headers: { ...sb.merchant.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
console.log(res.status);
await sb.stop();
`,
  );
  expect(execFileSync(process.execPath, ['try.mjs'], { cwd: project, encoding: 'utf8' }).trim()).toBe('200');
}, 300_000);

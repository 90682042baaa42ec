// The action's main step: starts payout-sandbox in the background (the standalone executable
// when the action's checkout has one built, else `node bin/payout-sandbox.js`, building the
// checkout first when it has no dist/), waits until it is healthy, writes the outputs (url,
// control-url, the demo merchant's merchant-email, api-key, api-secret) and saves the sandbox's
// pid for the post step (post.js), which stops it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACTION_DIR, control, error, input, saveState, setOutput, sleep } from './lib.js';

const START_TIMEOUT_MS = 60_000;

/** The sandbox's options, from the inputs. */
function options(readyFile) {
  const args = ['--port', input('port') || '4010', '--data', 'memory', '--ready-file', readyFile];
  const given = [
    ['scenario', '--scenario'],
    ['fixtures', '--fixtures'],
    ['clock', '--clock'],
    ['seed', '--seed'],
    ['admin-token', '--admin-token'],
    ['coverage-report', '--coverage-report'],
    ['coverage-min', '--coverage-min'],
    ['review-report', '--review-report'],
    ['fail-on-review', '--review-fail-on'],
  ];
  for (const [name, flag] of given) if (input(name) !== '') args.push(flag, input(name));
  return [...args, ...input('args').split(/\s+/).filter(Boolean)];
}

/** What runs the sandbox: the executable if built here, else Node with the CLI (built first if need be). */
function command() {
  const binary = join(ACTION_DIR, `dist/payout-sandbox-${process.platform}-${process.arch}`);
  if (existsSync(binary)) return [binary];
  if (!existsSync(join(ACTION_DIR, 'dist/cli.bundle.js'))) {
    process.stdout.write(`::group::Building payout-sandbox (npm ci in ${ACTION_DIR})\n`);
    const built = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: ACTION_DIR, stdio: 'inherit' });
    process.stdout.write('::endgroup::\n');
    if (built.status !== 0) throw new Error(`npm ci in ${ACTION_DIR} failed (exit ${built.status})`);
  }
  return [process.execPath, join(ACTION_DIR, 'bin/payout-sandbox.js')];
}

function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function main() {
  const token = input('admin-token');
  if (token) process.stdout.write(`::add-mask::${token}\n`);
  const dir = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), 'payout-sandbox-'));
  const readyFile = join(dir, 'ready.json');
  const logFile = join(dir, 'sandbox.log');
  const exitFile = join(dir, 'exit-code');
  const [cmd, ...pre] = command();
  // Detached, in a supervisor that records the exit code: the sandbox outlives this step.
  const supervisor = spawn(process.execPath, [join(ACTION_DIR, 'action/supervise.js'), exitFile, logFile, cmd, ...pre, ...options(readyFile)], {
    detached: true,
    stdio: 'ignore',
  });
  supervisor.unref();
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!existsSync(readyFile)) {
    if (existsSync(exitFile)) throw new Error(`payout-sandbox exited ${readFileSync(exitFile, 'utf8').trim()} before it was ready:\n${tail(logFile)}`);
    if (Date.now() > deadline) throw new Error(`payout-sandbox was not ready within ${START_TIMEOUT_MS / 1000} s:\n${tail(logFile)}`);
    await sleep(50);
  }
  const ready = JSON.parse(readFileSync(readyFile, 'utf8'));
  saveState('pid', ready.pid);
  saveState('exit-file', exitFile);
  saveState('log-file', logFile);
  saveState('control-url', ready.control_url);
  const health = await (await fetch(`${ready.url}/__sandbox/health`)).json();
  if (health.ok !== true) throw new Error(`payout-sandbox is not healthy: ${JSON.stringify(health)}`);
  const res = await control(`${ready.control_url}/merchants`, token);
  if (!res.ok) throw new Error(`GET ${ready.control_url}/merchants: HTTP ${res.status}`);
  const demo = (await res.json()).merchants[0];
  setOutput('url', ready.url);
  setOutput('control-url', ready.control_url);
  setOutput('merchant-email', demo.headers['x-merchant-email']);
  setOutput('api-key', demo.headers['x-api-key']);
  setOutput('api-secret', demo.headers['x-api-secret']);
  setOutput('pid', ready.pid);
  process.stdout.write(`payout-sandbox ${health.version} is healthy at ${ready.url} (pid ${ready.pid}; log ${logFile}); the post step stops it.\n`);
}

main().catch((err) => {
  error(err.message);
  process.exitCode = 1;
});

// The action's main step: starts payout-sandbox in the background, waits until it is healthy,
// writes the outputs (url, control-url, the demo merchant's merchant-email, api-key, api-secret)
// and saves the sandbox's pid for the post step (post.js), which stops it. What it runs: with the
// `version` input, that release's standalone executable, downloaded from `release-url` and
// checked against the release's SHA-256 before it runs; else the standalone executable when the
// action's checkout has one built, else `node bin/payout-sandbox.js`, building the checkout first
// when it has no dist/.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ACTION_DIR, control, error, input, saveState, setOutput, sleep } from './lib.js';

const START_TIMEOUT_MS = 60_000;
/** The one executable a release holds (scripts/release.js, built on Linux x64). */
const RELEASED = 'payout-sandbox-linux-x64';
const DOWNLOAD_TIMEOUT_MS = 300_000;

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

/**
 * Where releases are downloaded from: the release-url input, else the releases of the action's
 * own repository (GITHUB_ACTION_REPOSITORY); that is empty for an action used by path (`uses:
 * ./`), whose repository is then the workflow's (GITHUB_REPOSITORY).
 */
function releaseBase() {
  const given = input('release-url').replace(/\/+$/, '');
  if (given !== '') {
    let url;
    try {
      url = new URL(given);
    } catch {
      throw new Error(`release-url: not a URL: ${given}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`release-url: not an http(s) URL: ${given}`);
    return given;
  }
  const server = (process.env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  const repository = process.env.GITHUB_ACTION_REPOSITORY || '';
  if (repository !== '') return `${server}/${repository}/releases/download`;
  const workflowRepository = process.env.GITHUB_REPOSITORY || '';
  if (workflowRepository === '') {
    throw new Error('version: cannot tell where the releases are (GITHUB_ACTION_REPOSITORY and GITHUB_REPOSITORY are empty): set the release-url input');
  }
  process.stdout.write(
    `payout-sandbox: GITHUB_ACTION_REPOSITORY is empty (the action is used by path, uses: ./…): downloading from this workflow's repository, ${workflowRepository}; set release-url to choose another.\n`,
  );
  return `${server}/${workflowRepository}/releases/download`;
}

/** GET url; an HTTP error or a failed connection names the URL. */
async function get(url) {
  let res;
  try {
    res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (err) {
    throw new Error(`GET ${url} failed: ${err.cause?.message ?? err.message}`);
  }
  if (!res.ok) {
    throw new Error(
      `GET ${url}: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${res.status === 404 ? ' (no such release, or it has no such file)' : ''}`,
    );
  }
  return res;
}

/**
 * The release's executable in `dir`: downloaded, its SHA-256 checked against the release's
 * .sha256 file before anything runs it (a mismatch deletes it and fails), then made executable.
 */
async function downloadRelease(version, dir) {
  if (`${process.platform}-${process.arch}` !== 'linux-x64') {
    throw new Error(
      `version: a release holds ${RELEASED} only, and this runner is ${process.platform}-${process.arch}: leave version empty (the action then runs with Node)`,
    );
  }
  const url = `${releaseBase()}/v${version}/${RELEASED}`;
  const sumUrl = `${url}.sha256`;
  process.stdout.write(`payout-sandbox: downloading v${version}: ${url}\n`);
  const sumText = await (await get(sumUrl)).text();
  const sum = /^([0-9a-fA-F]{64})[ \t]+\*?(\S+)/.exec(sumText.trim());
  if (sum === null) throw new Error(`${sumUrl} is not a checksum file (\`<sha256>  ${RELEASED}\`): ${JSON.stringify(sumText.slice(0, 120))}`);
  if (sum[2] !== RELEASED) throw new Error(`${sumUrl} is the checksum of ${sum[2]}, not of ${RELEASED}`);
  const expected = sum[1].toLowerCase();
  const file = join(dir, RELEASED);
  const hash = createHash('sha256');
  try {
    const res = await get(url);
    await pipeline(
      Readable.fromWeb(res.body),
      async function* (chunks) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(file, { mode: 0o600 }),
    );
  } catch (err) {
    rmSync(file, { force: true });
    throw err.message.startsWith('GET ') ? err : new Error(`GET ${url} failed: ${err.message}`);
  }
  const actual = hash.digest('hex');
  if (actual !== expected) {
    rmSync(file, { force: true });
    throw new Error(
      `the downloaded ${url} does not match its checksum: expected sha256 ${expected} (${sumUrl}), got ${actual}. The file is deleted; nothing was run.`,
    );
  }
  chmodSync(file, 0o755);
  return { file, url, sha256: actual };
}

/** What runs the sandbox: a release's executable (version), the executable if built here, else Node with the CLI (built first if need be). */
async function command(dir) {
  const wanted = input('version');
  if (wanted !== '') {
    if (!/^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(wanted)) throw new Error(`version: not a release version such as 0.1.0: ${wanted}`);
    const version = wanted.replace(/^v/, '');
    const release = await downloadRelease(version, dir);
    process.stdout.write(`payout-sandbox: running the release v${version}'s executable ${release.file} (sha256 ${release.sha256}, as the release says)\n`);
    return [release.file];
  }
  const binary = join(ACTION_DIR, `dist/payout-sandbox-${process.platform}-${process.arch}`);
  if (existsSync(binary)) {
    process.stdout.write(`payout-sandbox: running the action checkout's executable ${binary}\n`);
    return [binary];
  }
  if (!existsSync(join(ACTION_DIR, 'dist/cli.bundle.js'))) {
    process.stdout.write(`::group::Building payout-sandbox (npm ci in ${ACTION_DIR})\n`);
    const built = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: ACTION_DIR, stdio: 'inherit' });
    process.stdout.write('::endgroup::\n');
    if (built.status !== 0) throw new Error(`npm ci in ${ACTION_DIR} failed (exit ${built.status})`);
  }
  const cli = join(ACTION_DIR, 'bin/payout-sandbox.js');
  process.stdout.write(`payout-sandbox: running ${cli} with Node ${process.version} (no version input, and the checkout has no built executable)\n`);
  return [process.execPath, cli];
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
  const [cmd, ...pre] = await command(dir);
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

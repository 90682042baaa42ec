import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ACTION_YML, actionCheckout, runStep, type StepResult, useStartedSandboxes } from './action-runner.js';
import { ensureBinary } from './binary-helpers.js';

/**
 * The action's `version` input (action/main.js): the release's executable downloaded from
 * `release-url` (here a local server standing in for GitHub's release downloads, redirect
 * included, serving the real executable and its .sha256), its SHA-256 checked before it runs, then
 * run and stopped by post as usual; a wrong checksum deletes it and runs nothing; an HTTP error
 * names the URL. The checkout given to the action could run the CLI with Node: what runs is the
 * download (/proc/<pid>/exe says so).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const RELEASED = 'payout-sandbox-linux-x64';
const onLinuxX64 = process.platform === 'linux' && process.arch === 'x64';

let binary = '';
let digest = '';
let server: Server;
let base = '';
const requests: string[] = [];

// What the runner does at the end of a job: no sandbox outlives the test.
const { started, dir } = useStartedSandboxes();

/** The runner's environment, without the repository variables of a real CI run (each test sets its own). */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  GITHUB_SERVER_URL: '',
  GITHUB_ACTION_REPOSITORY: '',
  GITHUB_REPOSITORY: '',
  ...extra,
});

beforeAll(async () => {
  binary = ensureBinary();
  digest = createHash('sha256').update(readFileSync(binary)).digest('hex');
  const wrong = createHash('sha256').update('another build').digest('hex');
  const sums: Record<string, string> = {
    [`/rel/v${version}/${RELEASED}.sha256`]: `${digest}  ${RELEASED}\n`,
    [`/acme/payout-sandbox/releases/download/v${version}/${RELEASED}.sha256`]: `${digest}  ${RELEASED}\n`,
    [`/bad/v${version}/${RELEASED}.sha256`]: `${wrong}  ${RELEASED}\n`,
  };
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    if (sums[path] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(sums[path]);
    } else if (Object.keys(sums).includes(`${path}.sha256`)) {
      // As GitHub does: a release download redirects to where the file is stored.
      res.writeHead(302, { location: `/objects/${encodeURIComponent(path)}` }).end();
    } else if (path.startsWith('/objects/')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(binary).size });
      createReadStream(binary).pipe(res);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 200_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function main(inputs: Record<string, string>, extraEnv: Record<string, string> = {}): Promise<{ checkout: string; result: StepResult }> {
  const checkout = actionCheckout(dir(), 'node');
  const result = await runStep(checkout, 'main', dir(), inputs, {}, env(extraEnv));
  if (result.state.pid) started.push(Number(result.state.pid));
  return { checkout, result };
}

/** Every process whose executable or command line is under `path`: none once a step has refused. */
function processesUnder(path: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let exe = '';
      try {
        exe = readlinkSync(`/proc/${pid}/exe`);
      } catch {
        // Not ours to read.
      }
      if (exe.startsWith(path) || cmdline.includes(path)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The downloaded executable's path, as main logs it. */
function ranFrom(out: string): string {
  const m = new RegExp(`running the release v${version.replace(/\./g, '\\.')}'s executable (\\S+) \\(sha256 ([0-9a-f]{64}), as the release says\\)`).exec(out);
  if (m === null) throw new Error(`main did not say what it runs:\n${out}`);
  expect(m[2]).toBe(digest);
  return m[1];
}

async function stopsCleanly(checkout: string, result: StepResult): Promise<void> {
  const pid = Number(result.state.pid);
  const post = await runStep(checkout, 'post', dir(), {}, result.state, env());
  expect({ code: post.code, out: post.out }).toEqual({ code: 0, out: expect.stringContaining('payout-sandbox stopped cleanly') });
  expect(existsSync(`/proc/${pid}`)).toBe(false);
}

(onLinuxX64 ? test : test.skip)(
  'version: the release executable is downloaded (through a redirect), verified, and run; post stops it',
  async () => {
    const { checkout, result } = await main({ version, 'release-url': `${base}/rel/`, port: '0', clock: 'manual' });
    expect({ code: result.code, out: result.out }).toEqual({
      code: 0,
      out: expect.stringContaining(`downloading v${version}: ${base}/rel/v${version}/${RELEASED}\n`),
    });
    expect(requests).toEqual(expect.arrayContaining([`/rel/v${version}/${RELEASED}.sha256`, `/rel/v${version}/${RELEASED}`]));
    const file = ranFrom(result.out);
    expect(file.startsWith(dir())).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o755);
    // The sandbox is the downloaded file, not Node with the checkout's CLI.
    const pid = Number(result.state.pid);
    expect(realpathSync(`/proc/${pid}/exe`)).toBe(realpathSync(file));
    const health = await (await fetch(`${result.outputs.url}/__sandbox/health`)).json();
    expect(health).toMatchObject({ ok: true, version });
    expect(result.outputs['merchant-email']).toBe('demo@payout-sandbox.test');
    await stopsCleanly(checkout, result);
  },
  60_000,
);

(onLinuxX64 ? test : test.skip)(
  'release-url defaults to the releases of the action repository (GITHUB_ACTION_REPOSITORY on GITHUB_SERVER_URL)',
  async () => {
    const { checkout, result } = await main(
      { version: `v${version}`, port: '0' },
      { GITHUB_SERVER_URL: base, GITHUB_ACTION_REPOSITORY: 'acme/payout-sandbox' },
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain(`downloading v${version}: ${base}/acme/payout-sandbox/releases/download/v${version}/${RELEASED}\n`);
    expect(realpathSync(`/proc/${result.state.pid}/exe`)).toBe(realpathSync(ranFrom(result.out)));
    await stopsCleanly(checkout, result);
  },
  60_000,
);

(onLinuxX64 ? test : test.skip)('a wrong checksum fails main naming both digests; the file is deleted and nothing runs', async () => {
  const { result } = await main({ version, 'release-url': `${base}/bad`, port: '0' });
  const wrong = createHash('sha256').update('another build').digest('hex');
  expect(result.code).toBe(1);
  expect(result.out).toContain(
    `::error title=payout-sandbox::the downloaded ${base}/bad/v${version}/${RELEASED} does not match its checksum: expected sha256 ${wrong} (${base}/bad/v${version}/${RELEASED}.sha256), got ${digest}. The file is deleted; nothing was run.`,
  );
  expect(result.out).not.toContain('running the release');
  expect(result.state.pid).toBeUndefined();
  expect(result.outputs).toEqual({});
  expect(readdirSync(dir(), { recursive: true }).filter((f) => String(f).endsWith(RELEASED))).toEqual([]);
  expect(processesUnder(dir())).toEqual([]);
});

(onLinuxX64 ? test : test.skip)('an HTTP error names the URL and the status; a bad version input or release-url is refused; nothing runs', async () => {
  const missing = await main({ version: '9.9.9', 'release-url': `${base}/rel` });
  expect(missing.result.code).toBe(1);
  expect(missing.result.out).toContain(
    `::error title=payout-sandbox::GET ${base}/rel/v9.9.9/${RELEASED}.sha256: HTTP 404 Not Found (no such release, or it has no such file)`,
  );
  expect(missing.result.state.pid).toBeUndefined();

  // An action used by path (uses: ./): no GITHUB_ACTION_REPOSITORY; the workflow's repository, said so.
  const local = await main({ version }, { GITHUB_SERVER_URL: base, GITHUB_REPOSITORY: 'acme/app' });
  expect(local.result.code).toBe(1);
  expect(local.result.out).toContain(
    "GITHUB_ACTION_REPOSITORY is empty (the action is used by path, uses: ./…): downloading from this workflow's repository, acme/app",
  );
  expect(local.result.out).toContain(`GET ${base}/acme/app/releases/download/v${version}/${RELEASED}.sha256: HTTP 404`);
  const nowhere = await main({ version });
  expect(nowhere.result.out).toContain('GITHUB_ACTION_REPOSITORY and GITHUB_REPOSITORY are empty): set the release-url input');

  // Nothing listening there.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
  const refused = await main({ version, 'release-url': `http://127.0.0.1:${port}` });
  expect(refused.result.code).toBe(1);
  expect(refused.result.out).toContain(`GET http://127.0.0.1:${port}/v${version}/${RELEASED}.sha256 failed: connect ECONNREFUSED`);
  for (const [inputs, message] of [
    [{ version: 'latest' }, 'version: not a release version such as 0.1.0: latest'],
    [{ version, 'release-url': 'ftp://example.com/x' }, 'release-url: not an http(s) URL: ftp://example.com/x'],
  ] as const) {
    const bad = await main(inputs);
    expect({ code: bad.result.code, out: bad.result.out }).toEqual({ code: 1, out: expect.stringContaining(`::error title=payout-sandbox::${message}`) });
  }
  expect(processesUnder(dir())).toEqual([]);
});

test('without version it runs as before (here the checkout CLI with Node), and says so', async () => {
  const { checkout, result } = await main({ port: '0' });
  expect(result.code).toBe(0);
  expect(result.out).toContain(`payout-sandbox: running ${join(checkout, 'bin/payout-sandbox.js')} with Node ${process.version} (no version input`);
  expect(realpathSync(`/proc/${result.state.pid}/exe`)).toBe(realpathSync(process.execPath));
  await stopsCleanly(checkout, result);
});

test("action.yml declares version and release-url (optional); docs/releases.md's example uses only action.yml's inputs", () => {
  expect(ACTION_YML.inputs.version).toEqual({ description: expect.stringContaining('SHA-256'), default: '' });
  expect(ACTION_YML.inputs['release-url']).toEqual({ description: expect.stringContaining('/releases/download'), default: '' });
  const doc = readFileSync(join(ROOT, 'docs/releases.md'), 'utf8');
  const steps = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].flatMap((m) => parseYaml(m[1]) as Array<{ uses?: string; with?: Record<string, unknown> }>);
  const uses = steps.filter((s) => s.uses?.includes('/payout-sandbox@'));
  expect(uses).toHaveLength(1);
  expect(uses[0].with).toHaveProperty('version', version);
  for (const input of Object.keys(uses[0].with ?? {})) expect({ input, known: input in ACTION_YML.inputs }).toEqual({ input, known: true });
});

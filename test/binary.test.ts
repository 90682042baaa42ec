import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { actionCheckout, runStep } from './action-runner.js';
import { ensureBinary } from './binary-helpers.js';
import { killAll, runCli, settledChildren, settledDescriptors } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * The standalone executable (npm run build:binary; built here once when missing or stale): with
 * an empty environment and no Node on PATH it serves the whole API and the dashboard from the
 * files inside it, takes every option and verb with the same answers to bad input as the Node
 * CLI, starts fast, runs the Python example suite and the GitHub Action.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let binary = '';
const running = new Set<ChildProcess>();
const dir = useTempDir(() => {
  killAll();
  for (const p of running) p.kill('SIGKILL');
  running.clear();
});

beforeAll(() => {
  binary = ensureBinary();
}, 200_000);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The executable, run to its end with an empty environment (`env -i`). */
function run(args: string[], cwd = dir()) {
  const r = spawnSync(binary, args, { cwd, env: {}, encoding: 'utf8', timeout: 15_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking this process. */
function runAsync(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(binary, args, { env: {}, stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(proc);
  let stderr = '';
  proc.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, stderr })));
}

/** Starts the executable with an empty environment; resolves once GET /__sandbox/health answers 200, with the ms it took. */
async function start(
  args: string[],
  exe = binary,
  cwd = dir(),
  env: Record<string, string> = {},
  lead: string[] = [],
): Promise<{ proc: ChildProcess; url: string; ms: number; output: () => string }> {
  const port = await freePort();
  const started = performance.now();
  const proc = spawn(exe, [...lead, '--port', String(port), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    const ok = await fetch(`${url}/__sandbox/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { proc, url, ms: performance.now() - started, output: () => out };
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}:\n${out}`);
    if (performance.now() - started > 15_000) throw new Error(`not healthy within 15 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function stop(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    proc.once('exit', (code) => resolve(code));
    proc.kill('SIGTERM');
  });
}

const DEMO = { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001' };
const initialize = (url: string, ref: string, amount: number) =>
  fetch(`${url}/api/v1/public/payment/transfer`, {
    method: 'POST',
    headers: { ...DEMO, 'content-type': 'application/json' },
    body: JSON.stringify({
      client_ref_id: ref,
      transfer_type: 'BANK',
      amount,
      payment_method: '1001',
      debit_from: 'DEMOVAN0000000000001',
      beneficiary_id: 'BENEDEMO000000000001',
      purpose: 'VENDOR_PAYOUT',
      remarks: 'binary',
    }),
  });

test('env -i, a copy of the executable alone in a folder: the API, the shipped scenario and fixtures, a data file, a clean stop', async () => {
  // A copy away from the repository, so nothing can come from the files beside it.
  const alone = join(dir(), 'bin');
  mkdirSync(alone);
  const exe = join(alone, 'payout-sandbox');
  try {
    linkSync(binary, exe);
  } catch {
    copyFileSync(binary, exe);
  }
  const sb = await start(['--clock', 'manual'], exe);
  while (!/AccessToken/.test(sb.output())) await new Promise((r) => setTimeout(r, 10));
  // Once it listens it gets 16 more listening handles (src/accept.ts) from the executable run as
  // their helper, with no Node and no environment; the helper is gone after. Eight connections
  // open at once are served meanwhile.
  const held = await Promise.all(
    Array.from(
      { length: 8 },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(Number(new URL(sb.url).port), '127.0.0.1', () => resolve(s)).on('error', reject);
        }),
    ),
  );
  expect(await settledDescriptors(sb.proc.pid as number, Number(new URL(sb.url).port), 17)).toBe(17);
  expect(await settledChildren(sb.proc.pid as number)).toEqual([]);
  for (const s of held) s.destroy();
  expect(sb.output()).toMatch(/Scenario:\s+default \(.*payout-sandbox\/scenarios\/default\.json\)/);
  expect(sb.output()).toContain('x-merchant-email: demo@payout-sandbox.test');
  // The command's V8 flag (src/v8-tuning.ts) is set in the executable too.
  expect((await (await fetch(`${sb.url}/__sandbox/health`)).json()).v8_flags).toEqual(['--no-allocation-site-pretenuring']);
  // A magic amount of the shipped scenario, read from inside the executable.
  const rejected = await initialize(sb.url, 'BIN0001', 1001.02);
  expect(rejected.status).toBe(400);
  expect((await rejected.json()).error.code).toBe('INSUFFICIENT_BALANCE');
  const ok = await initialize(sb.url, 'BIN0002', 100);
  const { data } = await ok.json();
  await fetch(`${sb.url}/__sandbox/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"by":"5s"}' });
  const status = await (await fetch(`${sb.url}/api/v1/public/payment/transfer/status?ref_id=${data.ref_id}`, { headers: DEMO })).json();
  expect(status.data.transaction.status).toBe('Success');
  // Another shipped scenario by name, also from inside.
  const switched = await fetch(`${sb.url}/__sandbox/scenario`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: '{"name":"realistic"}',
  });
  expect(switched.status).toBe(200);
  expect((await switched.json()).name).toBe('realistic');
  expect(
    (await fetch(`${sb.url}/__sandbox/scenario`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"name":"nope"}' })).status,
  ).toBe(404);
  expect(await stop(sb.proc)).toBe(0);
  expect(existsSync(join(dir(), '.sandbox/db.json'))).toBe(true);
});

test("the dashboard loads from inside the executable: the page, the script and style it names, the script's source map", async () => {
  const sb = await start(['--data', 'memory']);
  const page = await fetch(`${sb.url}/__sandbox/ui/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  const files = [...html.matchAll(/(?:href|src)="(\/__sandbox\/ui\/[^"]+)"/g)].map((m) => m[1]);
  // One script (the modules and Preact + htm bundled by the build), its source map, and the style.
  expect(files.sort()).toEqual(['/__sandbox/ui/app.js', '/__sandbox/ui/style.css']);
  files.push('/__sandbox/ui/app.js.map');
  for (const file of files) {
    const res = await fetch(`${sb.url}${file}`);
    expect({ file, status: res.status, type: res.headers.get('content-type')?.split(';')[0] }).toEqual({
      file,
      status: 200,
      type: file.endsWith('.css') ? 'text/css' : file.endsWith('.map') ? 'application/json' : 'text/javascript',
    });
  }
  expect((await fetch(`${sb.url}/__sandbox/ui/nope.js`)).status).toBe(404);
  // Only the dashboard's files: not the other files inside it.
  expect((await fetch(`${sb.url}/__sandbox/ui/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
  expect(await stop(sb.proc)).toBe(0);
});

test('a scenario file of your own (YAML, extending the shipped default); options as flags and as SANDBOX_* variables', async () => {
  writeFileSync(
    join(dir(), 'mine.yaml'),
    '# yaml-language-server: $schema=payout-sandbox/schemas/scenario.schema.json\nextends: default\nname: mine\npayouts:\n  rules:\n    - { name: small, match: { amount: 1.23 }, reject: { code: INVALID_BENEFICIARY } }\n',
  );
  const sb = await start(['--scenario', 'mine.yaml', '--data', 'memory'], binary, dir(), {
    SANDBOX_CLOCK: 'manual',
    SANDBOX_SEED: '5',
    SANDBOX_ADMIN_TOKEN: 'bin-admin-token-0001',
  });
  expect((await (await initialize(sb.url, 'BIN0003', 1.23)).json()).error.code).toBe('INVALID_BENEFICIARY');
  expect((await (await initialize(sb.url, 'BIN0004', 1001.02)).json()).error.code).toBe('INSUFFICIENT_BALANCE');
  expect((await fetch(`${sb.url}/__sandbox/clock`)).status).toBe(401);
  const clock = await (await fetch(`${sb.url}/__sandbox/clock`, { headers: { authorization: 'Bearer bin-admin-token-0001' } })).json();
  expect(clock.mode).toBe('manual');
  expect(await stop(sb.proc)).toBe(0);
});

test('bad input: the same message and exit 2 as the Node CLI (an unknown option, an unknown verb, a bad value)', async () => {
  for (const args of [['--bogus'], ['wat'], ['--port', 'x'], ['--clock', 'sometimes'], ['wait', '--timeout', 'soon']]) {
    const exe = run(args);
    const node = await runCli(args);
    expect({ args, code: exe.code, stderr: exe.stderr }).toEqual({ args, code: 2, stderr: node.stderr });
  }
  expect(run(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  expect(run(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('--review-fail-on') });
  expect(run(['probe-webhook', '--help'])).toMatchObject({ code: 0 });
  // Listening on every address with neither a token nor the opt-out: refused, naming both ways.
  const open = run(['--host', '0.0.0.0', '--data', 'memory']);
  expect(open.code).toBe(2);
  expect(open.stderr).toMatch(/SANDBOX_ADMIN_TOKEN.*SANDBOX_INSECURE_OPEN_CONTROL=1/s);
});

test('every verb of the verb table runs in the executable: its --help, exit 0', async () => {
  const { VERBS } = await import('../src/client/verbs.js');
  expect(Object.keys(VERBS)).toEqual(expect.arrayContaining(['probe-webhook', 'wait']));
  for (const verb of Object.keys(VERBS)) {
    const r = run([verb, '--help']);
    expect({ verb, code: r.code, out: `${r.stdout}${r.stderr}` }).toEqual({ verb, code: 0, out: expect.stringContaining(`payout-sandbox ${verb}`) });
  }
}, 60_000);

test('wait: exit 0 once healthy; exit 1 after the timeout when nothing, or something else, answers', async () => {
  const port = await freePort();
  const waiting = spawn(binary, ['wait', '--url', `http://127.0.0.1:${port}`, '--timeout', '10s'], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(waiting);
  let out = '';
  waiting.stdout?.on('data', (d) => (out += d));
  const waited = new Promise<number | null>((resolve) => waiting.once('exit', resolve));
  await new Promise((r) => setTimeout(r, 300));
  const sb = spawn(binary, ['--port', String(port), '--data', 'memory'], { env: {}, stdio: 'ignore' });
  running.add(sb);
  expect(await waited).toBe(0);
  expect(out).toMatch(/^payout-sandbox \d+\.\d+\.\d+ is healthy at http:\/\/127\.0\.0\.1:\d+\n$/);
  expect(await stop(sb)).toBe(0);

  const nothing = run(['wait', '--url', `http://127.0.0.1:${port}`, '--timeout', '300ms']);
  expect(nothing.code).toBe(1);
  expect(nothing.stderr).toMatch(/no healthy sandbox at http:\/\/127\.0\.0\.1:\d+ after 300ms: nothing answered \(ECONNREFUSED\)/);

  // Without --url: $SANDBOX_URL, else 127.0.0.1 on $SANDBOX_PORT (the container's HEALTHCHECK).
  const byPort = spawnSync(binary, ['wait', '--timeout', '200ms'], { env: { SANDBOX_PORT: String(port) }, encoding: 'utf8' });
  expect(byPort.stderr).toContain(`no healthy sandbox at http://127.0.0.1:${port} after 200ms`);
  const byUrl = spawnSync(binary, ['wait', '--timeout', '200ms'], { env: { SANDBOX_URL: `http://127.0.0.1:${port}/__sandbox` }, encoding: 'utf8' });
  expect(byUrl.stderr).toContain(`no healthy sandbox at http://127.0.0.1:${port} after 200ms`);
  expect(spawnSync(binary, ['wait'], { env: { SANDBOX_URL: 'nope' }, encoding: 'utf8' })).toMatchObject({
    status: 2,
    stderr: expect.stringContaining('SANDBOX_URL must be'),
  });

  // Another program on the port: it reads the request before it answers (answering first and
  // closing with the request unread makes the kernel reset the connection), and a reset from the
  // client after the answer is not this test's failure.
  const other = createServer((socket) => {
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (d) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) socket.end('HTTP/1.1 404 Not Found\r\ncontent-type: text/html\r\ncontent-length: 9\r\n\r\nnot here!');
    });
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const otherPort = (other.address() as { port: number }).port;
  // Not spawnSync: this process must go on answering as the other program.
  const r = await runAsync(['wait', '--url', `http://127.0.0.1:${otherPort}/__sandbox/health`, '--timeout', '1s']);
  other.close();
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/after 1s: something else answers there, not a payout-sandbox \(GET .*: HTTP 404, text\/html\)/);
}, 30_000);

test('start → healthy: the executable, with its code cache, is up sooner than node running the same CLI (medians of 5, taking turns)', async () => {
  // A baseline measured in the same run, not a fixed time: this machine's speed varies by half
  // from hour to hour, and by more when other tests run beside this one.
  const times = { executable: [] as number[], node: [] as number[] };
  const args = ['--data', 'memory', '--log-level', 'silent'];
  for (let i = 0; i < 5; i++) {
    const exe = await start(args);
    times.executable.push(exe.ms);
    await stop(exe.proc);
    const node = await start(args, process.execPath, dir(), {}, [join(ROOT, 'bin/payout-sandbox.js')]);
    times.node.push(node.ms);
    await stop(node.proc);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[2];
  const line = (xs: number[]) => `${xs.map((t) => t.toFixed(0)).join(', ')} ms (median ${median(xs).toFixed(0)})`;
  process.stdout.write(`start → healthy: executable ${line(times.executable)}; node bin/payout-sandbox.js ${line(times.node)}\n`);
  expect(median(times.executable)).toBeLessThan(median(times.node));
}, 60_000);

/** A folder with only python3 in it: the PATH of a machine without Node. */
function pathWithoutNode(): string {
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : spawnSync('which', ['python3'], { encoding: 'utf8' }).stdout.trim();
  const bin = join(dir(), 'path');
  mkdirSync(bin);
  symlinkSync(realpathSync(python), join(bin, 'python3'));
  return bin;
}

test('examples/python: its unittest suite passes against the executable, with no Node anywhere in its environment', async () => {
  const sb = await start(['--data', 'memory', '--clock', 'manual']);
  const env = { PATH: pathWithoutNode(), PAYOUT_SANDBOX_URL: sb.url, PYTHONDONTWRITEBYTECODE: '1' };
  expect(spawnSync('python3', ['-c', 'import shutil; print(shutil.which("node"))'], { env, encoding: 'utf8' }).stdout.trim()).toBe('None');
  const suite = spawnSync('python3', ['-m', 'unittest', '-v'], { cwd: join(ROOT, 'examples/python'), env, encoding: 'utf8', timeout: 60_000 });
  expect({ code: suite.status, out: suite.stderr }).toEqual({ code: 0, out: expect.stringMatching(/Ran 4 tests in .*\n\nOK/) });
  expect(await stop(sb.proc)).toBe(0);
}, 60_000);

test('the GitHub Action runs the executable when its checkout has one: main, then post', async () => {
  const checkout = actionCheckout(dir(), 'executable', binary);
  const main = await runStep(checkout, 'main', dir(), { port: '0', clock: 'manual' });
  expect(main.code).toBe(0);
  expect(main.outputs['merchant-email']).toBe('demo@payout-sandbox.test');
  const pid = Number(main.state.pid);
  expect(realpathSync(`/proc/${pid}/exe`)).toBe(realpathSync(binary));
  const post = await runStep(checkout, 'post', dir(), {}, main.state);
  expect(post.code).toBe(0);
  expect(post.summary).toMatch(/Behaviour coverage/);
}, 30_000);

import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { BIN, killAll, runCli, startCli } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * A restart after a crash, whatever state the dead process is in; a stop at any moment of the
 * start; a start that fails leaving nothing behind: on the real CLI (dist/).
 */

const children = new Set<ChildProcess>();
const dir = useTempDir(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
  killAll();
});
const data = () => join(dir(), 'db.json');
const base = (extra: string[] = []) => ['--port', '0', '--data', data(), '--clock', 'manual', '--log-level', 'silent', ...extra];

const DEMO = {
  'x-merchant-email': 'demo@payout-sandbox.test',
  'x-api-key': 'sbx_key_demo_0001',
  'x-api-secret': 'sbx_secret_demo_0001',
  'content-type': 'application/json',
};

async function payout(url: string, ref: string): Promise<void> {
  const res = await fetch(`${url}/api/v1/public/payment/transfer`, {
    method: 'POST',
    headers: DEMO,
    body: JSON.stringify({
      client_ref_id: ref,
      transfer_type: 'BANK',
      amount: 100,
      payment_method: '1001',
      debit_from: 'DEMOVAN0000000000001',
      beneficiary_id: 'BENEDEMO000000000001',
      purpose: 'VENDOR_PAYOUT',
      remarks: 'restart',
    }),
  });
  expect(res.status).toBe(200);
}

/** Resolves once `check` holds, looking again at each turn of a short timer (a file, a process state): never a fixed wait. */
async function until<T>(what: string, check: () => T | null | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The state letter of a process in /proc/<pid>/stat (R, S, Z, …), or null when there is no such process. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

function exited(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode });
    else proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** The files of the test's directory, but the ones a test put there itself. */
function files(except: string[] = []): string[] {
  return readdirSync(dir())
    .filter((f) => !except.includes(f))
    .sort();
}

test('a symlinked data file is still a symlink after the compaction of a clean stop, and its target holds the payout', async () => {
  mkdirSync(join(dir(), 'real'));
  symlinkSync('real/target.json', data());
  const running = await startCli(base());
  await payout(running.url, 'LINKED0001');
  // The lock and the log are beside the file the link names, not beside the link.
  expect(existsSync(join(dir(), 'real/target.json.lock'))).toBe(true);
  expect(await running.stop()).toBe(0);
  expect(lstatSync(data()).isSymbolicLink()).toBe(true);
  const target = JSON.parse(readFileSync(join(dir(), 'real/target.json'), 'utf8')) as { payouts: Record<string, { client_ref_id: string }> };
  expect(Object.values(target.payouts).map((p) => p.client_ref_id)).toContain('LINKED0001');
  expect(files()).toEqual(['db.json', 'real']);
  expect(readdirSync(join(dir(), 'real')).sort()).toEqual(['target.json', 'target.json.log']);
  // A start on the link finds the payout: it reads the file the link names.
  const again = await startCli(base());
  const res = await fetch(`${again.url}/api/v1/public/payment/transfer/status?client_ref_id=LINKED0001`, { headers: DEMO });
  expect(res.status).toBe(200);
  expect(await again.stop()).toBe(0);
}, 30_000);

test('a restart while the killed holder of the lock is a zombie (not reaped by its parent) takes the lock over', async () => {
  // A parent that never waits for its children: `exec sleep` leaves the sandbox to a process that never reaps it.
  const parent = spawn('sh', ['-c', `"$0" "$@" & echo "pid $!"; exec sleep 300`, process.execPath, BIN, ...base()], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(parent);
  let out = '';
  parent.stdout!.on('data', (d) => (out += d));
  parent.stderr!.on('data', (d) => (out += d));
  const first = await until('the first sandbox listening', () => /API base URL:\s+\S+/.test(out) && Number(/^pid (\d+)$/m.exec(out)?.[1]));
  process.kill(first, 'SIGKILL');
  await until('the killed sandbox a zombie', () => procState(first) === 'Z');
  expect(JSON.parse(readFileSync(`${data()}.lock`, 'utf8'))).toMatchObject({ pid: first });

  const restarted = await startCli(base());
  expect(procState(first)).toBe('Z');
  expect(restarted.output()).toContain(`took over the lock left by pid ${first}, which is no longer running`);
  expect(JSON.parse(readFileSync(`${data()}.lock`, 'utf8'))).toMatchObject({ pid: restarted.proc.pid });
  expect(await restarted.stop()).toBe(0);
}, 30_000);

/** Starts the CLI paused at a named point of its start (the test variable), resolved once it is there. */
async function pausedAt(point: string, args: string[]): Promise<{ proc: ChildProcess; output: () => string }> {
  const marker = join(dir(), `paused-${point}`);
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, PAYOUT_SANDBOX_TEST_PAUSE: `${point}:${marker}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  await until(`paused at ${point}`, () => existsSync(marker) || proc.exitCode !== null);
  expect({ exit: proc.exitCode, out }).toEqual({ exit: null, out: '' });
  expect(readFileSync(marker, 'utf8')).toBe(`${point} ${proc.pid}\n`);
  return { proc, output: () => out };
}

describe('a SIGTERM or SIGINT at any point of the start stops it cleanly: 143 / 130, no lock, no temporary file, the data file as it was, no report', () => {
  const reports = () => [
    '--review-report',
    join(dir(), 'out/review.md'),
    '--coverage-report',
    join(dir(), 'out/coverage.json'),
    '--trace-dir',
    join(dir(), 'traces'),
  ];
  const cases: Array<[point: string, signal: NodeJS.Signals, code: number, held: string[]]> = [
    // The lock's temporary file written, not yet linked into place.
    ['lock', 'SIGTERM', 143, ['db.json.lock.PID.tmp']],
    // The lock held, the document read, the log not yet replayed.
    ['replay', 'SIGTERM', 143, ['db.json.lock']],
    ['open', 'SIGINT', 130, ['db.json.lock']],
    // Everything open and due items run, not yet listening.
    ['listen', 'SIGTERM', 143, ['db.json.lock']],
    ['listen', 'SIGINT', 130, ['db.json.lock']],
  ];
  test.each(cases)(
    'at %s, %s: exit %i',
    async (point, signal, code, held) => {
      // An existing store with a payout in its log (a stop by SIGKILL leaves the log unfolded).
      const first = await startCli(base());
      await payout(first.url, 'BEFORE0001');
      await first.stop('SIGKILL');
      // Its lock is left for the next start to take over: not what this test is about.
      rmSync(`${data()}.lock`);
      const before = { doc: readFileSync(data(), 'utf8'), log: readFileSync(`${data()}.log`, 'utf8') };
      expect(before.log).toContain('BEFORE0001');

      const paused = await pausedAt(point, base(reports()));
      expect(files([`paused-${point}`])).toEqual(['db.json', ...held.map((f) => f.replace('PID', String(paused.proc.pid))), 'db.json.log'].sort());
      paused.proc.kill(signal);
      expect(await exited(paused.proc)).toEqual({ code, signal: null });
      expect(paused.output()).toBe(`payout-sandbox: ${signal} during start-up (at "${point}"): stopped before serving; nothing written, the lock removed\n`);
      expect(files([`paused-${point}`])).toEqual(['db.json', 'db.json.log']);
      expect({ doc: readFileSync(data(), 'utf8'), log: readFileSync(`${data()}.log`, 'utf8') }).toEqual(before);

      // The next start is clean: no lock to take over, no leftover to remove.
      const next = await startCli(base());
      expect(next.output()).not.toMatch(/took over|removed/);
      expect(await next.stop()).toBe(0);
    },
    30_000,
  );

  test('a new store stopped before it listens writes no data file at all', async () => {
    const paused = await pausedAt('open', base(reports()));
    paused.proc.kill('SIGTERM');
    expect(await exited(paused.proc)).toEqual({ code: 143, signal: null });
    expect(files(['paused-open'])).toEqual([]);
  }, 30_000);

  test('a SIGTERM once listening, while the start writes the lock and the ready file: a clean stop (exit 0, reports written), nothing left', async () => {
    await startCli(base()).then((r) => r.stop());
    const ready = join(dir(), 'ready.json');
    const paused = await pausedAt('ready', base([...reports(), '--ready-file', ready]));
    paused.proc.kill('SIGTERM');
    expect(await exited(paused.proc)).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir(), 'out/review.md'))).toBe(true);
    expect(existsSync(join(dir(), 'out/coverage.json'))).toBe(true);
    expect(files(['paused-ready'])).toEqual(['db.json', 'db.json.log', 'out', 'traces']);
  }, 30_000);
});

test('a report that can no longer be written at the stop (its directory replaced by a file meanwhile): exit 1, one line naming it, the other reports written', async () => {
  const reports = join(dir(), 'reports');
  const running = await startCli(base(['--review-report', join(reports, 'review.md'), '--coverage-report', join(dir(), 'coverage.json')]));
  rmSync(reports, { recursive: true, force: true });
  writeFileSync(reports, 'not a directory');
  expect(await running.stop()).toBe(1);
  expect(running.output()).toMatch(
    new RegExp(`\\npayout-sandbox: stopped, but could not write --review-report ${join(reports, 'review.md')}: [^\\n]+ \\(E[A-Z]+\\)\\n$`),
  );
  expect(running.output()).not.toMatch(/\n\s+at /);
  expect(existsSync(join(dir(), 'coverage.json'))).toBe(true);
  expect(existsSync(`${data()}.lock`)).toBe(false);
}, 30_000);

describe('a start that fails writes nothing it need not, and says why in one line', () => {
  let busy: Server;
  afterEach(() => busy?.close());

  test('a port in use: exit 1, no review or coverage report, no trace, no lock', async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const review = join(dir(), 'review.md');
    const coverage = join(dir(), 'coverage.json');
    const r = await runCli([...base(['--review-report', review, '--coverage-report', coverage, '--trace-dir', join(dir(), 'traces')]), '--port', String(port)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^payout-sandbox: cannot listen: port ${port} on 127\\.0\\.0\\.1 is in use .*\\n$`));
    expect(files()).toEqual(['db.json', 'db.json.log']);
  }, 30_000);

  test('--data under a file: exit 2, one line naming the file', async () => {
    writeFileSync(join(dir(), 'some-file'), 'x');
    const r = await runCli(base().map((a) => (a === data() ? join(dir(), 'some-file/db.json') : a)));
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `payout-sandbox: ${join(dir(), 'some-file/db.json')}: cannot use this data file: ${join(dir(), 'some-file')} is a file, not a directory\n`,
    });
  });

  const reportCases: Array<[option: string, path: (d: string) => string, problem: (d: string) => string]> = [
    ['--review-report', (d) => `${d}/some-file/review.md`, (d) => `${d}/some-file is a file, not a directory`],
    ['--coverage-report', (d) => `${d}/some-file/deeper/coverage.xml`, (d) => `${d}/some-file is a file, not a directory`],
    ['--ready-file', (d) => d, () => 'it is a directory, not a file'],
    ['--trace-dir', (d) => `${d}/some-file`, () => 'it is a file, not a directory'],
  ];
  test.each(reportCases)(
    '%s that cannot be written: exit 2 at start naming the path and why, before the data file is touched',
    async (option, path, problem) => {
      writeFileSync(join(dir(), 'some-file'), 'x');
      const r = await runCli(base([option, path(dir())]));
      expect(r).toEqual({ code: 2, stdout: '', stderr: `payout-sandbox: ${option} ${path(dir())}: cannot be written: ${problem(dir())}\n` });
      expect(files()).toEqual(['some-file']);
    },
  );

  // Permissions: as root (CI) the sandbox runs without the capabilities that bypass them (util-linux's
  // setpriv), still root, so it reads this checkout wherever it is (a clone in a 0700 directory too).
  const NO_BYPASS = '-dac_override,-dac_read_search';
  const command = (args: string[]): [string, string[]] =>
    process.getuid?.() === 0
      ? ['setpriv', ['--bounding-set', NO_BYPASS, '--inh-caps', NO_BYPASS, process.execPath, BIN, ...args]]
      : [process.execPath, [BIN, ...args]];
  test('a report directory or a data location without permission: exit 2 at start, naming it', async () => {
    chmodSync(dir(), 0o755);
    const locked = join(dir(), 'locked');
    mkdirSync(locked, { mode: 0o555 });
    chmodSync(locked, 0o555);
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const proc = spawn(...command(['--port', '0', '--log-level', 'silent', ...args]), { stdio: ['ignore', 'ignore', 'pipe'] });
        children.add(proc);
        let stderr = '';
        proc.stderr.on('data', (d) => (stderr += d));
        proc.once('exit', (code) => resolve({ code, stderr }));
      });
    const review = await run(['--data', 'memory', '--review-report', join(locked, 'reports/review.md')]);
    expect(review).toEqual({
      code: 2,
      stderr: `payout-sandbox: --review-report ${join(locked, 'reports/review.md')}: cannot be written: ${locked}: permission denied (EACCES)\n`,
    });
    const store = await run(['--data', join(locked, 'db.json')]);
    expect(store).toEqual({
      code: 2,
      stderr: `payout-sandbox: ${join(locked, 'db.json.lock')}: cannot write the lock file beside the data file: permission denied (EACCES)\n`,
    });
    expect(readdirSync(locked)).toEqual([]);
  });
});

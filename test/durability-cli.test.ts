import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll, runCli, startCli } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * The data file on the real CLI: anything that is not a valid data file stops the start (exit 2,
 * the file and the problem named) with every byte left as it was; one data file has one process;
 * a compaction's leftover is removed; and a disk that fills up loses nothing acknowledged.
 */

const dir = useTempDir(killAll);
const data = () => join(dir(), 'db.json');
const base = (extra: string[] = []) => ['--port', '0', '--data', data(), '--clock', 'manual', '--log-level', 'silent', ...extra];

/**
 * Every file under the directory with the SHA-256 of its bytes (a directory as `dir/`); not the
 * lock, which the killed sandbox left behind and a start takes over (it holds no data).
 */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) {
        out[`${prefix}${e.name}/`] = 'dir';
        walk(path, `${prefix}${e.name}/`);
      } else if (e.isFIFO()) out[`${prefix}${e.name}`] = 'fifo';
      else if (!e.name.endsWith('.lock')) out[`${prefix}${e.name}`] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(dir(), '');
  return out;
}

/** A real data file with its log (a stopped sandbox that made two payouts, then was killed). */
async function realStore(): Promise<{ doc: Record<string, unknown>; log: string }> {
  const running = await startCli(base());
  const headers = {
    'x-merchant-email': 'demo@payout-sandbox.test',
    'x-api-key': 'sbx_key_demo_0001',
    'x-api-secret': 'sbx_secret_demo_0001',
    'content-type': 'application/json',
  };
  for (const ref of ['DUR000001', 'DUR000002']) {
    const body = {
      client_ref_id: ref,
      transfer_type: 'BANK',
      amount: 100,
      payment_method: '1001',
      debit_from: 'DEMOVAN0000000000001',
      beneficiary_email: 'b@example.com',
      beneficiary_mobile: '9876543210',
      beneficiary_name: 'Payee',
      account_number: '123456789012',
      ifsc_code: 'HDFC0000001',
      purpose: 'VENDOR_PAYOUT',
      remarks: 'x',
    };
    const res = await fetch(`${running.url}/api/v1/public/payment/transfer`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
  }
  await running.stop('SIGKILL');
  return { doc: JSON.parse(readFileSync(data(), 'utf8')) as Record<string, unknown>, log: readFileSync(`${data()}.log`, 'utf8') };
}

describe('a data file that is not a valid one stops the start: exit 2, the file and the problem named, nothing changed', () => {
  const cases: Array<[string, (store: { doc: Record<string, unknown>; log: string }) => void, RegExp]> = [
    [
      'the document is null (with its log beside it)',
      () => writeFileSync(data(), 'null'),
      /db\.json: not a payout-sandbox data file \(the document is null, not an object\)/,
    ],
    ['the document is an array', () => writeFileSync(data(), '[]'), /db\.json: not a payout-sandbox data file \(the document is an array/],
    ['an empty file', () => writeFileSync(data(), ''), /db\.json: the data file is not valid JSON \(the file is empty\)/],
    [
      'schema_version alone',
      () => writeFileSync(data(), '{"schema_version":1}'),
      /db\.json: not a payout-sandbox data file: \/merchants: expected required property/,
    ],
    [
      'payouts is an array',
      ({ doc }) => writeFileSync(data(), JSON.stringify({ ...doc, payouts: [] })),
      /db\.json: not a payout-sandbox data file: \/payouts: expected object/,
    ],
    [
      'the clock is a string',
      ({ doc }) => writeFileSync(data(), JSON.stringify({ ...doc, clock: 'noon' })),
      /db\.json: not a payout-sandbox data file: \/clock: expected object/,
    ],
    ['another schema version', ({ doc }) => writeFileSync(data(), JSON.stringify({ ...doc, schema_version: 2 })), /schema_version is 2; this sandbox reads 1/],
    [
      'an account without its ledger',
      ({ doc }) => writeFileSync(data(), JSON.stringify({ ...doc, accounts: { ...(doc.accounts as object), X: {} } })),
      /db\.json: not a payout-sandbox data file: \/accounts\/X\/account_no: expected required property/,
    ],
    [
      'a torn last line beside a damaged document: the notice is said, the log is not cut',
      ({ doc }) => {
        writeFileSync(data(), JSON.stringify({ ...doc, payouts: [] }));
        writeFileSync(`${data()}.log`, `${readFileSync(`${data()}.log`, 'utf8')}{"g":1,"s":[0,0`);
      },
      /db\.json: not a payout-sandbox data file: \/payouts: expected object/,
    ],
    [
      'the change log is a directory',
      () => {
        const log = `${data()}.log`;
        // Replace the log by a directory.
        spawnSync('rm', ['-f', log]);
        mkdirSync(log);
      },
      /db\.json\.log: cannot read the change log: it is a directory, not a file \(EISDIR\)/,
    ],
    [
      'the data file is gone and its change log is not (a new store would have emptied the log)',
      () => spawnSync('rm', ['-f', data()]),
      /db\.json\.log: the change log holds \d+ bytes of changes, but .*db\.json does not exist: .*Put .*db\.json back/,
    ],
    [
      'the data file is a FIFO (reading it would wait for a writer for ever)',
      () => {
        spawnSync('rm', ['-f', data()]);
        spawnSync('mkfifo', [data()]);
      },
      /db\.json: cannot read the data file: it is a FIFO, not a regular file/,
    ],
    [
      'the change log is a FIFO',
      () => {
        spawnSync('rm', ['-f', `${data()}.log`]);
        spawnSync('mkfifo', [`${data()}.log`]);
      },
      /db\.json\.log: cannot read the change log: it is a FIFO, not a regular file/,
    ],
    [
      'the data file is a directory',
      () => {
        spawnSync('rm', ['-f', data()]);
        mkdirSync(data());
      },
      /db\.json: cannot read the data file: it is a directory, not a file \(EISDIR\)/,
    ],
  ];
  test.each(cases)(
    '%s',
    async (_name, damage, message) => {
      const store = await realStore();
      damage(store);
      const before = snapshot();
      const r = await runCli(base());
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(snapshot()).toEqual(before);
    },
    30_000,
  );
});

test('one data file, one process: a second start exits 2 at once naming the first (pid, port); the first keeps serving; nothing is written', async () => {
  const first = await startCli(base());
  const port = new URL(first.url).port;
  const before = { ...snapshot(), lock: readFileSync(`${data()}.lock`, 'utf8') };
  const started = Date.now();
  const second = await runCli(base());
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(second.code).toBe(2);
  expect(second.stderr).toContain(`${data()} is in use by the sandbox pid ${first.proc.pid} (port ${port}`);
  expect({ ...snapshot(), lock: readFileSync(`${data()}.lock`, 'utf8') }).toEqual(before);
  expect((await fetch(`${first.url}/__sandbox/health`)).status).toBe(200);
  // The same, on the same port: the lock refuses before the port is tried (nothing compacted).
  const samePort = await runCli(['--port', port, '--data', data(), '--log-level', 'silent']);
  expect(samePort.code).toBe(2);
  expect({ ...snapshot(), lock: readFileSync(`${data()}.lock`, 'utf8') }).toEqual(before);
  expect(await first.stop()).toBe(0);
  // A clean stop lets go of the lock.
  expect(existsSync(`${data()}.lock`)).toBe(false);
}, 30_000);

test('a lock left by a process that is gone is taken over, with a warning', async () => {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(dead.stdout);
  const { hostname } = await import('node:os');
  writeFileSync(`${data()}.lock`, JSON.stringify({ pid, host: hostname(), port: 4999, started_at: '2026-01-01T00:00:00.000Z' }));
  const running = await startCli(base());
  expect(running.output()).toContain(`took over the lock left by pid ${pid}, which is no longer running`);
  const lock = JSON.parse(readFileSync(`${data()}.lock`, 'utf8')) as { pid: number; port: number };
  expect(lock).toMatchObject({ pid: running.proc.pid, port: Number(new URL(running.url).port) });
  expect(await running.stop()).toBe(0);
}, 30_000);

test('a lock whose pid now belongs to a newer process (the pid was given again) is taken over', async () => {
  const { spawn } = await import('node:child_process');
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    const { hostname } = await import('node:os');
    // The lock says its holder started in 2020; the process with that pid now started just now.
    writeFileSync(`${data()}.lock`, JSON.stringify({ pid: other.pid, host: hostname(), port: 4999, started_at: '2020-01-01T00:00:00.000Z' }));
    const running = await startCli(base());
    expect(running.output()).toContain(`took over the lock left by pid ${other.pid}, which is no longer running`);
    expect(await running.stop()).toBe(0);
  } finally {
    other.kill('SIGKILL');
  }
}, 30_000);

test("a compaction's leftover (a stop before its rename) is removed at start, with a line saying so", async () => {
  await realStore();
  const leftover = join(dir(), '.db.json.tmp');
  writeFileSync(leftover, '{"schema_version":1,"half');
  const running = await startCli(base());
  expect(running.output()).toMatch(/\.db\.json\.tmp: removed the partial document a compaction left/);
  expect(existsSync(leftover)).toBe(false);
  expect(await running.stop()).toBe(0);
  expect(statSync(data()).size).toBeGreaterThan(0);
}, 30_000);

const DISK_FULL = fileURLToPath(new URL('../scripts/disk-full.js', import.meta.url));

test('a disk that fills up for real (a small tmpfs): nothing answered 200 is lost; space back, the sandbox goes on and stops cleanly', () => {
  const run = spawnSync(process.execPath, [DISK_FULL, '--json'], { encoding: 'utf8', timeout: 120_000 });
  if (run.status === 77) {
    // Needs root and mount (a tmpfs); CI runs as root and must run it.
    expect(process.env.CI).not.toBe('true');
    console.log(`disk-full test skipped: ${run.stderr.trim()}`);
    return;
  }
  expect(run.stderr).toBe('');
  const report = JSON.parse(run.stdout) as { ok: boolean; lost: number; phases: Array<Record<string, unknown>> };
  expect(report.lost).toBe(0);
  expect(report.phases[0]).toMatchObject({ refusedWhileFull: true, lost: 0 });
  expect(report.phases[1]).toMatchObject({ upWhileFull: true, exitCode: 0 });
  expect(report.phases[2]).toMatchObject({ lost: 0, balanceOk: true, exitCode: 0 });
  expect(report.ok).toBe(true);
}, 150_000);

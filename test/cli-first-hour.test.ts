import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll, runCli, startCli } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * What a new user meets in the first hour, on the real CLI: `npm start` stopped through npm,
 * a ready file and a "listening" line for scripts, a port in use explained, the coverage report
 * in the form a CI wants.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = useTempDir(killAll);

/** Resolves when `check` holds, looking every 50 ms for at most `ms` (waiting on the event, not for a time). */
async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('`npm start &` then `kill $!` (the signal reaches npm, not the sandbox): the sandbox stops all the same and writes its report', async () => {
  const ready = join(dir(), 'ready.json');
  const report = join(dir(), 'coverage.json');
  const npm = spawn(
    'npm',
    ['start', '--silent', '--', '--port', '0', '--data', 'memory', '--log-level', 'silent', '--ready-file', ready, '--coverage-report', report],
    {
      cwd: ROOT,
      stdio: 'ignore',
    },
  );
  try {
    await until('the ready file', () => existsSync(ready));
    const { pid, url } = JSON.parse(readFileSync(ready, 'utf8')) as { pid: number; url: string };
    expect(pid).not.toBe(npm.pid);
    expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200);
    npm.kill('SIGTERM');
    await until('the report', () => existsSync(report));
    await until('the sandbox to exit', () => !alive(pid));
    expect(JSON.parse(readFileSync(report, 'utf8')).summary.total).toBeGreaterThan(0);
    expect(existsSync(ready)).toBe(false);
  } finally {
    npm.kill('SIGKILL');
  }
}, 30_000);

test('--ready-file and the "listening" log line say where it listens, for scripts', async () => {
  const ready = join(dir(), 'sub', 'ready.json');
  const running = await startCli(['--port', '0', '--data', 'memory', '--ready-file', ready]);
  const info = JSON.parse(readFileSync(ready, 'utf8')) as Record<string, unknown>;
  expect(info).toEqual({ url: running.url, port: Number(new URL(running.url).port), pid: running.proc.pid, control_url: `${running.url}/__sandbox` });
  const line = running
    .output()
    .split('\n')
    .find((l) => l.includes('"msg":"listening"'));
  expect(JSON.parse(line!)).toMatchObject({ level: 30, msg: 'listening', url: running.url, port: info.port, pid: running.proc.pid });
  expect(await running.stop()).toBe(0);
  expect(existsSync(ready)).toBe(false);
}, 30_000);

test('a port in use says what to do', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as { port: number };
  try {
    const r = await runCli(['--port', String(port), '--data', 'memory', '--log-level', 'silent']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot listen: port ${port} on 127.0.0.1 is in use (another sandbox?`);
    expect(r.stderr).toContain('--port 0 for a free one');
  } finally {
    taken.close();
  }
}, 30_000);

describe('the coverage report in the form CI wants', () => {
  test('--coverage-uncovered skipped (a CI that collects **/*.xml stays green) and --coverage-ignore (groups left out of the total); it says where it wrote', async () => {
    const xml = join(dir(), 'coverage.xml');
    const running = await startCli([
      '--port',
      '0',
      '--data',
      'memory',
      '--coverage-report',
      xml,
      '--coverage-uncovered',
      'skipped',
      '--coverage-ignore',
      'verification,checkout',
    ]);
    const all = (await (await fetch(`${running.url}/__sandbox/coverage`)).json()) as { summary: { total: number } };
    const scoped = (await (await fetch(`${running.url}/__sandbox/coverage?ignore=verification,checkout`)).json()) as {
      summary: { total: number };
      ignored: string[];
    };
    expect(scoped.ignored).toEqual(['verification', 'checkout']);
    expect(scoped.summary.total).toBeLessThan(all.summary.total);
    expect((await fetch(`${running.url}/__sandbox/coverage?ignore=nothing`)).status).toBe(400);
    expect(await running.stop()).toBe(0);
    const text = readFileSync(xml, 'utf8');
    expect(text).toMatch(/failures="0" skipped="\d+"/);
    expect(text).not.toContain('classname="payout-sandbox.verification"');
    expect(text).toContain(`tests="${scoped.summary.total}"`);
    expect(running.output()).toContain(`coverage report written to ${xml}`);
  }, 30_000);

  test('bad values are refused at start naming the allowed ones', async () => {
    const a = await runCli(['--coverage-uncovered', 'nope']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('Allowed choices are failure, skipped.');
    const b = await runCli(['--coverage-ignore', 'verifications', '--data', 'memory']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--coverage-ignore: must be groups of the coverage catalogue, comma-separated: business-errors, payout-statuses');
  }, 30_000);
});

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, killAll, runCli, startCli } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * `payout-sandbox wait --pid PID --ready-file FILE` (docs/run-anywhere.md): a start that failed
 * is said at once rather than after the timeout, and only the sandbox that wrote the ready file
 * counts — not another one answering on the same port.
 */

const dir = useTempDir(killAll);

test('--pid of a process that has exited: exit 1 at once, naming it', async () => {
  const gone = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => gone.once('exit', resolve));
  const started = Date.now();
  const r = await runCli(['wait', '--pid', String(gone.pid), '--timeout', '10s']);
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 1,
    stderr: `payout-sandbox wait: the sandbox (pid ${gone.pid}) exited before it was healthy: its output says why.\n`,
  });
  expect(Date.now() - started).toBeLessThan(5_000);
  expect((await runCli(['wait', '--pid', 'abc'])).code).toBe(2);
});

test('a second sandbox on a taken port: wait --ready-file --pid says it exited, though the first answers there', async () => {
  const first = await startCli(['--port', '0', '--data', 'memory']);
  const port = new URL(first.url).port;
  const ready = join(dir(), 'second.ready');
  const second = spawn(process.execPath, [BIN, '--port', port, '--data', 'memory', '--ready-file', ready], { stdio: 'ignore' });
  const r = await runCli(['wait', '--url', first.url, '--ready-file', ready, '--pid', String(second.pid), '--timeout', '10s']);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(`payout-sandbox wait: the sandbox (pid ${second.pid}) exited before it was healthy: its output says why.\n`);
  expect(await first.stop()).toBe(0);
}, 30_000);

test('--ready-file: healthy at the URL the sandbox wrote (a free port), not before; a stale file of another pid does not count', async () => {
  const ready = join(dir(), 'sandbox.ready');
  // Left by an earlier sandbox killed with -9: another pid, another port.
  writeFileSync(ready, JSON.stringify({ url: 'http://127.0.0.1:9', port: 9, pid: 1, control_url: 'http://127.0.0.1:9/__sandbox' }));
  const sandbox = spawn(process.execPath, [BIN, '--port', '0', '--data', 'memory', '--ready-file', ready], { stdio: 'ignore' });
  const r = await runCli(['wait', '--ready-file', ready, '--pid', String(sandbox.pid), '--timeout', '10s']);
  expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^payout-sandbox \d+\.\d+\.\d+ is healthy at http:\/\/127\.0\.0\.1:(\d+)\n$/) });
  expect(r.stdout).not.toContain(':9\n');
  sandbox.kill('SIGTERM');
  expect(await new Promise((resolve) => sandbox.once('exit', resolve))).toBe(0);
  // Nothing wrote it: the timeout names the file.
  const none = await runCli(['wait', '--ready-file', join(dir(), 'never.ready'), '--timeout', '300ms']);
  expect(none).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(
      /^payout-sandbox wait: no healthy sandbox from \S+never\.ready after 300ms: \S+never\.ready was not written \(a sandbox's ready file, with its URL\)\.\n$/,
    ),
  });
}, 30_000);

test('--pid alone, another sandbox on the port: not taken for it (the health check names its pid); its exit said at once', async () => {
  const first = await startCli(['--port', '0', '--data', 'memory']);
  const port = new URL(first.url).port;
  const second = spawn(process.execPath, [BIN, '--port', port, '--data', 'memory'], { stdio: 'ignore' });
  const r = await runCli(['wait', '--url', first.url, '--pid', String(second.pid), '--timeout', '10s']);
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 1,
    stderr: `payout-sandbox wait: the sandbox (pid ${second.pid}) exited before it was healthy: its output says why.\n`,
  });
  expect(await first.stop()).toBe(0);
}, 30_000);

test('a zombie (exited, not reaped) is not running: wait --pid says so at once', async () => {
  // bash starts `true` in the background and becomes `sleep`, which never reaps it.
  const parent = spawn('bash', ['-c', 'true & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d)))));
  const r = await runCli(['wait', '--pid', String(zombie), '--timeout', '5s']);
  parent.kill('SIGKILL');
  expect(r).toMatchObject({ code: 1, stderr: expect.stringContaining(`the sandbox (pid ${zombie}) exited before it was healthy`) });
}, 30_000);

test("a ready file that is not one (garbage, a URL that is not a sandbox's): not taken, no crash", async () => {
  for (const text of ['garbage', JSON.stringify({ url: 'not a url' }), JSON.stringify({ url: 'file:///etc/passwd' })]) {
    const file = join(dir(), 'bad.ready');
    writeFileSync(file, text);
    const r = await runCli(['wait', '--ready-file', file, '--timeout', '300ms']);
    expect({ text, code: r.code, stderr: r.stderr }).toEqual({
      text,
      code: 1,
      stderr: expect.stringMatching(/^payout-sandbox wait: no healthy sandbox from \S+bad\.ready after 300ms: \S+bad\.ready was not written/),
    });
  }
});

test('one attempt with node:http: a server that never answers is "no answer within", a large page that never ends and is not the sandbox is named, a health answer is healthy', async () => {
  const { createServer } = await import('node:http');
  const held: Array<{ destroy(): void }> = [];
  const silent = createServer(() => undefined); // reads the request, never answers
  silent.on('connection', (s) => held.push(s));
  // A page that is not the sandbox, whose body never ends: judged by what came (its first 64 KiB), not waited out.
  const page = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).write('x'.repeat(1024 * 1024));
  });
  page.on('connection', (s) => held.push(s));
  const healthy = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, version: '9.9.9', pid: 1, v8_flags: [] })),
  );
  const urls: string[] = [];
  for (const s of [silent, page, healthy]) {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    urls.push(`http://127.0.0.1:${(s.address() as { port: number }).port}`);
  }
  try {
    const [a, b, c] = await Promise.all(urls.map((url) => runCli(['wait', '--url', url, '--timeout', '1s'])));
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/after 1s: no answer within \d+(ms|s)/) });
    expect({ code: b.code, stderr: b.stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(/after 1s: something else answers there, not a payout-sandbox \(GET .*: HTTP 404, text\/html\)/),
    });
    expect({ code: c.code, stdout: c.stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(/payout-sandbox 9\.9\.9 is healthy at http:\/\/127\.0\.0\.1:\d+/),
    });
  } finally {
    for (const s of held) s.destroy();
    for (const s of [silent, page, healthy]) s.close();
  }
});

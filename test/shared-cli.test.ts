import { connect } from 'node:net';
import { killAll, runCli, startCli } from './cli-helpers.js';
import { DEMO, demoHeaders, payoutBody, useTempDir } from './helpers.js';

/** The shared-sandbox guarantees, on the real process. */

useTempDir(killAll);

/** Sends `head` on a raw socket and resolves with the first chunk answered (or '' on close) and when. */
function raw(url: string, head: string): Promise<{ answer: string; ms: number; socket: ReturnType<typeof connect> }> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
      resolve({ answer, ms: performance.now() - started, socket });
    });
    socket.on('close', () => resolve({ answer, ms: performance.now() - started, socket }));
    socket.on('error', reject);
  });
}

test('a non-loopback --host without --admin-token refuses to start, saying why and how to proceed', async () => {
  const r = await runCli(['--host', '0.0.0.0', '--port', '0', '--data', 'memory']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--host: 0\.0\.0\.0 is not a loopback address/);
  expect(r.stderr).toMatch(/--admin-token/);
  expect(r.stderr).toMatch(/--insecure-open-control/);
});

test('--insecure-open-control starts with a warning; the banner shows the address bound', async () => {
  const running = await startCli(['--host', '0.0.0.0', '--port', '0', '--data', 'memory', '--insecure-open-control', '--log-level', 'silent']);
  try {
    expect(running.output()).toMatch(/Listening on:\s+0\.0\.0\.0:\d+/);
    expect(running.output()).toMatch(/WARNING: listening on 0\.0\.0\.0 with --insecure-open-control/);
    expect((await fetch(`${running.url.replace(/\/\/[^:]+:/, '//127.0.0.1:')}/__sandbox/health`)).status).toBe(200);
  } finally {
    expect(await running.stop()).toBe(0);
  }
});

test('with --admin-token on 0.0.0.0 it starts without a warning, and the token appears in no log line', async () => {
  const token = 'tok-never-logged-42';
  const running = await startCli(['--host', '0.0.0.0', '--port', '0', '--data', 'memory', '--admin-token', token, '--log-level', 'info']);
  try {
    const base = running.url.replace(/\/\/[^:]+:/, '//127.0.0.1:');
    expect((await fetch(`${base}/__sandbox/clock`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${base}/__sandbox/clock`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${base}/__sandbox/clock?token=${token}`)).status).toBe(401);
  } finally {
    expect(await running.stop()).toBe(0);
  }
  expect(running.output()).not.toMatch(/WARNING/);
  expect(running.output().split('\n').filter((l) => l.includes(token))).toEqual([]);
});

test('an oversized body is refused with 413 from its Content-Length, before it is sent', async () => {
  const running = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent']);
  try {
    const head =
      `POST /api/v1/public/payment/transfer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `x-merchant-email: ${DEMO.email}\r\nx-api-key: ${DEMO.key}\r\nx-api-secret: ${DEMO.secret}\r\nContent-Length: 50000000\r\n\r\n{"a":`;
    const { answer, socket } = await raw(running.url, head);
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
  } finally {
    await running.stop();
  }
});

test('a client that sends its head a byte at a time is cut off at --headers-timeout; others are served meanwhile', async () => {
  const running = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent', '--headers-timeout', '500']);
  try {
    const { hostname, port } = new URL(running.url);
    const slow = Array.from({ length: 50 }, () => connect(Number(port), hostname, function (this: ReturnType<typeof connect>) { this.write('G'); }));
    const answers = slow.map((s) => {
      let got = '';
      s.on('data', (d) => (got += d));
      return new Promise<string>((resolve) => s.on('close', () => resolve(got)));
    });
    const started = performance.now();
    const ok = await fetch(`${running.url}/api/v1/public/balance/check?account_no=${DEMO.van1}`, { headers: demoHeaders });
    expect(ok.status).toBe(200);
    // Served at once: not after the slow clients' 500 ms headers time-out.
    expect(performance.now() - started).toBeLessThan(400);
    for (const a of await Promise.all(answers)) expect(a).toMatch(/^HTTP\/1\.1 408/);
  } finally {
    await running.stop();
  }
});

test('SIGTERM lets a request in flight finish and exits 0; a second signal exits at once', async () => {
  const running = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent']);
  // A request whose body is still coming: in flight when the signal arrives.
  const body = JSON.stringify(payoutBody());
  const { hostname, port } = new URL(running.url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (d) => (answer += d));
  socket.write(
    `POST /api/v2/public/payment/transfer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n` +
      `x-merchant-email: ${DEMO.email}\r\nx-api-key: ${DEMO.key}\r\nx-api-secret: ${DEMO.secret}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body.slice(0, 10),
  );
  await new Promise((r) => setTimeout(r, 50));
  const exited = new Promise<number | null>((resolve) => running.proc.once('exit', (code) => resolve(code)));
  running.proc.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  expect(running.proc.exitCode).toBeNull();
  socket.write(body.slice(10));
  expect(await exited).toBe(0);
  expect(answer).toMatch(/^HTTP\/1\.1 200/);
  expect(answer).toContain('"status":"Pending"');

  const second = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent']);
  const held = connect(Number(new URL(second.url).port), '127.0.0.1');
  await new Promise((resolve) => held.once('connect', resolve));
  held.write(`POST /api/v2/public/payment/transfer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
  await new Promise((r) => setTimeout(r, 50));
  const gone = new Promise<number | null>((resolve) => second.proc.once('exit', (code) => resolve(code)));
  second.proc.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  const t = performance.now();
  second.proc.kill('SIGTERM');
  expect(await gone).toBe(143);
  expect(performance.now() - t).toBeLessThan(2000);
  held.destroy();
});

test('--max-connections: connections past the cap are closed at once; the ones within it are served', async () => {
  const running = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent', '--max-connections', '3']);
  try {
    const { hostname, port } = new URL(running.url);
    const open = await Promise.all(
      Array.from({ length: 3 }, () => new Promise<ReturnType<typeof connect>>((resolve) => { const s = connect(Number(port), hostname, () => resolve(s)); })),
    );
    await new Promise((r) => setTimeout(r, 50));
    // Past the cap the server closes the socket (reset, or closed with no answer).
    const extra = await raw(running.url, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n\r\n').then(
      (r) => r.answer,
      (err: NodeJS.ErrnoException) => err.code,
    );
    expect(['', 'ECONNRESET', 'EPIPE']).toContain(extra);
    for (const s of open) s.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const ok = await raw(running.url, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(ok.answer).toMatch(/^HTTP\/1\.1 200/);
  } finally {
    await running.stop();
  }
});

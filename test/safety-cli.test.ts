import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { type StartedSandbox, startSandbox } from '../src/index.js';
import { killAll, runCli, startCli } from './cli-helpers.js';

/** The safety rules of docs/operations.md ("Safe by default") as the real command meets them. */

afterAll(killAll);

const noStack = (text: string) => {
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/TypeError|RangeError/);
};

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

test('an empty SANDBOX_ADMIN_TOKEN is no token: the start is refused (exit 2), saying how to make one', async () => {
  const r = await runCli(['--host', '0.0.0.0', '--port', '0', '--data', 'memory'], { SANDBOX_ADMIN_TOKEN: '' });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--admin-token: is empty .*openssl rand -hex 24/);
  noStack(r.stderr);
  // On loopback too: an empty token is a mistake wherever it is made.
  const loopback = await runCli(['--port', '0', '--data', 'memory'], { SANDBOX_ADMIN_TOKEN: '' });
  expect(loopback.code).toBe(2);
});

test('a short --admin-token is refused at start (exit 2)', async () => {
  const r = await runCli(['--port', '0', '--data', 'memory', '--admin-token', 'letmein']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--admin-token: must be at least 16 visible ASCII characters/);
  noStack(r.stderr);
});

test('--allowed-host (repeated, and a pattern) names Host headers the control API answers; others get 403', async () => {
  const running = await startCli(['--port', '0', '--data', 'memory', '--allowed-host', 'sandbox', '--allowed-host', '*.internal.example']);
  try {
    const control = `${running.url}/__sandbox/merchants`;
    expect(await getWithHost(control, 'sandbox:4010')).toBe(200);
    expect(await getWithHost(control, 'ci.internal.example')).toBe(200);
    expect(await getWithHost(control, 'localhost')).toBe(200);
    expect(await getWithHost(control, 'attacker.example')).toBe(403);
  } finally {
    expect(await running.stop()).toBe(0);
  }
});

test('--webhook-url that is the sandbox itself is refused once the port is known (exit 2)', async () => {
  const port = await freePort();
  const r = await runCli(['--port', String(port), '--data', 'memory', '--webhook-url', `http://localhost:${port}/__sandbox/reset`]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--webhook-url: localhost:\d+ \(localhost resolves to .*\) is this sandbox's own address and port/);
  noStack(r.stderr);
});

describe('durations the CLI reads', () => {
  let sb: StartedSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ clock: 'manual' });
  });
  afterAll(() => sb.stop());

  test('advance 2h1m and advance PT1H30M move the clock by those; "2 hours" is refused listing the forms', async () => {
    const before = Date.parse(sb.admin.clock().now);
    expect((await runCli(['advance', '2h1m', '--url', sb.url])).code).toBe(0);
    expect((await runCli(['advance', 'PT1H30M', '--url', sb.url])).code).toBe(0);
    expect(Date.parse(sb.admin.clock().now) - before).toBe((121 + 90) * 60_000);
    const bad = await runCli(['advance', '2 hours', '--url', sb.url]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/a compound such as 1h30m, or ISO 8601 such as PT1H30M/);
  });
});

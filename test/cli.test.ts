import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killAll, runCli, startCli } from './cli-helpers.js';
import { DEMO, defaultFixtures, demoHeaders, payoutBody, useTempDir } from './helpers.js';

const dir = useTempDir(killAll);

/** What this test reads of the API's answers. */
interface Answer {
  data: { ref_id: string; current_balance: number; transaction: { ref_id: number } };
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { ...demoHeaders, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

test('start on port 0, pay out, SIGTERM exits 0, a restart on the same file finds the payout and the balance', async () => {
  const data = join(dir(), 'db.json');
  const first = await startCli(['--port', '0', '--data', data, '--log-level', 'silent']);
  expect(first.output()).toContain(`x-api-key:        ${DEMO.key}`);
  expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(first.url).not.toMatch(/:0$/);

  const body = payoutBody();
  const created = await call(first.url, 'POST', '/api/v1/public/payment/transfer', body);
  expect(created.status).toBe(200);
  const before = await call(first.url, 'GET', `/api/v1/public/balance/check?account_no=${DEMO.van1}`);
  expect(await first.stop('SIGTERM')).toBe(0);

  const second = await startCli(['--port', '0', '--data', data, '--log-level', 'silent']);
  try {
    const found = await call(second.url, 'GET', `/api/v1/public/payment/transfer/status?client_ref_id=${body.client_ref_id}`);
    expect(found.status).toBe(200);
    expect(found.body.data.transaction.ref_id).toBe(Number(created.body.data.ref_id));
    const after = await call(second.url, 'GET', `/api/v1/public/balance/check?account_no=${DEMO.van1}`);
    expect(after.body.data.current_balance).toBe(before.body.data.current_balance);
  } finally {
    expect(await second.stop('SIGINT')).toBe(0);
  }
});

test("the command sets V8's --no-allocation-site-pretenuring on itself and says so in its health; --v8-defaults, or the same flag given to node, leaves V8 alone", async () => {
  const health = async (r: { url: string }) => (await (await fetch(`${r.url}/__sandbox/health`)).json()) as { ok: boolean; v8_flags: string[] };
  const tuned = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent']);
  try {
    expect(await health(tuned)).toMatchObject({ ok: true, v8_flags: ['--no-allocation-site-pretenuring'] });
  } finally {
    expect(await tuned.stop()).toBe(0);
  }
  // Left alone: a flag of the same name given to node (any spelling), --v8-defaults, SANDBOX_V8_DEFAULTS.
  const ways: Array<[string[], Record<string, string>, string[]]> = [
    [[], {}, ['--allocation-site-pretenuring']],
    [[], {}, ['--no_allocation_site_pretenuring']],
    [['--v8-defaults'], {}, []],
    [[], { SANDBOX_V8_DEFAULTS: '1' }, []],
  ];
  for (const [args, env, nodeArgs] of ways) {
    const own = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent', ...args], env, nodeArgs);
    try {
      expect([args, env, nodeArgs, await health(own)]).toMatchObject([args, env, nodeArgs, { ok: true, v8_flags: [] }]);
    } finally {
      expect(await own.stop()).toBe(0);
    }
  }
});

test('options come from SANDBOX_* environment variables too', async () => {
  const running = await startCli([], { SANDBOX_PORT: '0', SANDBOX_DATA: 'memory', SANDBOX_LOG_LEVEL: 'silent', SANDBOX_CLOCK: 'manual' });
  try {
    expect(running.output()).toContain('Data:          memory');
    expect(running.output()).toContain('Clock:         manual');
  } finally {
    expect(await running.stop()).toBe(0);
  }
});

test('one JSON log line per request, with the id returned as X-Request-Id', async () => {
  const running = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'info']);
  try {
    const res = await fetch(`${running.url}/api/v1/public/balance/check?account_no=${DEMO.van1}`, { headers: demoHeaders });
    const id = res.headers.get('x-request-id');
    for (let i = 0; i < 50 && !running.output().includes(id!); i++) await new Promise((r) => setImmediate(r));
    await running.stop();
    const lines = running
      .output()
      .split('\n')
      .filter((l) => l.includes(`"${id}"`));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line.req).toMatchObject({ id, method: 'GET' });
    expect(line.res.statusCode).toBe(200);
    expect(line.merchant).toBe('SBXDEMO0001');
    expect(lines[0]).not.toContain(DEMO.secret);
  } finally {
    running.proc.kill('SIGKILL');
  }
});

test('an invalid fixtures file exits 2 naming the file and field, and writes nothing', async () => {
  const fx = defaultFixtures();
  (fx.merchants[0] as Record<string, unknown>).email = 'not-an-email';
  const file = join(dir(), 'bad-fixtures.json');
  writeFileSync(file, JSON.stringify(fx));
  const data = join(dir(), 'db.json');
  const r = await runCli(['--port', '0', '--data', data, '--fixtures', file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('bad-fixtures.json');
  expect(r.stderr).toContain('/merchants/0/email');
  expect(r.stderr).toContain('format "email"');
  expect(existsSync(data)).toBe(false);
});

test('duplicate account numbers in fixtures are refused with both places named', async () => {
  const fx = defaultFixtures();
  fx.merchants[1].accounts[0].account_no = fx.merchants[0].accounts[0].account_no;
  const file = join(dir(), 'dupe.json');
  writeFileSync(file, JSON.stringify(fx));
  const r = await runCli(['--port', '0', '--data', 'memory', '--fixtures', file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('/merchants/1/accounts/0/account_no: must be unique');
  expect(r.stderr).toContain('/merchants/0/accounts/0/account_no');
});

test('a missing fixtures file exits 2', async () => {
  const r = await runCli(['--data', 'memory', '--fixtures', join(dir(), 'nope.json')]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/nope\.json: cannot read the fixtures file \(ENOENT\)/);
});

test.each([
  [['--port', 'abc'], /--port/],
  [['--port', '70000'], /--port/],
  [['--clock', 'sundial'], /--clock/],
  [['--speed', '0'], /--speed/],
  [['--log-level', 'loud'], /--log-level/],
  [['--no-such-option'], /unknown option/],
])('bad option %j exits 2', async (args, pattern) => {
  const r = await runCli([...args, '--data', 'memory']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(pattern);
});

test('--help and --version exit 0', async () => {
  const help = await runCli(['--help']);
  expect(help.code).toBe(0);
  for (const o of ['--port', '--host', '--data', '--fixtures', '--seed', '--no-rate-limits', '--log-level', 'SANDBOX_PORT']) {
    expect(help.stdout).toContain(o);
  }
  const version = await runCli(['--version']);
  expect(version.code).toBe(0);
  expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
});

test('--checkout-port serves the checkout API on a second listener too', async () => {
  const running = await startCli(['--port', '0', '--checkout-port', '0', '--data', 'memory', '--log-level', 'silent']);
  try {
    const checkoutUrl = /Checkout URL:\s+(\S+)/.exec(running.output())![1];
    expect(checkoutUrl).not.toBe(running.url);
    const headers = { MerchantId: 'SBXDEMO0001', AccessToken: 'sbx_token_demo_0001' };
    for (const base of [checkoutUrl, running.url]) {
      const res = await fetch(`${base}/api/v1/payment/transaction/PAYDEMO0000000002/status`, { headers });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { status_flag: number } }).data.status_flag).toBe(1);
    }
  } finally {
    expect(await running.stop()).toBe(0);
  }
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { createApp } from '../src/app.js';
import { type StartedSandbox, startSandbox } from '../src/index.js';
import { ConfigError, resolveConfig } from '../src/sandbox/config.js';
import { DEMO, defaultFixtures, demoHeaders, payoutBody, testApp } from './helpers.js';

/**
 * The sandbox runs beside a browser and other people's code (docs/operations.md "Safe by
 * default"): web pages cannot reach its control surface, no secret is empty, it never calls
 * itself, and an inline scenario reads no file it was not given.
 */

const merchantCount = async (app: SandboxApp) => (await request(app).get('/__sandbox/merchants')).body.merchants.length;

describe('the control surface answers only its own pages and tools', () => {
  let app: SandboxApp;
  beforeEach(async () => {
    app = await testApp();
    await request(app).post('/__sandbox/merchants').send({ name: 'Kept' }).expect(201);
  });

  test('a cross-site "simple" POST /__sandbox/reset (text/plain, a foreign Origin) is refused and nothing changes', async () => {
    const before = await merchantCount(app);
    const res = await request(app).post('/__sandbox/reset').set('Origin', 'http://evil.example').set('Content-Type', 'text/plain').send('{}').expect(403);
    expect(res.body.error).toMatch(/http:\/\/evil\.example/);
    expect(await merchantCount(app)).toBe(before);
  });

  test('a form POST is refused (415 without an Origin, 403 with a foreign one); no merchant is made', async () => {
    const before = await merchantCount(app);
    const form = await request(app).post('/__sandbox/merchants').type('form').send({ name: 'Evil' }).expect(415);
    expect(form.body.error).toMatch(/Content-Type: application\/json/);
    await request(app).post('/__sandbox/merchants').set('Origin', 'https://evil.example').type('form').send({ name: 'Evil' }).expect(403);
    await request(app).post('/__sandbox/merchants').set('Content-Type', 'multipart/form-data; boundary=x').send('--x--').expect(415);
    await request(app).post('/__sandbox/merchants').set('Content-Type', 'text/plain').send('{"name":"Evil"}').expect(415);
    expect(await merchantCount(app)).toBe(before);
  });

  test('a foreign Host (DNS rebinding) is refused: no secret in the answer', async () => {
    for (const host of ['attacker.example', 'attacker.example:4010', 'localhost.attacker.example', '127.0.0.1.nip.io:4010']) {
      const res = await request(app).get('/__sandbox/merchants').set('Host', host).expect(403);
      expect(JSON.stringify(res.body)).not.toContain('sbx_secret');
      expect(res.body.error).toMatch(/--allowed-host/);
    }
    await request(app).post('/__sandbox/reset').set('Host', 'attacker.example').set('Content-Type', 'application/json').send({}).expect(403);
    expect(await merchantCount(app)).toBe(3);
  });

  test('the dashboard and the event stream refuse a foreign Host or a cross-site fetch too', async () => {
    await request(app).get('/__sandbox/ui/').set('Host', 'attacker.example').expect(403);
    await request(app).get('/__sandbox/events').set('Host', 'attacker.example').expect(403);
    await request(app).get('/__sandbox/merchants').set('Sec-Fetch-Site', 'cross-site').expect(403);
    await request(app).get('/__sandbox/merchants').set('Sec-Fetch-Site', 'same-site').expect(403);
    await request(app).get('/__sandbox/merchants').set('Origin', 'null').expect(403);
  });

  test('its own names, its own pages and tools that send no Origin are answered', async () => {
    for (const host of ['localhost', 'localhost:4010', '127.0.0.1:4010', '[::1]:4010', 'LOCALHOST:4010', 'localhost.:4010']) {
      await request(app).get('/__sandbox/merchants').set('Host', host).expect(200);
    }
    // The dashboard: same-origin fetches with their Origin, JSON bodies.
    await request(app).get('/__sandbox/merchants').set('Host', 'localhost:4010').set('Sec-Fetch-Site', 'same-origin').expect(200);
    await request(app).post('/__sandbox/merchants').set('Host', '127.0.0.1:4010').set('Origin', 'http://127.0.0.1:4010').send({ name: 'Mine' }).expect(201);
    await request(app).post('/__sandbox/merchants').set('Content-Type', 'application/json; charset=utf-8').send('{"name":"Typed"}').expect(201);
    // curl -X POST with no body, and a DELETE with none: no Content-Type needed.
    await request(app).delete('/__sandbox/outages/none').expect(404);
    await request(app).post('/__sandbox/reset').expect(200);
  });

  test('--allowed-host names (and *. patterns) are answered', async () => {
    const named = await testApp({ allowedHosts: ['sandbox', '*.internal.example'] });
    await request(named).get('/__sandbox/merchants').set('Host', 'sandbox:4010').expect(200);
    await request(named).get('/__sandbox/merchants').set('Host', 'ci.internal.example').expect(200);
    await request(named).get('/__sandbox/merchants').set('Host', 'internal.example').expect(403);
    await request(named).get('/__sandbox/merchants').set('Host', 'sandbox.evil.example').expect(403);
    // Behind a proxy that sends its own Host, the page's Origin names the public (allowed) name.
    await request(named).post('/__sandbox/merchants').set('Host', '127.0.0.1:4010').set('Origin', 'https://ci.internal.example').send({}).expect(201);
    await request(named).post('/__sandbox/merchants').set('Host', '127.0.0.1:4010').set('Origin', 'https://evil.example').send({}).expect(403);
    expect(() => resolveConfig({ allowedHosts: ['a b'] })).toThrow('--allowed-host');
  });

  test('the emulated API keeps any Host on a loopback bind; on a non-loopback bind with --allowed-host it refuses others', async () => {
    await request(app).get('/api/v1/public/balance/check').set(demoHeaders).set('Host', 'anything.example').query({ account_no: DEMO.van1 }).expect(200);
    const shared = await testApp({ host: '0.0.0.0', adminToken: 'a-long-enough-admin-token', allowedHosts: ['payouts.internal'] });
    const refused = await request(shared)
      .get('/api/v1/public/balance/check')
      .set(demoHeaders)
      .set('Host', 'attacker.example')
      .query({ account_no: DEMO.van1 })
      .expect(403);
    expect(refused.body).toEqual({ success: false, http_code: 403, message: expect.stringMatching(/attacker\.example/) });
    await request(shared)
      .get('/api/v1/public/balance/check')
      .set(demoHeaders)
      .set('Host', 'payouts.internal:4010')
      .query({ account_no: DEMO.van1 })
      .expect(200);
    await request(shared).get('/api/v1/public/balance/check').set(demoHeaders).set('Host', '127.0.0.1:4010').query({ account_no: DEMO.van1 }).expect(200);
  });
});

describe('no empty secrets', () => {
  test.each([[''], ['short'], ['fifteen-chars!!'], ['sixteen chars !!']])('admin token %p is refused at start, saying how to make one', async (token) => {
    expect(() => resolveConfig({ adminToken: token })).toThrow(ConfigError);
    expect(() => resolveConfig({ adminToken: token })).toThrow(/--admin-token: .*openssl rand -hex 24/);
    await expect(createApp({ data: 'memory', adminToken: token })).rejects.toThrow(ConfigError);
  });

  test('an empty token is named as empty, not as "no token"; one of invisible, control or non-ASCII characters is refused as blank is', () => {
    expect(() => resolveConfig({ adminToken: '' })).toThrow(/is empty/);
    expect(resolveConfig({ adminToken: 'sixteen-chars-ok' }).adminToken).toBe('sixteen-chars-ok');
    for (const blank of ['\u200b'.repeat(16), '\u0001'.repeat(16), '\u00a0'.repeat(16), 'tøken-with-ø-inside-it', `${'x'.repeat(15)}\u2003`]) {
      expect(() => resolveConfig({ adminToken: blank })).toThrow(/--admin-token: must be at least 16 visible ASCII characters/);
    }
  });

  test('an --allowed-host wildcard names at least two labels: *.com is refused (any page under .com could rebind to the sandbox)', () => {
    for (const wide of ['*.com', '*.localhost', '*.']) expect(() => resolveConfig({ allowedHosts: [wide] })).toThrow(/--allowed-host/);
    expect(() => resolveConfig({ allowedHosts: ['*.com'] })).toThrow(/\*\.com is too wide/);
    expect(resolveConfig({ allowedHosts: ['*.internal.example', 'sandbox'] }).allowedHosts).toEqual(['*.internal.example', 'sandbox']);
  });

  test('a webhook secret set through the control API must be 16 characters or more, visible ASCII without spaces', async () => {
    const app = await testApp();
    const rotate = (secret: unknown) => request(app).post('/__sandbox/merchants/SBXDEMO0001/webhook-secret/rotate').send({ secret });
    for (const bad of ['', 'short', '   padded-short   ', 'has spaces in the middle of it', '\u200b'.repeat(16), '\u0001'.repeat(16), 'ünïcödé-secret-of-it']) {
      const res = await rotate(bad).expect(400);
      expect(res.body.error).toMatch(
        /^The secret field must (be between 16 and 256 characters|be visible ASCII characters \(letters, digits, punctuation\), no spaces, control or invisible characters)\.$/,
      );
    }
    // A number past 2^53 has lost digits by the time it is read: refused, not signed with other digits.
    const big = await request(app)
      .post('/__sandbox/merchants/SBXDEMO0001/webhook-secret/rotate')
      .set('Content-Type', 'application/json')
      .send('{"secret": 12345678901234567}');
    expect(big.status).toBe(400);
    expect(big.body.error).toMatch(/^The secret field must be a string\.$/);
    const ok = await rotate('whsec_my_fixed_test_secret').expect(200);
    expect(ok.body.webhook_secret).toBe('whsec_my_fixed_test_secret');
  });
});

describe('the sandbox never calls itself', () => {
  let sb: StartedSandbox;
  beforeEach(async () => {
    sb = await startSandbox({ clock: 'manual', seed: 3 });
  });
  afterEach(() => sb.stop());

  test('a webhook URL that is its own address and port is refused when set, under any name', async () => {
    const port = new URL(sb.url).port;
    for (const url of [
      `${sb.url}/__sandbox/reset`,
      `http://localhost:${port}/__sandbox/reset`,
      `http://0.0.0.0:${port}/x`,
      `http://[::1]:${port}/x`,
      `http://[::ffff:127.0.0.1]:${port}/api/v1/public/payment/transfer`,
      `http://2130706433:${port}/x`,
      `http://0x7f000001:${port}/x`,
      `http://127.0.0.1.:${port}/x`,
    ]) {
      const res = await fetch(`${sb.controlUrl}/merchants/${sb.merchant.merchantId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ webhook_url: url }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(/this sandbox's own address and port.*never calls itself/);
    }
    await expect(sb.admin.createMerchant({ webhook_url: `${sb.url}/__sandbox/reset` })).rejects.toThrow(/never calls itself/);
    await expect(sb.admin.webhooks.probe(sb.merchant.merchantId, { url: `${sb.url}/hooks` })).rejects.toThrow(/never calls itself/);
    // Another port of this machine is fine.
    await sb.admin.patchMerchant(sb.merchant.merchantId, { webhook_url: 'http://127.0.0.1:1/hooks' });
  });

  test('a webhook URL that cannot be sent to (port 0, user:password@) is refused when set, its password not repeated', async () => {
    const id = sb.merchant.merchantId;
    await sb.admin.patchMerchant(id, { webhook_url: 'http://127.0.0.1:3000/kept', per_transaction_limit: 1234 });
    const merchants = () => sb.app.sandbox.repo.allMerchants().length;
    const before = merchants();
    for (const [url, reason] of [
      ['http://127.0.0.1:0/hooks', /bad port: 0/],
      ['http://hooks:s3cret-pw@127.0.0.1:3000/hooks', /credentials \(user:password@\) is not sent to/],
      ['https://:s3cret-pw@hooks.example/x', /credentials/],
      ['http://hooks@127.0.0.1:3000/hooks', /credentials/],
    ] as const) {
      const patch = await fetch(`${sb.controlUrl}/merchants/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ webhook_url: url, per_transaction_limit: 99 }),
      });
      expect(patch.status).toBe(400);
      const { error } = await patch.json();
      expect(error).toMatch(reason);
      expect(error).not.toContain('s3cret-pw');
      await expect(sb.admin.createMerchant({ webhook_url: url })).rejects.toThrow(reason);
      await expect(sb.admin.webhooks.probe(id, { url })).rejects.toThrow(reason);
    }
    // Nothing changed: the merchant keeps its URL and limit, and no merchant was made.
    expect(sb.app.sandbox.repo.merchant(id)).toMatchObject({ webhook_url: 'http://127.0.0.1:3000/kept', per_transaction_limit: 123400 });
    expect(merchants()).toBe(before);
    expect(() => resolveConfig({ webhookUrl: 'http://a:b@127.0.0.1:3000/x' })).toThrow(/--webhook-url: cannot be sent to: a URL with credentials/);
    expect(() => resolveConfig({ webhookUrl: 'http://127.0.0.1:0/x' })).toThrow(/--webhook-url: cannot be sent to: bad port: 0/);
  });

  test('and again at delivery: the attempt fails with its reason, nothing is sent, nothing is reset', async () => {
    const kept = await sb.createMerchant({ name: 'Survivor' });
    // A URL set before the sandbox knew its port (a fixture, a data file): caught at delivery.
    const m = sb.app.sandbox.repo.merchant(sb.merchant.merchantId);
    if (!m) throw new Error('no demo merchant');
    m.webhook_url = `${sb.url}/__sandbox/reset`;
    const init = await fetch(`${sb.url}/api/v1/public/payment/transfer`, {
      method: 'POST',
      headers: { ...sb.merchant.headers, 'content-type': 'application/json' },
      body: JSON.stringify(payoutBody({ debit_from: sb.merchant.accounts[0] })),
    });
    expect(init.status).toBe(200);
    await sb.advance('5s');
    await sb.settleWebhooks();
    const { deliveries } = sb.admin.deliveries({ merchant_id: sb.merchant.merchantId }) as {
      deliveries: Array<{ attempts: Array<{ error: string | null; status: number | null }> }>;
    };
    expect(deliveries[0].attempts[0]).toMatchObject({ status: null, error: expect.stringMatching(/^not sent: .*never calls itself/) });
    expect(sb.app.sandbox.repo.merchant(kept.merchantId)).toBeDefined();
  });

  test('a probe bounced back to the sandbox by a relay is refused there too', async () => {
    let bounced: number | null = null;
    const relay: Server = createServer((req, res) => {
      const target = new URL(`${sb.url}/api/v1/public/balance/check?account_no=${sb.merchant.accounts[0]}`);
      // A GET without the probe's body: its Content-Length is not forwarded (else the sandbox would wait for that body).
      const { 'content-length': _, ...headers } = req.headers;
      const out = httpRequest(target, { method: 'GET', headers: { ...headers, ...sb.merchant.headers, host: target.host } }, (back) => {
        bounced ??= back.statusCode ?? null;
        back.resume();
        back.on('end', () => res.writeHead(200).end('ok'));
      });
      out.end();
      req.resume();
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      await sb.admin.webhooks.probe(sb.merchant.merchantId, { url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/hooks` });
      expect(bounced).toBe(403);
    } finally {
      relay.closeAllConnections();
      await new Promise((resolve) => relay.close(resolve));
    }
  });

  test('a delivery bounced back to the sandbox by a relay (a name it could not know) does nothing there', async () => {
    const kept = await sb.createMerchant({ name: 'Survivor' });
    let bounced: number | null = null;
    // A receiver that forwards what it gets to the sandbox's own reset, headers and all.
    const relay: Server = createServer((req, res) => {
      const target = new URL(`${sb.controlUrl}/reset`);
      const out = httpRequest(target, { method: 'POST', headers: { ...req.headers, host: target.host } }, (back) => {
        bounced = back.statusCode ?? null;
        back.resume();
        back.on('end', () => res.writeHead(200).end('ok'));
      });
      req.pipe(out);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      await sb.admin.patchMerchant(sb.merchant.merchantId, { webhook_url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/hooks` });
      await fetch(`${sb.url}/api/v1/public/payment/transfer`, {
        method: 'POST',
        headers: { ...sb.merchant.headers, 'content-type': 'application/json' },
        body: JSON.stringify(payoutBody({ debit_from: sb.merchant.accounts[0] })),
      });
      await sb.advance('5s');
      await sb.settleWebhooks();
      expect(bounced).toBe(403);
      expect(sb.app.sandbox.repo.merchant(kept.merchantId)).toBeDefined();
    } finally {
      relay.closeAllConnections();
      await new Promise((resolve) => relay.close(resolve));
    }
  });
});

describe('an inline scenario reads no file it was not given', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-safety-'));
    mkdirSync(join(dir, 'scenarios'));
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'scenarios', 'main.json'), JSON.stringify({ extends: 'default', name: 'main' }));
    writeFileSync(join(dir, 'scenarios', 'slow.json'), JSON.stringify({ extends: 'default', name: 'slow' }));
    writeFileSync(join(dir, 'elsewhere', 'secrets.json'), JSON.stringify({ db_password: 'hunter2-do-not-echo' }));
    writeFileSync(join(dir, 'scenarios', '.env'), 'AWS_SECRET=hunter2-do-not-echo\n');
    writeFileSync(join(dir, 'scenarios', 'notes.txt'), 'hunter2-do-not-echo\n');
    writeFileSync(join(dir, 'scenarios', 'vault.json'), JSON.stringify({ db_password: 'hunter2-do-not-echo' }));
    writeFileSync(join(dir, 'scenarios', 'broken.json'), '{"db_password": "hunter2-do-not-echo"');
    symlinkSync(join(dir, 'elsewhere', 'secrets.json'), join(dir, 'scenarios', 'link.json'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const put = (app: SandboxApp, scenario: unknown) => request(app).put('/__sandbox/scenario').send({ scenario });

  test.each([
    ['/etc/passwd', '/etc/passwd'],
    ['a JSON file outside the scenario directory', 'OUTSIDE'],
    ['a path climbing out', '../elsewhere/secrets.json'],
    ['a file that does not exist', '/nonexistent/file.json'],
    ['a link inside pointing outside', 'link.json'],
    ['a hidden file of the directory', '.env'],
    ['a file of the directory that is no scenario file by its name', 'notes.txt'],
  ])('extends %s: 400, and nothing of any file in the answer', async (_what, ref) => {
    const app = await testApp({ scenario: join(dir, 'scenarios', 'main.json') });
    const res = await put(app, { extends: ref === 'OUTSIDE' ? join(dir, 'elsewhere', 'secrets.json') : ref, name: 'x' }).expect(400);
    expect(res.body.error).toMatch(/may extend a shipped scenario by name \(default, realistic\) or a file in the directory of the sandbox's --scenario file/);
    expect(res.body.error).not.toMatch(/root|hunter2|db_password|ENOENT|not valid JSON|Unexpected token/);
    expect(app.sandbox.scenario().name).toBe('main');
  });

  test.each([
    ['a JSON file of the directory that is no scenario', 'vault.json'],
    ['a file of the directory that is not valid JSON', 'broken.json'],
  ])('extends %s: 400 saying so, with nothing of its content', async (_what, ref) => {
    const app = await testApp({ scenario: join(dir, 'scenarios', 'main.json') });
    const res = await put(app, { extends: ref, name: 'x' }).expect(400);
    expect(res.body.error).toMatch(
      new RegExp(
        `/extends: ${ref.replace('.', '\\.')} (is not a valid scenario|cannot be read as a scenario file) \\(start the sandbox with it as --scenario to see why\\)`,
      ),
    );
    expect(res.body.error).not.toMatch(/hunter2|db_password|Unexpected|Expected/);
  });

  test('a shipped name, or a file beside the --scenario file, is taken', async () => {
    const app = await testApp({ scenario: join(dir, 'scenarios', 'main.json') });
    await put(app, { extends: 'realistic', name: 'r' }).expect(200);
    await put(app, { extends: 'slow.json', name: 's' }).expect(200);
    await put(app, { extends: join(dir, 'scenarios', 'slow.json'), name: 's2' }).expect(200);
    expect(app.sandbox.scenario().name).toBe('s2');
  });

  test('a sandbox given its scenario in-process takes shipped names only', async () => {
    const app = await testApp({ scenario: { extends: 'default', name: 'code' } });
    await put(app, { extends: 'realistic', name: 'r' }).expect(200);
    const res = await put(app, { extends: join(dir, 'scenarios', 'slow.json'), name: 's' }).expect(400);
    expect(res.body.error).toMatch(/shipped scenario by name \(default, realistic\) only/);
  });

  test('__proto__, constructor and prototype keys are refused, not dropped: scenario, control body, fixtures', async () => {
    const app = await testApp();
    const scenario = await request(app)
      .put('/__sandbox/scenario')
      .set('Content-Type', 'application/json')
      .send('{"scenario":{"extends":"default","name":"p","payouts":{"__proto__":{"rules":[]}}}}')
      .expect(400);
    expect(scenario.body.error).toMatch(/__proto__.*never field names/);
    const body = await request(app)
      .post('/__sandbox/merchants')
      .set('Content-Type', 'application/json')
      .send('{"name":"x","__proto__":{"balance":1}}')
      .expect(400);
    expect(body.body.error).toBe('The __proto__ field is not allowed: __proto__, constructor and prototype are never field names.');
    const fixtures = JSON.parse(JSON.stringify(defaultFixtures())) as { merchants: Array<Record<string, unknown>> };
    Reflect.set(fixtures.merchants[0], 'constructor', { x: 1 });
    await expect(testApp({ fixtures: fixtures as never })).rejects.toThrow(/\/merchants\/0\/constructor: is not allowed/);
    expect(app.sandbox.scenario().name).toBe('default');
  });

  test("a fixture merchant's credentials of spaces or invisible characters are refused (they looked set, and were blank)", async () => {
    for (const [field, blank] of [
      ['api_secret', ' '.repeat(8)],
      ['access_token', '\u200b'.repeat(8)],
      ['api_key', 'key with spaces'],
    ] as const) {
      const fixtures = JSON.parse(JSON.stringify(defaultFixtures())) as { merchants: Array<Record<string, unknown>> };
      fixtures.merchants[0][field] = blank;
      await expect(testApp({ fixtures: fixtures as never })).rejects.toThrow(
        new RegExp(`/merchants/0/${field}: must be visible ASCII characters \\(letters, digits, punctuation\\)`),
      );
    }
  });

  test('an unknown field of a scenario or fixtures file lists the fields allowed there', async () => {
    const app = await testApp();
    const res = await put(app, { name: 'typo', payouts: { default_timline: [] } }).expect(400);
    expect(res.body.error).toMatch(/\/payouts: unknown field "default_timline" \(the fields here: [^)]*default_timeline/);
    const fixtures = JSON.parse(JSON.stringify(defaultFixtures())) as { merchants: Array<Record<string, unknown>> };
    fixtures.merchants[0].webhok_url = null;
    await expect(testApp({ fixtures: fixtures as never })).rejects.toThrow(/unknown field "webhok_url" \(the fields here: [^)]*webhook_url/);
  });
});

describe('auth reasons without an oracle on a shared sandbox', () => {
  const reason = async (app: SandboxApp, headers: Record<string, string>) =>
    (await request(app).get('/api/v1/public/balance/check').set(headers).query({ account_no: DEMO.van1 }).expect(401)).headers['x-sandbox-auth-reason'];

  test('a loopback sandbox without a token says which value is wrong', async () => {
    const app = await testApp();
    expect(await reason(app, { ...demoHeaders, 'x-api-key': 'wrong' })).toBe(`the X-Api-Key does not match ${DEMO.email}'s key`);
    expect(await reason(app, { ...demoHeaders, 'x-merchant-email': 'nobody@example.com' })).toBe('no merchant has the e-mail nobody@example.com');
  });

  test.each([
    ['an admin token', { adminToken: 'a-long-enough-admin-token' }],
    ['a non-loopback bind', { host: '0.0.0.0', insecureOpenControl: true }],
  ])('with %s, a registered e-mail and an unknown one get the same reason; a missing header is still named', async (_what, options) => {
    const app = await testApp(options);
    const known = await reason(app, { ...demoHeaders, 'x-api-key': 'wrong' });
    const unknown = await reason(app, { ...demoHeaders, 'x-merchant-email': 'nobody@example.com' });
    expect(known).toBe(unknown);
    expect(known).not.toMatch(/payout-sandbox\.test|nobody/);
    expect(await reason(app, { 'x-merchant-email': DEMO.email })).toBe('missing headers X-Api-Key, X-Api-Secret');
    const checkout = async (h: Record<string, string>) =>
      (await request(app).get('/api/v1/payment/transaction/none/status').set(h)).headers['x-sandbox-auth-reason'];
    expect(await checkout({ MerchantId: 'SBXDEMO0001', AccessToken: 'wrong' })).toBe(await checkout({ MerchantId: 'NOSUCH', AccessToken: 'wrong' }));
  });
});

describe('compound and ISO 8601 durations wherever a duration is read', () => {
  test('the control API and the in-process handle: 1h30m, 2h1m, PT1H30M', async () => {
    const app = await testApp();
    const start = Date.parse((await request(app).get('/__sandbox/clock')).body.now);
    await request(app).post('/__sandbox/clock/advance').send({ by: '1h30m' }).expect(200);
    await request(app).post('/__sandbox/clock/advance').send({ by: 'PT1H30M' }).expect(200);
    await app.sandbox.admin.advance('2h1m');
    expect(Date.parse((await request(app).get('/__sandbox/clock')).body.now) - start).toBe((180 + 121) * 60_000);
    const bad = await request(app).post('/__sandbox/clock/advance').send({ by: '1 hour' }).expect(400);
    expect(bad.body.error).toBe('The by field must be a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M.');
  });

  test('scenario files and sbx: timelines', async () => {
    const app = await testApp({ scenario: { extends: 'default', name: 'compound', payouts: { default_timeline: [{ after: '1h30m', status: 'Success' }] } } });
    const plain = await request(app).post('/api/v1/public/payment/transfer').set(demoHeaders).send(payoutBody()).expect(200);
    const inline = await request(app)
      .post('/api/v1/public/payment/transfer')
      .set(demoHeaders)
      .send(payoutBody({ remarks: 'sbx:Unknown@PT10M>Success@1h30m' }))
      .expect(200);
    const statusOf = async (ref: string) =>
      (await request(app).get('/api/v1/public/payment/transfer/status').set(demoHeaders).query({ ref_id: ref })).body.data.transaction.status;
    await app.sandbox.admin.advance('1h29m59s');
    expect(await statusOf(plain.body.data.ref_id)).toBe('Pending');
    expect(await statusOf(inline.body.data.ref_id)).toBe('Unknown');
    await app.sandbox.admin.advance('1s');
    expect(await statusOf(plain.body.data.ref_id)).toBe('Success');
    expect(await statusOf(inline.body.data.ref_id)).toBe('Unknown');
    await app.sandbox.admin.advance('PT10M');
    expect(await statusOf(inline.body.data.ref_id)).toBe('Success');
  });
});

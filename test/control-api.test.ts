import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { controlRouter } from '../src/http/control/router.js';
import { DEMO, demoHeaders, initialize, payoutBody, testApp } from './helpers.js';

/**
 * The control API described and validated like the emulated one: its OpenAPI document from the
 * route table and the Admin's schemas, its query strings through those schemas; the journal of
 * the emulated API (the control API's on request), refused requests with their error, and why a
 * 401 was answered.
 */

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});
afterEach(async () => {
  await app.sandbox.close();
});

/** Every route the control router serves, as `METHOD /__sandbox/path/{param}`. */
function controlRoutesServed(a: SandboxApp): string[] {
  const out: string[] = [];
  const walk = (stack: Array<{ route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: unknown[] } }>) => {
    for (const layer of stack) {
      if (layer.route?.path.startsWith('/__sandbox')) {
        for (const m of Object.keys(layer.route.methods)) if (m !== '_all') out.push(`${m} ${layer.route.path.replace(/:([a-z_]+)/g, '{$1}')}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack as typeof stack);
    }
  };
  walk((controlRouter(a.sandbox) as unknown as { stack: Parameters<typeof walk>[0] }).stack);
  return out;
}

test('GET /__sandbox/control-openapi.json is a valid OpenAPI 3.1 document covering every control route', async () => {
  const doc = (await request(app).get('/__sandbox/control-openapi.json')).body;
  const result = await new Validator().validate(doc);
  expect(result.errors ?? []).toEqual([]);
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
  const served = controlRoutesServed(app).filter((r) => r !== 'get /__sandbox/events');
  expect(served.length).toBeGreaterThan(40);
  expect(documented.sort()).toEqual([...new Set(served)].sort());
  // The schemas are the Admin's: closed, with their rules.
  const credit = doc.paths['/__sandbox/accounts/{account_no}/credit'].post.requestBody.content['application/json'].schema;
  expect(credit).toMatchObject({ additionalProperties: false, required: ['amount'], properties: { amount: { type: 'number', exclusiveMinimum: 0 } } });
  const payouts = doc.paths['/__sandbox/merchants/{merchant_id}/payouts'].get.parameters as Array<{ name: string; in: string; schema: { enum?: string[] } }>;
  expect(payouts.find((p) => p.name === 'status')?.schema.enum).toEqual(['NEW', 'Pending', 'Success', 'Failed', 'Unknown']);
});

describe('query strings go through schemas', () => {
  test('a value outside a list, a limit that is not a whole number, an unknown parameter: 400 naming it', async () => {
    const bad = await request(app).get(`/__sandbox/merchants/SBXDEMO0001/payouts?status=Bogus`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('The status field must be one of NEW, Pending, Success, Failed, Unknown.');
    expect((await request(app).get(`/__sandbox/merchants/SBXDEMO0001/payouts?limit=lots`)).body.error).toBe('The limit field must be a whole number.');
    expect((await request(app).get('/__sandbox/webhooks?merchant=SBXDEMO0001')).body.error).toMatch(
      /^The merchant field is not one this request takes \(it takes: ref_id, merchant_id, delivery_id, limit\)/,
    );
    expect((await request(app).get('/__sandbox/coverage?format=pdf')).body.error).toBe('The format field must be one of json, markdown, junit.');
    expect((await request(app).get('/__sandbox/merchants/SBXDEMO0001/payouts?status=Pending&limit=5')).status).toBe(200);
  });
});

describe('the request journal', () => {
  test("keeps the emulated API's requests; the control API's only with include=control", async () => {
    await initialize(app, payoutBody());
    await request(app).get('/__sandbox/clock');
    const plain = (await request(app).get('/__sandbox/requests')).body.requests as Array<{ path: string; api: string }>;
    expect(plain.map((r) => r.path)).toEqual(['/api/v1/public/payment/transfer']);
    const all = (await request(app).get('/__sandbox/requests?include=control')).body.requests as Array<{ path: string; api: string }>;
    expect(all.map((r) => [r.api, r.path])).toEqual([
      ['control', '/__sandbox/clock'],
      ['emulated', '/api/v1/public/payment/transfer'],
    ]);
  });

  test('refused requests with their error code and message, by merchant', async () => {
    await initialize(app, payoutBody());
    await initialize(app, payoutBody({ amount: 1001.02 }));
    await request(app).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: 'NOSUCH' });
    const refused = (await request(app).get('/__sandbox/requests?merchant_id=SBXDEMO0001&refused=true')).body.requests as Array<Record<string, unknown>>;
    expect(refused.map((r) => [r.status, r.error])).toEqual([
      [400, { code: null, message: expect.any(String) }],
      [400, { code: 'INSUFFICIENT_BALANCE', message: 'Insufficient balance in the account.' }],
    ]);
    expect((await request(app).get('/__sandbox/requests?merchant_id=SBXOTHER0002&refused=true')).body.requests).toEqual([]);
    expect((await request(app).get('/__sandbox/requests?merchant_id=NOPE')).status).toBe(404);
    expect(app.sandbox.admin.requests({ refused: 'true' }).requests).toHaveLength(2);
  });
});

describe('why a 401 was answered (the answer stays the reference’s)', () => {
  const balance = (headers: Record<string, string>) => request(app).get('/api/v1/public/balance/check').set(headers).query({ account_no: DEMO.van1 });
  test.each([
    ['no headers', {}, 'missing headers X-Merchant-Email, X-Api-Key, X-Api-Secret'],
    ['no secret', { 'x-merchant-email': DEMO.email, 'x-api-key': DEMO.key }, 'missing header X-Api-Secret'],
    ['unknown e-mail', { ...demoHeaders, 'x-merchant-email': 'who@example.com' }, 'no merchant has the e-mail who@example.com'],
    ['wrong key', { ...demoHeaders, 'x-api-key': 'nope' }, `the X-Api-Key does not match ${DEMO.email}'s key`],
    ['wrong secret', { ...demoHeaders, 'x-api-secret': 'nope' }, `the X-Api-Secret does not match ${DEMO.email}'s secret`],
    [
      'checkout headers',
      { MerchantId: 'SBXDEMO0001', AccessToken: 'x' },
      'checkout headers (MerchantId, AccessToken) sent to the dashboard API, which takes X-Merchant-Email, X-Api-Key and X-Api-Secret',
    ],
  ])('%s', async (_name, headers, reason) => {
    const res = await balance(headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, http_code: 401, message: 'Credentials are not valid' });
    expect(res.headers['x-sandbox-auth-reason']).toBe(reason);
    const entry = (await request(app).get(`/__sandbox/requests/${res.headers['x-request-id']}`)).body;
    expect(entry).toMatchObject({ status: 401, auth_reason: reason, error: { code: null, message: 'Credentials are not valid' } });
  });

  test('the checkout API says why too', async () => {
    const res = await request(app).get('/api/v1/payment/transaction/X/status').set({ MerchantId: 'SBXDEMO0001', AccessToken: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.headers['x-sandbox-auth-reason']).toBe("the AccessToken does not match merchant SBXDEMO0001's token");
  });
});

describe('merchant routes take the merchant id (the e-mail still works on PATCH)', () => {
  test('PATCH by id and by e-mail; null and "" clear the webhook', async () => {
    const byId = await request(app).patch('/__sandbox/merchants/SBXDEMO0001').send({ webhook_url: 'http://127.0.0.1:9/hooks', webhook_version: 'v2' });
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ webhook_url: 'http://127.0.0.1:9/hooks', webhook_version: 'v2' });
    expect((await request(app).patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_url: null })).body).toMatchObject({
      webhook_url: null,
      webhook_version: 'v2',
    });
    await request(app).patch('/__sandbox/merchants/SBXDEMO0001').send({ webhook_url: 'http://127.0.0.1:9/hooks' });
    expect((await request(app).patch('/__sandbox/merchants/SBXDEMO0001').send({ webhook_url: '', webhook_version: null })).body).toMatchObject({
      webhook_url: null,
      webhook_version: null,
    });
    for (const url of ['ftp://x', 'localhost:3000/hooks']) {
      const res = await request(app).patch('/__sandbox/merchants/SBXDEMO0001').send({ webhook_url: url });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('The webhook url field must be an http or https URL, e.g. http://127.0.0.1:3000/hooks.');
    }
    expect((await request(app).patch('/__sandbox/merchants/SBXDEMO0001').send({ webhook_urll: 'http://x' })).status).toBe(400);
    expect((await request(app).patch('/__sandbox/merchants/NOPE').send({})).status).toBe(404);
  });
});

describe('a body that came but was not read is refused saying why (not "the field is required")', () => {
  test("JSON sent without Content-Type, as Python's requests.post(url, data=json.dumps(body)) does", async () => {
    const body = JSON.stringify(payoutBody());
    const api = await request(app).post('/api/v1/public/payment/transfer').set(demoHeaders).set('Content-Type', '').send(Buffer.from(body));
    expect(api.status).toBe(400);
    expect(api.body).toEqual({
      success: false,
      http_code: 400,
      message: 'The request body was not read (no Content-Type): send Content-Type: application/json or application/x-www-form-urlencoded.',
    });
    const control = await request(app).post('/__sandbox/clock/advance').set('Content-Type', '').send(Buffer.from('{"by":"1h"}'));
    expect(control.status).toBe(400);
    expect(control.body.error).toBe('The request body was not read (no Content-Type): send Content-Type: application/json.');
    // text/plain is what a web page can send cross-site: refused before it is read (test/safety.test.ts).
    expect((await request(app).post('/__sandbox/clock/advance').set('Content-Type', 'text/plain').send('{"by":"1h"}')).status).toBe(415);
    expect(app.sandbox.repo.state.payouts).toEqual({});
    // JSON and forms are read as before.
    expect((await request(app).post('/api/v1/public/payment/transfer').set(demoHeaders).type('form').send(payoutBody())).status).toBe(200);
  });

  test('JSON in a charset other than UTF-8, or compressed in a way the sandbox does not read: 400 saying why, nothing made', async () => {
    const body = Buffer.from(JSON.stringify(payoutBody({ client_ref_id: 'CHARSET001' })));
    const latin = await request(app)
      .post('/api/v1/public/payment/transfer')
      .set(demoHeaders)
      .set('Content-Type', 'application/json; charset=latin1')
      .send(body);
    expect(latin.status).toBe(400);
    expect(latin.body).toEqual({ success: false, http_code: 400, message: 'The request body was not read (charset latin1): send it in UTF-8.' });
    const packed = await request(app)
      .post('/api/v1/public/payment/transfer')
      .set(demoHeaders)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'compress')
      .send(body);
    expect(packed.status).toBe(400);
    expect(packed.body.message).toBe('The request body was not read (Content-Encoding compress): send it uncompressed, or with gzip, deflate or br.');
    const control = await request(app)
      .post('/__sandbox/clock/advance')
      .set('Content-Type', 'application/json; charset=latin1')
      .send(Buffer.from('{"by":"1h"}'));
    expect(control.status).toBe(400);
    expect(control.body.error).toBe('The request body was not read (charset latin1): send it in UTF-8.');
    expect(Object.values(app.sandbox.repo.state.payouts).filter((p) => p.client_ref_id === 'CHARSET001')).toEqual([]);
  });
});

test('POST /__sandbox/merchants/{id}/accounts: another VAN, funded, ACTIVE unless said; bad input 400, unknown merchant 404', async () => {
  const made = await request(app).post('/__sandbox/merchants/SBXDEMO0001/accounts').send({ balance: 2500, status: 'INACTIVE' });
  expect(made.status).toBe(201);
  expect(made.body).toEqual({ merchant_id: 'SBXDEMO0001', account_no: expect.stringMatching(/^VAN\d{17}$/), status: 'INACTIVE', balance: 2500 });
  const plain = await request(app).post('/__sandbox/merchants/SBXDEMO0001/accounts').send({});
  expect(plain.body).toMatchObject({ status: 'ACTIVE', balance: 1_000_000 });
  expect((await request(app).post('/__sandbox/merchants/SBXDEMO0001/accounts').send({ status: 'OPEN' })).status).toBe(400);
  expect((await request(app).post('/__sandbox/merchants/NOPE/accounts').send({})).status).toBe(404);
});

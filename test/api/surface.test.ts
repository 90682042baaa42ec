import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { balance, DEMO, demoHeaders, initialize, payoutBody, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

const CREDENTIALS_FAILURE = { success: false, http_code: 401, message: 'Credentials are not valid' };

describe('credentials', () => {
  const operations: Array<[string, (h: Record<string, string>) => request.Test]> = [
    ['initialize v1', (h) => request(app).post('/api/v1/public/payment/transfer').set(h).send(payoutBody())],
    ['initialize v2', (h) => request(app).post('/api/v2/public/payment/transfer').set(h).send(payoutBody())],
    ['status', (h) => request(app).get('/api/v1/public/payment/transfer/status').set(h).query({ ref_id: '1234567890' })],
    ['balance', (h) => request(app).get('/api/v1/public/balance/check').set(h).query({ account_no: DEMO.van1 })],
  ];
  const bad: Array<[string, Record<string, string>]> = [
    ['no headers', {}],
    ['wrong secret', { ...demoHeaders, 'x-api-secret': 'sbx_secret_demo_0002' }],
    ['wrong key', { ...demoHeaders, 'x-api-key': 'nope' }],
    ['unknown email', { ...demoHeaders, 'x-merchant-email': 'nobody@example.com' }],
    ['missing secret', { 'x-merchant-email': DEMO.email, 'x-api-key': DEMO.key }],
    ["another merchant's secret", { ...demoHeaders, 'x-api-secret': 'sbx_secret_other_0002' }],
  ];
  for (const [op, call] of operations) {
    test.each(bad)(`${op}: %s → envelope A 401`, async (_name, headers) => {
      const res = await call(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(CREDENTIALS_FAILURE);
    });
  }

  test('credentials come before field validation', async () => {
    const res = await request(app).post('/api/v1/public/payment/transfer').send({});
    expect(res.body).toEqual(CREDENTIALS_FAILURE);
  });

  test('the email header is matched case-insensitively', async () => {
    const res = await balance(app, DEMO.van1, { ...demoHeaders, 'x-merchant-email': DEMO.email.toUpperCase() });
    expect(res.status).toBe(200);
  });
});

describe('the HTTP surface', () => {
  test('unknown route: envelope A 404', async () => {
    const res = await request(app).get('/api/v1/public/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, http_code: 404, message: 'The route /api/v1/public/nothing-here could not be found.' });
  });

  test.each([
    ['get', '/api/v1/public/payment/transfer'],
    ['put', '/api/v2/public/payment/transfer'],
    ['post', '/api/v1/public/payment/transfer/status'],
    ['delete', '/api/v1/public/balance/check'],
  ] as const)('%s %s: envelope A 405', async (method, path) => {
    const res = await request(app)[method](path).set(demoHeaders);
    expect(res.status).toBe(405);
    expect(res.body.success).toBe(false);
    expect(res.body.http_code).toBe(405);
    expect(res.body.message).toContain(method.toUpperCase());
  });

  test('malformed JSON: envelope A 400', async () => {
    const res = await request(app)
      .post('/api/v1/public/payment/transfer')
      .set(demoHeaders)
      .set('Content-Type', 'application/json')
      .send('{"client_ref_id": "abc",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, http_code: 400, message: 'The request body is not valid JSON.' });
  });

  test('a body over 100 kB: envelope A 413, nothing stored', async () => {
    const res = await initialize(app, payoutBody({ remarks: 'x'.repeat(110 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, http_code: 413, message: 'The request body is larger than the 100 kB limit.' });
    expect(Object.keys(app.sandbox.repo.state.payouts)).toHaveLength(0);
  });

  test('an internal error: envelope A 500 with a generic message, and the server keeps serving', async () => {
    const store = app.sandbox.store;
    const persist = store.persist.bind(store);
    store.persist = () => Promise.reject(new Error('disk on fire'));
    const res = await initialize(app, payoutBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, http_code: 500, message: 'Something went wrong on our side. Please try again.' });
    expect(JSON.stringify(res.body)).not.toContain('disk on fire');
    store.persist = persist;
    expect((await initialize(app, payoutBody())).status).toBe(200);
  });

  test('every response carries an X-Request-Id', async () => {
    const a = await balance(app, DEMO.van1);
    const b = await request(app).get('/nowhere');
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  test('emulated responses carry no sandbox fields in the body', async () => {
    const res = await initialize(app, payoutBody());
    expect(Object.keys(res.body).sort()).toEqual(['data', 'http_code', 'message', 'success']);
    expect(Object.keys(res.body.data).sort()).toEqual(['client_ref_id', 'ref_id', 'status']);
  });

  test('ids such as __proto__ never reach the prototype', async () => {
    const res = await balance(app, '__proto__');
    expect(res.body).toEqual({ success: false, http_code: 400, message: 'The selected account no is invalid.' });
  });

  test('a body whose fields hide under __proto__ has none of them', async () => {
    const res = await request(app)
      .post('/api/v1/public/payment/transfer')
      .set(demoHeaders)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ['__proto__']: payoutBody() }));
    expect(res.body).toEqual({ success: false, http_code: 400, message: 'The client ref id field is required.' });
    expect(Object.keys(app.sandbox.repo.state.payouts)).toHaveLength(0);
  });

  test('health', async () => {
    const res = await request(app).get('/__sandbox/health');
    expect(res.status).toBe(200);
    // In-process: the caller's V8, no flag of the sandbox's own (src/v8-tuning.ts).
    expect(res.body).toEqual({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/), pid: process.pid, v8_flags: [] });
  });
});

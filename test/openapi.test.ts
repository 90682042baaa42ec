import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { OPERATIONS } from '../src/contract/operations.js';
import { compile } from '../src/contract/validate.js';
import { DEMO, demoHeaders, initialize, payoutBody, testApp } from './helpers.js';

let app: SandboxApp;
beforeAll(async () => {
  app = await testApp();
});

test('GET /__sandbox/openapi.json is a valid OpenAPI 3.1 document', async () => {
  const doc = (await request(app).get('/__sandbox/openapi.json')).body;
  expect(doc.openapi).toBe('3.1.0');
  const result = await new Validator().validate(doc);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['accessToken', 'apiKey', 'apiSecret', 'merchantEmail', 'merchantId']);
  const init = doc.paths['/api/v1/public/payment/transfer'].post;
  expect(init.requestBody.content['application/json'].schema.properties.client_ref_id).toMatchObject({ type: 'string', minLength: 5, maxLength: 30 });
  expect(init.requestBody.content['application/json'].schema.properties.amount).toMatchObject({ type: 'number', multipleOf: 0.01 });
  expect(init.responses['400'].content['application/json'].schema.anyOf).toHaveLength(2);
  expect(doc.webhooks.payoutStatusV1.post.requestBody.content['application/json'].schema.properties.transaction).toBeDefined();
});

/** Every route the Express app serves outside the control API, as OpenAPI `METHOD /path/{param}`. */
function servedRoutes(a: SandboxApp): string[] {
  const out: string[] = [];
  const walk = (stack: Array<{ route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: unknown[] } }>) => {
    for (const layer of stack) {
      if (layer.route) {
        // The control API, and the icon a browser asks for (app.ts): not the emulated API.
        if (layer.route.path.startsWith('/__sandbox') || layer.route.path === '/favicon.ico') continue;
        for (const m of Object.keys(layer.route.methods)) {
          if (m === '_all') continue;
          out.push(`${m} ${layer.route.path.replace(/:([a-z_]+)/g, '{$1}').replace(/\/$/, '')}`);
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack as typeof stack);
      }
    }
  };
  walk((a as unknown as { router: { stack: Parameters<typeof walk>[0] } }).router.stack);
  return out.sort();
}

test('every route the app serves is in the document, and every documented one is served', async () => {
  const doc = (await request(app).get('/__sandbox/openapi.json')).body;
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path.replace(/\/$/, '')}`))
    .sort();
  expect(servedRoutes(app)).toEqual(documented);
  expect(documented).toHaveLength(9);
});

test('real responses match the documented response schemas', async () => {
  const created = await initialize(app, payoutBody());
  const checks: Array<[string, number, unknown]> = [
    ['initializePayoutV1', 200, created.body],
    [
      'getPayoutStatus',
      200,
      (await request(app).get('/api/v1/public/payment/transfer/status').set(demoHeaders).query({ ref_id: created.body.data.ref_id })).body,
    ],
    ['getBalance', 200, (await request(app).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: DEMO.van1 })).body],
    ['getBeneficiary', 200, (await request(app).post('/api/v1/public/beneficiary/get').set(demoHeaders).send({ beneficiary_id: DEMO.activeBene })).body],
    [
      'verify',
      200,
      (
        await request(app)
          .post('/api/v1/public/verification/')
          .set(demoHeaders)
          .send({ debit_from: DEMO.van1, verification_type: 'IFSC', ifsc: { ifsc_code: 'HDFC0000001' } })
      ).body,
    ],
    [
      'getCheckoutStatus',
      200,
      (await request(app).get('/api/v1/payment/transaction/PAYDEMO0000000001/status').set({ MerchantId: 'SBXDEMO0001', AccessToken: 'sbx_token_demo_0001' }))
        .body,
    ],
    ['initializePayoutV2', 400, (await initialize(app, payoutBody({ amount: 1001.01 }), 'v2')).body],
    ['initializePayoutV2', 400, (await initialize(app, payoutBody({ amount: 'x' }), 'v2')).body],
    ['getBalance', 401, (await request(app).get('/api/v1/public/balance/check').query({ account_no: DEMO.van1 })).body],
    ['getCheckoutStatus', 401, (await request(app).get('/api/v1/payment/transaction/PAYDEMO0000000001/status').set({ MerchantId: 'SBXDEMO0001' })).body],
    [
      'getCheckoutStatus',
      404,
      (await request(app).get('/api/v1/payment/transaction/NOPE/status').set({ MerchantId: 'SBXDEMO0001', AccessToken: 'sbx_token_demo_0001' })).body,
    ],
  ];
  for (const [id, status, body] of checks) {
    const op = OPERATIONS.find((o) => o.id === id)!;
    const check = compile(op.responses[String(status)][1]);
    expect({ id, status, ok: check(body), errors: check.errors ?? null }).toEqual({ id, status, ok: true, errors: null });
  }
});

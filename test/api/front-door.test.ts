// What every request passes before its operation (src/app.ts, issue 37): one layer instead of a
// router's list, an exact `METHOD path` lookup ahead of the routes, and a plain JSON body read
// without express.json(). Each shortcut must answer exactly as the long way does.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { DEMO, demoHeaders, payoutBody, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

describe('a JSON body read without express.json()', () => {
  const body = JSON.stringify(payoutBody({ client_ref_id: 'FRONT00001' }));
  let base: string;
  let server: ReturnType<SandboxApp['listen']>;
  beforeEach(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise((r) => server.close(r)));
  // Raw bytes as sent (fetch, not supertest: supertest re-encodes a body it is given).
  const send = async (type: string | undefined, raw: Buffer | string) => {
    const res = await fetch(`${base}/api/v2/public/payment/transfer`, {
      method: 'POST',
      headers: { ...demoHeaders, ...(type === undefined ? {} : { 'content-type': type }) },
      body: typeof raw === 'string' ? raw : new Uint8Array(raw),
    });
    return { status: res.status, body: await res.json() };
  };
  const payoutCount = async () => (await request(app).get('/__sandbox/merchants/SBXDEMO0001/payouts')).body.total;

  test.each(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=utf-8', 'application/json; charset=UTF-8'])(
    'Content-Type %s: the payout is made',
    async (type) => {
      const res = await send(type, body);
      expect(res.status).toBe(200);
      expect(res.body.data.client_ref_id).toBe('FRONT00001');
    },
  );

  test('a type express.json() does not take (application/vnd.api+json) is refused as unread, as before', async () => {
    const res = await send('application/vnd.api+json', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/The request body was not read \(Content-Type application\/vnd\.api\+json\)/);
  });

  test('a byte-order mark and JSON whitespace before the object are taken, as express.json() takes them', async () => {
    const res = await send('application/json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(` \n\t${body}`)]));
    expect(res.status).toBe(200);
  });

  test.each([
    ['a string', '"FRONT00001"'],
    ['a number', '42'],
    ['broken JSON', '{"client_ref_id": '],
    ['a non-JSON space first', `\u00a0${body}`],
  ])('%s: envelope A 400 "not valid JSON", nothing made', async (_name, raw) => {
    const before = await payoutCount();
    expect(typeof before).toBe('number');
    const res = await send('application/json', raw);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, http_code: 400, message: 'The request body is not valid JSON.' });
    expect(await payoutCount()).toBe(before);
  });

  test('an array is read, then refused as not an object; an empty body (or one of only a byte-order mark) is an empty object (the fields are missing)', async () => {
    expect((await send('application/json', '[1]')).body.message).toBe('The request body must be a JSON object or a form.');
    expect((await send('application/json', '')).body.message).toBe('The client ref id field is required.');
    expect((await send('application/json', Buffer.from([0xef, 0xbb, 0xbf]))).body.message).toBe('The client ref id field is required.');
  });

  test('the raw body, as it came, is what the trace keeps', async () => {
    const raw = ` ${body.replace('FRONT00001', 'FRONT00009')}`;
    expect((await send('application/json', raw)).status).toBe(200);
    const trace = await request(app).get('/__sandbox/merchants/SBXDEMO0001/trace');
    expect(trace.text).toContain(JSON.stringify(raw));
  });

  test('a client that goes away mid-body does not bring the server down', async () => {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v2/public/payment/transfer',
        headers: { ...demoHeaders, 'Content-Type': 'application/json', 'Content-Length': '500' },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write('{"client_ref_id": "FRO', () => setImmediate(() => req.destroy()));
    });
    const res = await fetch(`${base}/api/v1/public/balance/check?account_no=${DEMO.van1}`, { headers: demoHeaders });
    expect(res.status).toBe(200);
    // The journal says what express.json() said of it: a 400, "request aborted".
    const entries = (await request(app).get('/__sandbox/requests?limit=5')).body.requests as Array<{
      method: string;
      status: number | null;
      error: { message: string } | null;
    }>;
    expect(entries.find((e) => e.method === 'POST')).toMatchObject({ status: 400, error: { message: 'request aborted' } });
  });
});

describe('the exact-path lookup and the routes behind it answer alike', () => {
  const balanceAt = (path: string, method: 'get' | 'head' = 'get') => request(app)[method](path).set(demoHeaders).query({ account_no: DEMO.van1 });

  test.each(['/api/v1/public/balance/check', '/API/v1/public/balance/CHECK', '/api/v1/public/balance/check/'])('GET %s → the balance', async (path) => {
    const res = await balanceAt(path);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Balance fetched successfully');
  });

  test('HEAD → 200 without a body; another method → 405', async () => {
    const head = await balanceAt('/api/v1/public/balance/check', 'head');
    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    const put = await request(app).put('/api/v1/public/balance/check').set(demoHeaders);
    expect(put.status).toBe(405);
  });

  test('a path with parameters (the checkout status) is still reached by its route', async () => {
    const res = await request(app).get('/api/v1/payment/transaction/NOPE/status').set({ MerchantId: 'SBXDEMO0001', AccessToken: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, http_code: 401, message: 'Credentials are not valid' });
  });

  test('an unknown path is a 404 and /favicon.ico the icon, however its URL is written', async () => {
    expect((await request(app).get('/api/v1/public/nothing')).status).toBe(404);
    for (const path of ['/favicon.ico', '/FAVICON.ICO', '/favicon.ico?x=1']) {
      const icon = await request(app).get(path);
      expect(icon.status).toBe(200);
      expect(icon.headers['content-type']).toMatch(/image\/svg\+xml/);
    }
    // The absolute form of the request target, as a proxy sends it.
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as AddressInfo;
    const status = await new Promise<number | undefined>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: `http://127.0.0.1:${port}/favicon.ico` }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.end();
    });
    await new Promise((r) => server.close(r));
    expect(status).toBe(200);
  });
});

import request from 'supertest';
import { createApp, type SandboxApp } from '../src/app.js';
import { DEMO, demoHeaders, payoutBody } from './helpers.js';

/**
 * The control API and the in-process handle are one implementation (the Admin facade): the same
 * admin scenario, run once over HTTP and once in-process on twin sandboxes, gives the same answers.
 */

interface AdminDriver {
  call(method: 'get' | 'post' | 'patch' | 'put', path: string, body?: unknown): Promise<unknown>;
}

function httpDriver(app: SandboxApp): AdminDriver {
  return {
    call: async (method, path, body) => {
      const res = await request(app)
        [method](`/__sandbox${path}`)
        .send(body as object);
      return res.status >= 400 ? { error: res.body.error, status: res.status } : res.body;
    },
  };
}

/** The same calls, made on `app.sandbox.admin` directly. */
function inProcessDriver(app: SandboxApp): AdminDriver {
  const admin = app.sandbox.admin;
  const routes: Array<[string, RegExp, (m: RegExpExecArray, body: Record<string, unknown>) => unknown]> = [
    ['post', /^\/merchants$/, (_m, b) => admin.createMerchant(b)],
    ['patch', /^\/merchants\/(.+)$/, (m, b) => admin.patchMerchant(m[1], b)],
    ['post', /^\/accounts\/(\w+)\/credit$/, (m, b) => admin.credit(m[1], (b as { amount: number }).amount)],
    ['patch', /^\/accounts\/(\w+)$/, (m, b) => admin.setAccountStatus(m[1], (b as { status: 'ACTIVE' }).status)],
    ['get', /^\/accounts\/(\w+)\/ledger$/, (m) => admin.ledger(m[1])],
    ['post', /^\/payouts\/(\w+)\/status$/, (m, b) => admin.forcePayoutStatus(m[1], (b as { status: 'Success' }).status)],
    ['post', /^\/snapshots$/, (_m, b) => admin.snapshot((b as { name: string }).name)],
    ['get', /^\/snapshots$/, () => admin.snapshots()],
    ['post', /^\/snapshots\/(\w+)\/restore$/, (m) => admin.restore(m[1])],
    ['post', /^\/clock\/advance$/, (_m, b) => admin.advance((b as { by: string }).by)],
    ['get', /^\/clock$/, () => admin.clock()],
    ['post', /^\/reset$/, () => admin.reset()],
    ['get', /^\/webhooks$/, () => admin.deliveries()],
    ['post', /^\/merchants\/(\w+)\/clock\/advance$/, (m, b) => admin.merchants.advance(m[1], (b as { by: string }).by)],
    ['get', /^\/merchants\/(\w+)\/clock$/, (m) => admin.merchants.clock(m[1])],
    ['post', /^\/merchants\/(\w+)\/snapshots$/, (m, b) => admin.merchants.snapshot(m[1], (b as { name: string }).name)],
    ['post', /^\/merchants\/(\w+)\/snapshots\/(\w+)\/restore$/, (m) => admin.merchants.restore(m[1], m[2])],
    ['post', /^\/merchants\/(\w+)\/reset$/, (m) => admin.merchants.reset(m[1])],
    ['get', /^\/merchants\/(\w+)\/payouts$/, (m) => admin.browse.payouts(m[1])],
  ];
  return {
    call: async (method, path, body) => {
      for (const [m, re, run] of routes) {
        const match = re.exec(path);
        if (m === method && match) {
          try {
            return JSON.parse(JSON.stringify(await run(match, (body ?? {}) as Record<string, unknown>)));
          } catch (err) {
            return { error: (err as Error).message, status: (err as { httpCode?: number }).httpCode };
          }
        }
      }
      throw new Error(`no in-process call for ${method} ${path}`);
    },
  };
}

async function scenario(app: SandboxApp, admin: AdminDriver): Promise<Array<[string, unknown]>> {
  const out: Array<[string, unknown]> = [];
  const step = async (name: string, p: Promise<unknown>) => out.push([name, await p]);
  const payout = await request(app)
    .post('/api/v1/public/payment/transfer')
    .set(demoHeaders)
    .send(payoutBody({ client_ref_id: 'PARITY1' }));
  const refId = payout.body.data.ref_id as string;
  await step('create merchant', admin.call('post', '/merchants', { name: 'Parity Co', email: 'parity@example.com', balance: 500 }));
  await step('duplicate merchant', admin.call('post', '/merchants', { email: 'parity@example.com' }));
  await step('patch merchant', admin.call('patch', '/merchants/parity@example.com', { per_transaction_limit: 250.5 }));
  await step('credit', admin.call('post', `/accounts/${DEMO.van1}/credit`, { amount: 99.99 }));
  await step('unknown account', admin.call('post', '/accounts/NOSUCHACCOUNT/credit', { amount: 1 }));
  await step('deactivate', admin.call('patch', `/accounts/${DEMO.van2}`, { status: 'INACTIVE' }));
  await step('snapshot', admin.call('post', '/snapshots', { name: 'before' }));
  await step('force success', admin.call('post', `/payouts/${refId}/status`, { status: 'Success' }));
  await step('refused transition', admin.call('post', `/payouts/${refId}/status`, { status: 'Pending' }));
  await step('advance', admin.call('post', '/clock/advance', { by: '2h' }));
  await step('ledger', admin.call('get', `/accounts/${DEMO.van1}/ledger`));
  await step('restore', admin.call('post', '/snapshots/before/restore'));
  await step('ledger after restore', admin.call('get', `/accounts/${DEMO.van1}/ledger`));
  await step('reset', admin.call('post', '/reset'));
  await step('snapshots after reset', admin.call('get', '/snapshots'));
  await step('restore after reset', admin.call('post', '/snapshots/before/restore'));
  await step('clock', admin.call('get', '/clock'));
  // One merchant's own clock, snapshot, restore and reset.
  const tenant = (await admin.call('post', '/merchants', { email: 'tenant@example.com', clock: { mode: 'manual', start: '2026-04-01T10:00:00+05:30' } })) as {
    merchant_id: string;
    account_no: string;
    headers: Record<string, string>;
  };
  await request(app)
    .post('/api/v2/public/payment/transfer')
    .set(tenant.headers)
    .send(payoutBody({ client_ref_id: 'PARITY2', debit_from: tenant.account_no, amount: 2002.02 }));
  await step('tenant snapshot', admin.call('post', `/merchants/${tenant.merchant_id}/snapshots`, { name: 'one' }));
  await step('tenant advance', admin.call('post', `/merchants/${tenant.merchant_id}/clock/advance`, { by: '1h' }));
  await step('tenant payouts', admin.call('get', `/merchants/${tenant.merchant_id}/payouts`));
  await step('tenant restore', admin.call('post', `/merchants/${tenant.merchant_id}/snapshots/one/restore`));
  await step('tenant reset', admin.call('post', `/merchants/${tenant.merchant_id}/reset`));
  await step('tenant clock', admin.call('get', `/merchants/${tenant.merchant_id}/clock`));
  await step('tenant unknown', admin.call('post', '/merchants/NOPE/clock/advance', { by: '1h' }));
  // Invalid input: refused both ways with the same message, nothing changed.
  await step('ledger before refusals', admin.call('get', `/accounts/${DEMO.van1}/ledger`));
  await step('negative credit', admin.call('post', `/accounts/${DEMO.van1}/credit`, { amount: -500 }));
  await step('negative opening balance', admin.call('post', '/merchants', { email: 'negative@example.com', balance: -1 }));
  await step('unknown field', admin.call('post', '/merchants', { email: 'typo@example.com', balanse: 5 }));
  await step('webhook url not http', admin.call('patch', `/merchants/${DEMO.email}`, { webhook_url: 'ftp://x' }));
  await step('status not in the list', admin.call('patch', `/accounts/${DEMO.van2}`, { status: 'ACTIV' }));
  await step('not a duration', admin.call('post', '/clock/advance', { by: 'soon' }));
  await step('ledger after refusals', admin.call('get', `/accounts/${DEMO.van1}/ledger`));
  return out;
}

test('the same admin scenario gives the same answers over HTTP and in-process', async () => {
  const options = { data: 'memory', clock: 'manual', seed: 7, logLevel: 'silent' } as const;
  const [a, b] = await Promise.all([createApp(options), createApp(options)]);
  try {
    const overHttp = await scenario(a, httpDriver(a));
    const inProcess = await scenario(b, inProcessDriver(b));
    expect(inProcess).toEqual(overHttp);
    // And the scenario did what it says (so equal answers are not equal nothings).
    const byName = Object.fromEntries(overHttp) as Record<string, Record<string, unknown>>;
    expect(byName['duplicate merchant']).toEqual({ status: 409, error: 'A merchant with the email parity@example.com exists already.' });
    expect(byName['refused transition']).toMatchObject({ status: 409 });
    expect(byName['snapshots after reset']).toEqual({ snapshots: [] });
    expect(byName['restore after reset']).toEqual({ status: 404, error: 'No snapshot named before.' });
    expect(byName.ledger).toMatchObject({ balanced: true });
    expect(byName['tenant advance']).toMatchObject({ now: '2026-04-01T11:00:00.000+05:30', follows_sandbox_clock: false });
    expect(byName['tenant restore']).toMatchObject({ clock: { now: '2026-04-01T10:00:00.000+05:30' } });
    expect(byName['tenant unknown']).toMatchObject({ status: 404 });
    expect(byName['negative credit']).toEqual({ status: 400, error: 'The amount field must be greater than 0.' });
    expect(byName['negative opening balance']).toEqual({ status: 400, error: 'The balance field must be at least 0.' });
    expect(byName['unknown field']).toEqual({
      status: 400,
      error: expect.stringMatching(/^The balanse field is not one this request takes \(it takes: name, email, balance, /),
    });
    expect(byName['webhook url not http']).toEqual({
      status: 400,
      error: 'The webhook url field must be an http or https URL, e.g. http://127.0.0.1:3000/hooks.',
    });
    expect(byName['status not in the list']).toEqual({ status: 400, error: 'The status field must be one of ACTIVE, INACTIVE.' });
    expect(byName['not a duration']).toEqual({
      status: 400,
      error: 'The by field must be a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M.',
    });
    expect(byName['ledger after refusals']).toEqual(byName['ledger before refusals']);
    expect(((await request(a).get('/__sandbox/merchants')).body.merchants as Array<{ email: string }>).map((m) => m.email)).not.toContain(
      'negative@example.com',
    );
  } finally {
    await a.sandbox.close();
    await b.sandbox.close();
  }
});

test('a merchant created through the control API is answered with the terms it got', async () => {
  const a = await createApp({ data: 'memory', clock: 'manual', seed: 7, logLevel: 'silent' });
  try {
    const plain = (await request(a).post('/__sandbox/merchants').send({})).body;
    expect(plain).toMatchObject({
      balance: 1000000,
      fees: { '1001': 5, '1002': 2.5, '1003': 25 },
      tax_rate_percent: 18,
      per_transaction_limit: 1000000,
      verification_charges: { BANK: 3, PAN: 2, DRIVING_LICENSE: 5, VOTER_ID: 4, PASSPORT: 5, CIN: 5, GSTIN: 5, AADHAAR: 6, IFSC: 1 },
      webhook_url: null,
      webhook_version: null,
    });
    expect(plain.account_no).toMatch(/^VAN\d{17}$/);
    const custom = (
      await request(a)
        .post('/__sandbox/merchants')
        .send({ balance: 10.5, fees: { '1002': 1.25 }, per_transaction_limit: 500 })
    ).body;
    expect(custom).toMatchObject({ balance: 10.5, fees: { '1001': 5, '1002': 1.25, '1003': 25 }, per_transaction_limit: 500 });
  } finally {
    await a.sandbox.close();
  }
});

import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { ledgerSum } from '../src/domain/ledger.js';
import { replayLog } from '../src/store/change-log.js';
import type { State } from '../src/store/state.js';
import { logPathOf } from '../src/store/store.js';
import { balance, DEMO, defaultFixtures, demoHeaders, initialize, payoutBody, status, testApp, useTempDir } from './helpers.js';

const dir = useTempDir();

/** What a restart would read: the document with its change log replayed. */
async function onDiskState(file: string): Promise<State> {
  const state = JSON.parse(readFileSync(file, 'utf8')) as State;
  await replayLog(logPathOf(file), state);
  return state;
}

function listen(app: SandboxApp): Promise<Server> {
  return new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
}

test('100 concurrent payouts against a VAN that can afford 40: exactly 40 accepted, never below zero', async () => {
  const fx = defaultFixtures();
  fx.merchants[0].accounts[0].balance = 40 * 105.9; // 100 + 5 fee + 0.90 tax, 40 times
  const app = await testApp({ fixtures: fx, data: join(dir(), 'db.json') });
  const server = await listen(app);
  try {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(server)
          .post('/api/v1/public/payment/transfer')
          .set(demoHeaders)
          .send(payoutBody({ client_ref_id: `CONC${String(i).padStart(5, '0')}` })),
      ),
    );
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(accepted).toHaveLength(40);
    expect(refused.every((r) => r.body.error?.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect((await balance(app, DEMO.van1)).body.data.current_balance).toBe(0);

    const account = app.sandbox.repo.state.accounts[DEMO.van1];
    expect(account.ledger.every((e) => e.balance_after >= 0)).toBe(true);
    expect(ledgerSum(account)).toBe(account.balance);

    // Everything acknowledged is already on disk (group commit), before any flush at close.
    const onDisk = await onDiskState(join(dir(), 'db.json'));
    expect(Object.keys(onDisk.payouts).sort()).toEqual(accepted.map((r) => r.body.data.ref_id).sort());
    expect(onDisk.accounts[DEMO.van1].balance).toBe(0);
    await app.sandbox.close();
  } finally {
    server.close();
  }
});

test('a 200 is sent only after the change is written to the file', async () => {
  const file = join(dir(), 'db.json');
  const app = await testApp({ data: file });
  const res = await initialize(app, payoutBody());
  expect(res.status).toBe(200);
  const onDisk = await onDiskState(file);
  expect(onDisk.payouts[res.body.data.ref_id]).toBeDefined();
  await app.sandbox.close();
});

test('every account balance equals the sum of its ledger after a mix of payouts', async () => {
  const app = await testApp();
  const mix: Array<Record<string, unknown>> = [
    { amount: 10, payment_method: '1001' },
    { amount: 2500.75, payment_method: '1002' },
    { amount: 250000, payment_method: '1003', debit_from: DEMO.van2 },
    { amount: 0.5, payment_method: '1001' }, // refused: range
    { amount: 99999.99, payment_method: '1001', debit_from: DEMO.van2 },
    { amount: 10, debit_from: DEMO.inactiveVan }, // refused: inactive
    { amount: 123.45, payment_method: '1002', debit_from: DEMO.van2 },
  ];
  for (const m of mix) await initialize(app, payoutBody(m));
  for (const account of Object.values(app.sandbox.repo.state.accounts)) {
    expect(ledgerSum(account)).toBe(account.balance);
  }
  const van1 = app.sandbox.repo.state.accounts[DEMO.van1];
  expect(van1.ledger.map((e) => e.type)).toEqual(['credit', 'payout', 'fee', 'tax', 'payout', 'fee', 'tax']);
  expect((await balance(app, DEMO.van1)).body.data.current_balance).toBe(van1.balance / 100);
});

test('with a seed and the manual clock, two runs making the same calls get the same ids and timestamps', async () => {
  const run = async () => {
    const app = await testApp({ seed: 42 });
    const out = [];
    for (let i = 0; i < 3; i++) {
      const r = await initialize(app, payoutBody({ client_ref_id: `SEED0000${i}` }));
      out.push((await status(app, { ref_id: r.body.data.ref_id })).body.data.transaction);
    }
    return out;
  };
  const [a, b] = [await run(), await run()];
  expect(a).toEqual(b);
  const other = await testApp({ seed: 43 });
  const r = await initialize(other, payoutBody({ client_ref_id: 'SEED00000' }));
  expect(r.body.data.ref_id).not.toBe(String(a[0].ref_id));
});

test('an existing data file is used as it is; fixtures seed only a new store', async () => {
  const file = join(dir(), 'db.json');
  const first = await testApp({ data: file });
  const created = await initialize(first, payoutBody());
  await first.sandbox.close();

  const fx = defaultFixtures();
  fx.merchants[0].accounts[0].balance = 1;
  const second = await testApp({ data: file, fixtures: fx });
  expect((await status(second, { ref_id: created.body.data.ref_id })).status).toBe(200);
  expect((await balance(second, DEMO.van1)).body.data.current_balance).toBe(1000000 - 105.9);
  await second.sandbox.close();
});

test('a data file that is not JSON is refused without being overwritten', async () => {
  const file = join(dir(), 'db.json');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, '{ not json');
  await expect(testApp({ data: file })).rejects.toThrow(/db\.json: the data file is not valid JSON/);
  expect(readFileSync(file, 'utf8')).toBe('{ not json');
});

test('fixtures given in-process get the same checks as a file, duplicates included', async () => {
  const fx = defaultFixtures();
  fx.merchants[1].accounts[0].account_no = fx.merchants[0].accounts[0].account_no;
  await expect(testApp({ fixtures: fx })).rejects.toThrow('fixtures: /merchants/1/accounts/0/account_no: must be unique');
});

test('a fixtures webhook_url that cannot be sent to (port 0, user:password@, not http) is refused at start, saying which', async () => {
  for (const [url, reason] of [
    ['http://127.0.0.1:0/hooks', 'bad port: 0'],
    ['http://hooks:pw@127.0.0.1:3000/hooks', 'a URL with credentials (user:password@) is not sent to'],
    ['ftp://127.0.0.1/hooks', 'not an http(s) URL: ftp:'],
  ]) {
    const fx = defaultFixtures();
    fx.merchants[0].webhook_url = url;
    await expect(testApp({ fixtures: fx })).rejects.toThrow(`fixtures: /merchants/0/webhook_url: cannot be sent to: ${reason}`);
  }
  const fine = defaultFixtures();
  fine.merchants[0].webhook_url = 'http://127.0.0.1:3000/hooks';
  await expect(testApp({ fixtures: fine })).resolves.toBeDefined();
});

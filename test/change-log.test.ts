import { appendFileSync, chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import request from 'supertest';
import { createApp, type SandboxApp } from '../src/app.js';
import { replayLog } from '../src/store/change-log.js';
import { emptyState, type Payout, type State } from '../src/store/state.js';
import { type CompactionHooks, crashStore, logPathOf, openStore } from '../src/store/store.js';
import { beneficiaryBody, DEMO, demoHeaders, initialize, payoutBody, useTempDir } from './helpers.js';
import { startReceiver } from './receiver.js';

/**
 * The file store's change log: every acknowledged change is appended (the cost of what changed),
 * replayed at open; torn tails are cut, damage stops the opening; compaction writes a fresh
 * document and an empty log, and a crash at any point of it loses nothing.
 */

const dir = useTempDir();
const file = () => join(dir(), 'db.json');

/** What a restart reads: the document with its log replayed (the files as they are now). */
async function onDisk(path: string): Promise<State> {
  const state = JSON.parse(readFileSync(path, 'utf8')) as State;
  await replayLog(logPathOf(path), state);
  return state;
}

/** The state as JSON would keep it (undefined fields dropped), without the log generation. */
function plain(state: State): unknown {
  const copy = JSON.parse(JSON.stringify(state)) as State;
  delete copy.log_generation;
  return copy;
}

async function fileApp(extra: Record<string, unknown> = {}): Promise<SandboxApp> {
  return createApp({ data: file(), clock: 'manual', seed: 7, logLevel: 'silent', fsync: false, compactBytes: 1024 ** 3, ...extra });
}

/** Drives a change of every kind the sandbox makes: API calls, scheduled steps, webhooks, control operations. */
async function everyKindOfChange(app: SandboxApp, hooksUrl: string): Promise<void> {
  const c = () => request(app);
  await c().patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_url: hooksUrl, webhook_version: 'v2' });
  const refs: string[] = [];
  for (const amount of [2002.01, 2002.02, 2002.03, 2002.04, 2002.05, 2002.06, 2002.07, 100]) {
    const res = await initialize(app, payoutBody({ amount }), 'v2');
    if (res.body.data?.ref_id) refs.push(res.body.data.ref_id);
  }
  await initialize(app, payoutBody({ amount: 2001.01 }));
  const bene = await c().post('/api/v1/public/beneficiary/create').set(demoHeaders).send(beneficiaryBody());
  await c().post('/api/v1/public/beneficiary/create').set(demoHeaders).send({
    transfer_type: 'BANK',
    beneficiary_name: 'Stays Pending',
    beneficiary_email: 'p@example.com',
    beneficiary_mobile: '9123456780',
    account_number: '9999999999',
    ifsc_code: 'ICIC0001234',
  });
  const verify = (body: Record<string, unknown>) =>
    c()
      .post('/api/v1/public/verification/')
      .set(demoHeaders)
      .send({ debit_from: DEMO.van1, ...body });
  await verify({ verification_type: 'PAN', pan: { pan_number: 'ABCPE1234F' } });
  const otp = await verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: '234567890123' } });
  await verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: '234567890123', otp: '123456', ref_id: otp.body.data.verify_response.ref_id } });
  await verify({ verification_type: 'AADHAAR', aadhaar: { aadhaar_number: '234567890124' } });
  const checkout = await c().post('/__sandbox/checkout/transactions').send({ merchant_id: 'SBXDEMO0001', amount: 499 });
  await c().post('/__sandbox/checkout/transactions').send({ merchant_id: 'SBXDEMO0001', amount: 10 });
  await c().post(`/__sandbox/accounts/${DEMO.van2}/credit`).send({ amount: 2500 });
  await c().patch(`/__sandbox/accounts/${DEMO.van2}`).send({ status: 'INACTIVE' });
  await c().post('/__sandbox/clock/advance').send({ by: '10s' });
  await c().post(`/__sandbox/payouts/${refs[6]}/status`).send({ status: 'Failed', bank_res_msg: 'Account closed' });
  await c().post(`/__sandbox/beneficiaries/${bene.body.data.beneficiary_id}/status`).send({ status: 'Active' });
  await c().post(`/__sandbox/checkout/transactions/${checkout.body.payment_id}/status`).send({ status: 'Dropped' });
  await app.sandbox.admin.settleWebhooks();
  const deliveries = (await c().get('/__sandbox/webhooks')).body.deliveries;
  await c().post(`/__sandbox/webhooks/${deliveries[0].delivery_id}/redeliver`).send();
  const m = (
    await c()
      .post('/__sandbox/merchants')
      .send({ balance: 5000, clock: { mode: 'manual' } })
  ).body;
  await request(app)
    .post('/api/v1/public/payment/transfer')
    .set(m.headers)
    .send(payoutBody({ debit_from: m.account_no, amount: 2002.02 }));
  await c().post(`/__sandbox/merchants/${m.merchant_id}/snapshots`).send({ name: 's' });
  await c().post(`/__sandbox/merchants/${m.merchant_id}/clock/advance`).send({ by: '1h' });
  await c().post(`/__sandbox/merchants/${m.merchant_id}/snapshots/s/restore`).send();
  await c().post('/__sandbox/merchants/SBXOTHER0002/reset').send();
  await c().post('/__sandbox/clock/advance').send({ by: '2h' });
  await app.sandbox.admin.settleWebhooks();
  await app.sandbox.store.persist();
}

test('a change made anywhere in the domain is in the log: document + log after it equal the state in memory', async () => {
  const receiver = await startReceiver((_r, n) => (n % 3 === 0 ? 500 : 200));
  const app = await fileApp();
  try {
    await everyKindOfChange(app, receiver.url);
    const generation = JSON.parse(readFileSync(file(), 'utf8')).log_generation;
    expect(statSync(logPathOf(file())).size).toBeGreaterThan(0);
    expect(plain(await onDisk(file()))).toEqual(plain(app.sandbox.repo.state));
    // The log did the work: the document is still the first one.
    expect(generation).toBe(1);
  } finally {
    await receiver.close();
  }
  // And a real restart reads the same.
  const inMemory = plain(app.sandbox.repo.state);
  app.sandbox.scheduler.stop();
  app.sandbox.webhooks.close();
  await crashStore(app.sandbox.store);
  const again = await fileApp();
  expect(plain(again.sandbox.repo.state)).toEqual(inMemory);
  await again.sandbox.close();
});

test("the data file and its log are readable by their owner alone (they hold every merchant's credentials and webhook secrets)", async () => {
  const app = await fileApp();
  await initialize(app, payoutBody());
  await app.sandbox.close();
  for (const path of [file(), logPathOf(file())]) expect({ path, mode: statSync(path).mode & 0o777 }).toEqual({ path, mode: 0o600 });
  // Files an earlier version made 0644 are made the owner's alone when the store opens.
  for (const path of [file(), logPathOf(file())]) chmodSync(path, 0o644);
  const again = await fileApp();
  for (const path of [file(), logPathOf(file())]) expect({ path, mode: statSync(path).mode & 0o777 }).toEqual({ path, mode: 0o600 });
  await again.sandbox.close();
});

test('a write costs the size of what changed: one payout appends a few kilobytes whatever is stored', async () => {
  const app = await fileApp();
  for (let i = 0; i < 200; i++) await initialize(app, payoutBody());
  const before = statSync(logPathOf(file())).size;
  await initialize(app, payoutBody());
  const one = statSync(logPathOf(file())).size - before;
  expect(one).toBeGreaterThan(0);
  expect(one).toBeLessThan(8 * 1024);
  await app.sandbox.close();
});

test("the review's facts: a page is written as the facts added, and whole when one written already changed (a status check repeated)", async () => {
  const app = await fileApp();
  const ref = (await initialize(app, payoutBody())).body.data.ref_id;
  const check = () => request(app).get(`/api/v1/public/payment/transfer/status?ref_id=${ref}`).set(demoHeaders).expect(200);
  /** The review_facts change of the log's last line: [collection, id, page, from, facts]. */
  const lastPageChange = () => {
    const lines = readFileSync(logPathOf(file()), 'utf8').trim().split('\n');
    return (JSON.parse(lines.at(-1) as string).c as unknown[][]).find((c) => c[0] === 'review_facts') as [
      string,
      string,
      unknown,
      number,
      Array<Record<string, unknown>>,
    ];
  };
  // The initialize's fact is taken as it is answered (after its payout's write): the next write has it.
  await app.sandbox.store.persist();
  await check();
  await app.sandbox.store.persist();
  // The page had the initialize's fact on disk: only the status check's is added.
  expect(lastPageChange()[3]).toBe(1);
  expect(lastPageChange()[4].map((f) => f.op)).toEqual(['getPayoutStatus']);
  await check();
  await check();
  await app.sandbox.store.persist();
  // The two repeats are counted on the fact written already: the page goes whole.
  const [, , , from, facts] = lastPageChange();
  expect(from).toBe(0);
  expect(facts.map((f) => [f.op, f.repeats])).toEqual([
    ['initializePayout', undefined],
    ['getPayoutStatus', 2],
  ]);
  expect(plain(await onDisk(file()))).toEqual(plain(app.sandbox.repo.state));
  app.sandbox.scheduler.stop();
  app.sandbox.webhooks.close();
  await crashStore(app.sandbox.store);
});

describe('opening a damaged store', () => {
  async function storeWithTwoPayouts(): Promise<string[]> {
    const app = await fileApp();
    const refs = [];
    for (let i = 0; i < 2; i++) refs.push((await initialize(app, payoutBody())).body.data.ref_id as string);
    app.sandbox.scheduler.stop();
    await crashStore(app.sandbox.store);
    return refs;
  }

  test('a torn last line is cut off with a warning; everything before it is kept', async () => {
    const refs = await storeWithTwoPayouts();
    const log = logPathOf(file());
    const good = readFileSync(log, 'utf8');
    appendFileSync(log, '{"g":1,"s":[0,0,0],"c":[["payouts","99",{"ref_i');
    const warn = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const app = await fileApp();
      expect(Object.keys(app.sandbox.repo.state.payouts)).toEqual(expect.arrayContaining(refs));
      expect(app.sandbox.repo.state.payouts['99']).toBeUndefined();
      expect(String(warn.mock.calls.map((c) => c[0]).join(''))).toMatch(/db\.json\.log: the last change-log line was cut short/);
      // Left in place until the first write (a start that fails later changes nothing), cut off by it.
      expect(readFileSync(log, 'utf8')).toMatch(/"ref_i$/);
      await initialize(app, payoutBody());
      const now = readFileSync(log, 'utf8');
      expect(now.startsWith(good)).toBe(true);
      for (const line of now.split('\n').filter((l) => l !== '')) JSON.parse(line);
      await app.sandbox.close();
    } finally {
      warn.mockRestore();
    }
  });

  test('a damaged line in the middle stops the opening, naming the file and line; nothing is changed', async () => {
    await storeWithTwoPayouts();
    const log = logPathOf(file());
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[0] = lines[0].slice(0, 20);
    writeFileSync(log, lines.join('\n'));
    const before = readFileSync(log, 'utf8');
    await expect(fileApp()).rejects.toThrow(/db\.json\.log:1: the change log has a damaged line/);
    expect(readFileSync(log, 'utf8')).toBe(before);
  });

  test("lines removed, repeated or moved by hand stop the opening, naming the line (each line is its generation's n-th); a log of an earlier version, without numbers, still replays", async () => {
    const made = await fileApp();
    for (let i = 0; i < 4; i++) await initialize(made, payoutBody());
    made.sandbox.scheduler.stop();
    await crashStore(made.sandbox.store);
    const log = logPathOf(file());
    const original = readFileSync(log, 'utf8');
    const lines = original.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(lines.map((_, i) => i + 1));
    const tampered: Array<[string, string[], RegExp]> = [
      [
        'the first line appended again',
        [...lines, lines[0]],
        new RegExp(`db\\.json\\.log:${lines.length + 1}: .*this is line 1 of its generation, line ${lines.length + 1} was next.*repeated or moved`),
      ],
      ['two lines swapped', [lines[1], lines[0], ...lines.slice(2)], /db\.json\.log:1: .*this is line 2 of its generation, line 1 was next.*removed before it/],
      [
        'a line in the middle removed',
        [lines[0], ...lines.slice(2)],
        /db\.json\.log:2: .*this is line 3 of its generation, line 2 was next.*removed before it/,
      ],
    ];
    for (const [what, text, message] of tampered) {
      writeFileSync(log, `${text.join('\n')}\n`);
      await expect(fileApp()).rejects.toThrow(message);
      expect({ what, log: readFileSync(log, 'utf8') }).toEqual({ what, log: `${text.join('\n')}\n` });
    }
    // Without the numbers (as an earlier version wrote it): replayed as before.
    writeFileSync(log, `${lines.map((l) => JSON.stringify({ ...JSON.parse(l), n: undefined })).join('\n')}\n`);
    const app = await fileApp();
    expect(Object.keys(app.sandbox.repo.state.payouts)).toHaveLength(4);
    // And what it appends next is numbered after them.
    await initialize(app, payoutBody());
    const after = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect((JSON.parse(after[after.length - 1]) as { n: number }).n).toBe(after.length);
    await app.sandbox.close();
  });

  test('a log newer than its document (the document replaced by hand) stops the opening', async () => {
    await storeWithTwoPayouts();
    const doc = JSON.parse(readFileSync(file(), 'utf8')) as State;
    doc.log_generation = 0;
    writeFileSync(file(), JSON.stringify(doc));
    await expect(fileApp()).rejects.toThrow(/db\.json\.log:1: the change log is newer \(generation 1\) than the data file \(0\)/);
  });
});

describe('compaction', () => {
  test('past the threshold the log is folded into a fresh document; requests are served throughout', async () => {
    const app = await fileApp({ compactBytes: 0 });
    const generation = () => (JSON.parse(readFileSync(file(), 'utf8')) as State).log_generation ?? 0;
    const refs: string[] = [];
    // The log outgrows the document (compactBytes 0: the document's size is the threshold).
    for (let round = 0; round < 40 && generation() < 3; round++) {
      refs.push(...(await Promise.all(Array.from({ length: 10 }, () => initialize(app, payoutBody()).then((r) => r.body.data.ref_id as string)))));
    }
    expect(generation()).toBeGreaterThanOrEqual(3);
    expect(statSync(logPathOf(file())).size).toBeLessThan(statSync(file()).size);
    // The review's facts of the last requests ride along with the next write (no answer waits for them).
    await app.sandbox.store.persist();
    expect(plain(await onDisk(file()))).toEqual(plain(app.sandbox.repo.state));
    for (const ref of refs) expect((await onDisk(file())).payouts[ref]).toBeDefined();
    await app.sandbox.close();
  });

  test('a clean stop compacts: the document holds everything, the log is empty', async () => {
    const app = await fileApp();
    const ref = (await initialize(app, payoutBody())).body.data.ref_id;
    await app.sandbox.close();
    expect(statSync(logPathOf(file())).size).toBe(0);
    expect(JSON.parse(readFileSync(file(), 'utf8')).payouts[ref]).toBeDefined();
  });

  test('reset and whole restore replace the state through a compaction (the log never replays onto the wrong base)', async () => {
    const app = await fileApp();
    await request(app).post('/__sandbox/snapshots').send({ name: 'empty' });
    const ref = (await initialize(app, payoutBody())).body.data.ref_id;
    const generation = JSON.parse(readFileSync(file(), 'utf8')).log_generation;
    await request(app).post('/__sandbox/snapshots/empty/restore').send();
    expect(JSON.parse(readFileSync(file(), 'utf8')).log_generation).toBe(generation + 1);
    expect(statSync(logPathOf(file())).size).toBe(0);
    expect((await onDisk(file())).payouts[ref]).toBeUndefined();
    await initialize(app, payoutBody());
    await request(app).post('/__sandbox/reset').send();
    expect(Object.keys((await onDisk(file())).payouts)).toEqual([]);
    await app.sandbox.close();
  });
});

describe('a crash at any point of a compaction loses nothing', () => {
  class Crash extends Error {}

  function payout(i: number): Payout {
    return { ref_id: String(i), merchant_id: 'M', client_ref_id: `C${i}` } as Payout;
  }

  /** Writes `n` acknowledged payouts through the store (a compaction at every write past the first few). */
  async function acknowledged(hooks: CompactionHooks, crashAt: number): Promise<string[]> {
    const { store } = await openStore(file(), emptyState, { fsync: false, compactBytes: 64 * 1024 ** 2, hooks });
    await store.persist();
    const acked: string[] = [];
    for (let i = 1; i <= 5; i++) {
      store.state.payouts[String(i)] = payout(i);
      store.changed('payouts', String(i));
      await store.persist();
      acked.push(String(i));
    }
    store.state.payouts['6'] = payout(6);
    store.changed('payouts', '6');
    armed = crashAt;
    // The compaction a clean stop makes is cut short: the stop says so, the log keeps everything.
    expect((await store.close()).problem).toMatch(new RegExp(`crash at point ${crashAt}`));
    return acked;
  }

  let armed = 0;
  const crashIf = (point: number) => () => {
    if (armed === point) throw new Crash(`crash at point ${point}`);
  };

  test.each([
    ['before the new document is renamed into place', 1],
    ['after the rename, before the log is reset', 2],
  ])('%s', async (_name, point) => {
    armed = 0;
    const acked = await acknowledged({ beforeRename: crashIf(1), beforeLogReset: crashIf(2) }, point);
    expect(existsSync(file())).toBe(true);
    const { store } = await openStore(
      file(),
      () => {
        throw new Error('a new store was made: the data file was lost');
      },
      { fsync: false, compactBytes: 64 * 1024 ** 2 },
    );
    for (const id of acked) expect(store.state.payouts[id]).toEqual(payout(Number(id)));
    // The next write (a compaction: the stale lines are seen) leaves one clean document.
    await store.close();
    expect(statSync(logPathOf(file())).size).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file(), 'utf8')).payouts)).toEqual(expect.arrayContaining(acked));
  });
});

test('a write asked for in the turn of a crash is not made: nothing reaches the files after it, and its callers are told', async () => {
  const { store } = await openStore(file(), emptyState, { fsync: false, compactBytes: 64 * 1024 ** 2 });
  await store.persist();
  store.state.payouts['1'] = { ref_id: '1', merchant_id: 'M', client_ref_id: 'C1' } as Payout;
  store.changed('payouts', '1');
  await store.persist();
  const log = readFileSync(logPathOf(file()), 'utf8');
  const document = readFileSync(file(), 'utf8');
  store.state.payouts['2'] = { ref_id: '2', merchant_id: 'M', client_ref_id: 'C2' } as Payout;
  store.changed('payouts', '2');
  // Asked for, to begin at the end of this turn: the crash comes first.
  const asked = store.persist();
  await crashStore(store);
  await expect(asked).rejects.toThrow(/stopped as a crash would stop it/);
  expect(readFileSync(logPathOf(file()), 'utf8')).toBe(log);
  expect(readFileSync(file(), 'utf8')).toBe(document);
  expect((await onDisk(file())).payouts['2']).toBeUndefined();
});

test('the webhook outbox keeps a retention the control API can change: finished deliveries past it go, oldest first', async () => {
  const receiver = await startReceiver(() => 200);
  const app = await createApp({ data: 'memory', clock: 'manual', seed: 7, logLevel: 'silent' });
  try {
    await request(app).patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_url: receiver.url });
    for (let i = 0; i < 4; i++) await initialize(app, payoutBody());
    await request(app).post('/__sandbox/clock/advance').send({ by: '10s' });
    await app.sandbox.admin.settleWebhooks();
    const all = (await request(app).get('/__sandbox/webhooks')).body.deliveries as Array<{ delivery_id: string }>;
    expect(all.length).toBe(4); // one status change (Success) each
    expect((await request(app).get('/__sandbox/webhooks/retention')).body).toEqual({ max_deliveries_per_merchant: 10000 });
    expect((await request(app).put('/__sandbox/webhooks/retention').send({ max_deliveries_per_merchant: 0 })).status).toBe(400);
    const set = await request(app).put('/__sandbox/webhooks/retention').send({ max_deliveries_per_merchant: 3 });
    expect(set.body).toEqual({ max_deliveries_per_merchant: 3 });
    const kept = (await request(app).get('/__sandbox/webhooks')).body.deliveries as Array<{ delivery_id: string }>;
    expect(kept.map((d) => d.delivery_id)).toEqual(all.slice(0, 3).map((d) => d.delivery_id));
  } finally {
    await receiver.close();
    await app.sandbox.close();
  }
});

test('a manual advance that delivers a webhook writes twice: before the delivery goes out, then its attempt with the clock (one write at the end of the turn)', async () => {
  const receiver = await startReceiver(() => 200);
  const app = await fileApp();
  try {
    await request(app).patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_url: receiver.url, webhook_version: 'v2' });
    const ref = (await initialize(app, payoutBody(), 'v2')).body.data.ref_id as number;
    const lines = () => readFileSync(logPathOf(file()), 'utf8').split('\n').filter(Boolean);
    const before = lines().length;
    const advanced = await request(app).post('/__sandbox/clock/advance').send({ by: '10s' });
    expect(advanced.status).toBe(200);
    await app.sandbox.admin.settleWebhooks();
    expect(receiver.received).toHaveLength(1);
    type Line = { s: [number, number, number | null]; c: Array<[string, string, Record<string, unknown> | null]> };
    const written = lines()
      .slice(before)
      .map((l) => JSON.parse(l) as Line);
    const delivery = (line: Line | undefined) => line?.c.find(([c]) => c === 'webhook_deliveries')?.[2];
    // The payout's Success and its delivery, on disk before the receiver is told; then the attempt with the clock's new time.
    expect(delivery(written[0])).toMatchObject({ ref_id: ref, attempts: [] });
    expect(written[1]?.s[2]).toBe(app.sandbox.store.state.clock.now);
    if (delivery(written[1]) !== undefined) {
      expect(written).toHaveLength(2);
      expect(delivery(written[1])).toMatchObject({ state: 'delivered', attempts: [{ n: 1, status: 200 }] });
    } else {
      // The receiver answered after the advance's 250 ms (a loaded machine): the clock went first, the attempt after it.
      expect(written).toHaveLength(3);
      expect(delivery(written[2])).toMatchObject({ state: 'delivered', attempts: [{ n: 1, status: 200 }] });
    }
    // What the advance answered is what a restart reads.
    const disk = await onDisk(file());
    expect(plain(disk)).toEqual(plain(app.sandbox.store.state));
  } finally {
    await receiver.close();
    await app.sandbox.close();
  }
});

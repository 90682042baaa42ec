import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { DEMO, demoHeaders, initialize, payoutBody, status, testApp } from '../helpers.js';

/**
 * The reference's error table, as docs/api.md copies it ("The reference's error table"): every
 * row's condition driven over HTTP, and the answer compared with the row character for character.
 * Merchants match on these strings; reading the rows from the docs keeps page and sandbox one.
 */

interface Row {
  condition: string;
  envelope: 'A' | 'B';
  code: string;
  message: string;
}

const DOCS = new URL('../../docs/api.md', import.meta.url);

/** The first markdown table after the heading, each cell trimmed and its code backticks dropped. */
function referenceTable(): Row[] {
  const text = readFileSync(DOCS, 'utf8');
  const heading = text.indexOf("### The reference's error table");
  if (heading < 0) throw new Error('docs/api.md has no heading "### The reference\'s error table"');
  const lines = text.slice(heading).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const table = lines.slice(
    start,
    lines.findIndex((l, i) => i > start && !l.startsWith('|')),
  );
  const cells = (line: string) =>
    line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim().replace(/^`(.*)`$/, '$1'));
  const header = cells(table[0]).join(' | ');
  if (header !== 'condition | envelope | code or `http_code` | message') throw new Error(`the table's columns changed: ${header}`);
  return table.slice(2).map((line) => {
    const [condition, envelope, code, message] = cells(line);
    if (envelope !== 'A' && envelope !== 'B') throw new Error(`row "${condition}": envelope ${envelope} is neither A nor B`);
    return { condition, envelope, code, message };
  });
}

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

type Answer = request.Response;
const STATUS_PATH = '/api/v1/public/payment/transfer/status';

/** Each condition of the table, brought about every way a client can (each answer is checked). */
const DRIVERS: Record<string, () => Promise<Answer[]>> = {
  'Invalid credentials': async () => [
    await request(app).get('/api/v1/public/balance/check').query({ account_no: DEMO.van1 }),
    await request(app)
      .get('/api/v1/public/balance/check')
      .set({ ...demoHeaders, 'x-api-secret': 'wrong' })
      .query({ account_no: DEMO.van1 }),
    await request(app).get('/api/v1/payment/transaction/PAYDEMO0000000002/status'),
    await request(app).get('/api/v1/payment/transaction/PAYDEMO0000000002/status').set({ MerchantId: 'SBXDEMO0001', AccessToken: 'wrong' }),
  ],
  'Status check called too often': async () => {
    const created = await initialize(app, payoutBody());
    const calls: Answer[] = [];
    for (let i = 0; i < 4; i++) calls.push(await status(app, { ref_id: created.body.data.ref_id }));
    expect(calls.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
    return calls.slice(3);
  },
  'Status check with neither ref_id nor client_ref_id': async () => [
    await status(app, {}),
    await status(app, { ref_id: '', client_ref_id: '' }),
    await request(app).get(STATUS_PATH).set(demoHeaders).send({}),
  ],
  'Get beneficiary finds no match': async () => [
    await request(app).post('/api/v1/public/beneficiary/get').set(demoHeaders).send({ beneficiary_id: 'NOSUCHBENEFICIARY000' }),
    await request(app).post('/api/v1/public/beneficiary/get').set(demoHeaders).send({ beneficiary_name: 'Nobody', account_number: '000000001' }),
  ],
  'Initialize with an already used client_ref_id': async () => {
    const body = payoutBody();
    expect((await initialize(app, body)).status).toBe(200);
    return [await initialize(app, body), await initialize(app, body, 'v2')];
  },
  'Status check finds no transaction for the given id': async () => [
    await status(app, { ref_id: '1234567890' }),
    await status(app, { client_ref_id: 'NOSUCHORDER' }),
  ],
};

const rows = referenceTable();

test('docs/api.md copies the whole table, and every row has a driver here', () => {
  expect(rows.map((r) => r.condition).sort()).toEqual(Object.keys(DRIVERS).sort());
});

test.each(rows)('$condition: envelope $envelope $code "$message"', async (row) => {
  const drive = DRIVERS[row.condition];
  if (!drive) throw new Error(`no driver for the row "${row.condition}"`);
  for (const res of await drive()) {
    if (row.envelope === 'A') {
      expect({ status: res.status, body: res.body }).toEqual({
        status: Number(row.code),
        body: { success: false, http_code: Number(row.code), message: row.message },
      });
    } else {
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { status: false, message: row.message, error: { code: row.code, message: row.message } },
      });
    }
  }
});

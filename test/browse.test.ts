import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { DEMO, initialize, payoutBody, testApp } from './helpers.js';

/** The control API's views for live dashboards: lists, pages, one payout's life, demos, next event, the change stream. */

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

test("a merchant's payouts come newest first, a page at a time, filtered by status, mode and VAN", async () => {
  const refs: string[] = [];
  for (let i = 0; i < 7; i++)
    refs.push((await initialize(app, payoutBody({ amount: i === 3 ? 2002.01 : 100, debit_from: i === 5 ? DEMO.van2 : DEMO.van1 }))).body.data.ref_id);
  await request(app).post('/__sandbox/clock/advance').send({ by: '10s' });
  const first = await request(app).get('/__sandbox/merchants/SBXDEMO0001/payouts?limit=3');
  expect(first.status).toBe(200);
  expect(first.body.total).toBe(7);
  expect(first.body.payouts.map((p: { ref_id: number }) => String(p.ref_id))).toEqual([refs[6], refs[5], refs[4]]);
  const second = await request(app).get(`/__sandbox/merchants/SBXDEMO0001/payouts?limit=3&cursor=${first.body.next}`);
  expect(second.body.payouts.map((p: { ref_id: number }) => String(p.ref_id))).toEqual([refs[3], refs[2], refs[1]]);
  const last = await request(app).get(`/__sandbox/merchants/SBXDEMO0001/payouts?limit=3&cursor=${second.body.next}`);
  expect(last.body).toMatchObject({ next: null });
  expect(last.body.payouts).toHaveLength(1);
  const failed = await request(app).get('/__sandbox/merchants/SBXDEMO0001/payouts?status=Failed');
  expect(failed.body.payouts.map((p: { ref_id: number; rule: string }) => [String(p.ref_id), p.rule])).toEqual([[refs[3], '2002.01']]);
  const van2 = await request(app).get(`/__sandbox/merchants/SBXDEMO0001/payouts?van=${DEMO.van2}&mode=1001`);
  expect(van2.body.payouts.map((p: { ref_id: number }) => String(p.ref_id))).toEqual([refs[5]]);
  expect((await request(app).get('/__sandbox/merchants/SBXOTHER0002/payouts')).body.payouts).toEqual([]);
  expect((await request(app).get('/__sandbox/merchants/NOPE/payouts')).status).toBe(404);
});

test('one payout: its record, rule, steps taken and still scheduled with their times, its deliveries', async () => {
  const ref = (await initialize(app, payoutBody({ amount: 2002.03 }))).body.data.ref_id; // Pending → Unknown 5 s → Success 1 h
  await request(app).post('/__sandbox/clock/advance').send({ by: '5s' });
  const res = await request(app).get(`/__sandbox/payouts/${ref}`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ merchant_id: 'SBXDEMO0001', rule: '2002.03', transaction: { status: 'Unknown' } });
  expect(res.body.timeline.taken.map((s: { status: string; at: string }) => [s.status, s.at])).toEqual([
    ['Pending', '2026-01-01T09:00:00.000+05:30'],
    ['Unknown', '2026-01-01T09:00:05.000+05:30'],
  ]);
  expect(res.body.timeline.scheduled.map((s: { status: string; at: string }) => [s.status, s.at])).toEqual([['Success', '2026-01-01T10:00:05.000+05:30']]);
  expect(res.body.deliveries).toEqual([]);
  expect((await request(app).get('/__sandbox/payouts/0000000000')).status).toBe(404);
});

test("demos list the scenario's magic amounts by group; clock/next moves to the next scheduled event", async () => {
  const demos = (await request(app).get('/__sandbox/demos')).body;
  expect(demos.scenario).toBe('default');
  expect(demos.demos).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: '1001.02', group: 'Rejections', amount: 1001.02 }),
      expect.objectContaining({ name: '2002.02', group: 'Timelines', amount: 2002.02, description: 'Pending for 30 min, then Success' }),
    ]),
  );
  // Each told as a story (the dashboard's Stories): the shipped scenario's own words.
  const unknown = demos.demos.find((d: { name: string }) => d.name === '2002.03');
  expect(unknown.story).toMatchObject({
    title: 'The bank does not confirm: Unknown, then paid',
    steps: { Unknown: expect.stringContaining('Do not send it again') },
  });
  expect(
    demos.demos.every((d: { story: { title: string; steps: Record<string, string> } }) => d.story.title !== '' && typeof d.story.steps.answer === 'string'),
  ).toBe(true);
  expect((await request(app).post('/__sandbox/clock/next')).status).toBe(409);
  await initialize(app, payoutBody({ amount: 2002.02 }));
  const moved = await request(app).post('/__sandbox/clock/next');
  expect(moved.body.now).toBe('2026-01-01T09:30:00.000+05:30');
});

test("the merchants list carries accounts, clock and headers; records lists are the merchant's own", async () => {
  const list = (await request(app).get('/__sandbox/merchants')).body.merchants;
  const demo = list.find((m: { merchant_id: string }) => m.merchant_id === 'SBXDEMO0001');
  expect(demo.accounts.map((a: { account_no: string }) => a.account_no)).toContain(DEMO.van1);
  expect(demo.clock).toMatchObject({ follows_sandbox_clock: true, mode: 'manual' });
  const benes = (await request(app).get('/__sandbox/merchants/SBXDEMO0001/beneficiaries')).body.beneficiaries;
  expect(benes.map((b: { bene_id: string }) => b.bene_id).sort()).toEqual(['BENEDEMO000000000001', 'BENEDEMO000000000002', 'BENEDEMO000000000003']);
  expect((await request(app).get('/__sandbox/merchants/SBXOTHER0002/beneficiaries')).body.beneficiaries.map((b: { bene_id: string }) => b.bene_id)).toEqual([
    'BENEOTHR000000000001',
  ]);
});

test('GET /__sandbox/events streams a change event when state changes', async () => {
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const controller = new AbortController();
  try {
    const res = await fetch(`${base}/__sandbox/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toContain(': connected');
    await initialize(app, payoutBody());
    let text = '';
    for (let i = 0; i < 5 && !text.includes('event: change'); i++) text += (await reader.read()).value;
    expect(text).toMatch(/event: change\ndata: \{"kinds":\[[^\]]*"payouts"/);
  } finally {
    controller.abort();
    app.sandbox.changes.close();
    server.closeAllConnections();
    server.close();
  }
});

test("the dashboard's files load without the admin token and from the sandbox only (no CDN); the data needs the token", async () => {
  const locked = await testApp({ adminToken: 'browse-test-token' });
  const page = await request(locked).get('/__sandbox/ui/');
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.text).toContain('/__sandbox/ui/app.js');
  // One script: the modules and Preact + htm bundled by the build (three requests load the page).
  expect(page.text.match(/<script\b/g)).toHaveLength(1);
  expect(page.text).not.toContain('modulepreload');
  for (const [file, type] of [
    ['app.js', /^text\/javascript/],
    ['app.js.map', /^application\/json/],
    ['style.css', /^text\/css/],
    ['index.html', /^text\/html/],
    ['vendor/LICENSE-preact.txt', /^text\/plain/],
    ['vendor/LICENSE-htm.txt', /^text\/plain/],
  ] as const) {
    const res = await request(locked).get(`/__sandbox/ui/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.headers['cache-control']).toBe('public, max-age=0');
    expect(String(res.text ?? res.body)).not.toMatch(/(src|href|from|import)\s*[=(]?\s*["']https?:\/\//);
  }
  const script = (await request(locked).get('/__sandbox/ui/app.js')).text;
  expect(script).not.toMatch(/^\s*import\b/m);
  expect(script).toContain('sourceMappingURL=app.js.map');
  // Preact and htm are in it: their licences named in its first line, and served.
  expect(script.split('\n')[0]).toMatch(
    /Preact \(MIT, \/__sandbox\/ui\/vendor\/LICENSE-preact\.txt\) and htm \(Apache-2\.0, \/__sandbox\/ui\/vendor\/LICENSE-htm\.txt\)/,
  );
  expect((await request(locked).head('/__sandbox/ui/app.js')).status).toBe(200);
  // Only the built files, by name: nothing else answers, however it is spelt.
  for (const path of ['nope.js', 'vendor', 'vendor/', '%2e%2e/package.json', '..%2f..%2fpackage.json', '%E0%A4%A', 'views/review.js', 'vendor/preact-htm.js']) {
    const res = await request(locked).get(`/__sandbox/ui/${path}`);
    expect([path, res.status]).toEqual([path, 404]);
  }
  expect((await request(locked).get('/__sandbox/ui/nope.js')).body).toEqual({ error: 'No dashboard file /nope.js.' });
  expect((await request(locked).post('/__sandbox/ui/app.js')).status).toBe(404);
  expect((await request(locked).get('/__sandbox/merchants')).status).toBe(401);
  expect((await request(locked).get('/__sandbox/events')).status).toBe(401);
});

test('one payout says how its initialize was answered (a fault after it was made) and, once failed, its refund', async () => {
  const fault = (await initialize(app, payoutBody({ amount: 3003.01 }))).headers['x-request-id'];
  const made = (await request(app).get(`/__sandbox/requests/${fault}`)).body.ref_id as string;
  expect((await request(app).get(`/__sandbox/payouts/${made}`)).body).toMatchObject({
    initialize_fault: { type: 'error', http_code: 500, message: expect.any(String) },
    reversed: false,
    refund: null,
  });
  const ref = (await initialize(app, payoutBody({ amount: 2002.05 }))).body.data.ref_id; // Success 5 s, Failed 1 h later
  await request(app).post('/__sandbox/clock/advance').send({ by: '2h' });
  const p = (await request(app).get(`/__sandbox/payouts/${ref}`)).body;
  expect(p).toMatchObject({ initialize_fault: null, reversed: true, refund: { amount: 2002.05, fees: 5, tax: 0.9, total: 2007.95, at: expect.any(String) } });
});

test("a scenario's own stories: a rule without one is told by its description; a story of unknown moments is refused, naming it", async () => {
  const scenario = {
    name: 'stories',
    payouts: {
      default_timeline: [{ after: '5s', status: 'Success' }],
      rules: [
        { name: 'told', match: { amount: 111 }, reject: { code: 'INSUFFICIENT_BALANCE' }, story: { title: 'Broke', steps: { answer: 'Top up first.' } } },
        { name: 'untold', description: 'rejected, no story', match: { amount: 112 }, reject: { code: 'INSUFFICIENT_BALANCE' } },
      ],
    },
  };
  expect((await request(app).put('/__sandbox/scenario').send({ scenario })).status).toBe(200);
  const demos = (await request(app).get('/__sandbox/demos')).body.demos;
  expect(demos.map((d: { name: string; story: unknown }) => [d.name, d.story])).toEqual([
    ['told', { title: 'Broke', steps: { answer: 'Top up first.' } }],
    ['untold', { title: 'rejected, no story', steps: {} }],
  ]);
  const bad = { ...scenario, payouts: { ...scenario.payouts, rules: [{ ...scenario.payouts.rules[0], story: { title: 'x', steps: { later: 'no' } } }] } };
  const refused = await request(app).put('/__sandbox/scenario').send({ scenario: bad });
  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.body)).toMatch(/later/);
  expect((await request(app).put('/__sandbox/scenario').send({ name: 'default' })).status).toBe(200);
});

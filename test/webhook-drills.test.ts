import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import type { ScenarioFile } from '../src/scenario/schema.js';
import { toIso } from '../src/time.js';
import { advanceBy, DEMO, initialize, payoutBody, testApp } from './helpers.js';
import { type Received, startReceiver } from './receiver.js';

/**
 * Webhook drills: the timestamped signature (and the documented Node receiver run as it is), the
 * webhook secret's rotation, the replay and stale-timestamp chaos, the receiver probe, endpoint
 * auto-disable and replay, and all of it across a restart and a merchant's snapshot. Everything on
 * the manual clock: the only real-time waits are the network's.
 */

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_ID = 'SBXDEMO0001';
const PROBE_CHECKS = ['valid-delivery', 'forged-signature', 'stale-timestamp', 'duplicate-delivery', 'unknown-field', 'answer-time'];

const apps: SandboxApp[] = [];
const receivers: Receiver[] = [];
const procs: ChildProcess[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.sandbox.close();
  for (const r of receivers.splice(0)) await r.close();
  for (const p of procs.splice(0)) if (p.exitCode === null) p.kill();
});

async function sandbox(opts: Parameters<typeof testApp>[0] = {}): Promise<SandboxApp> {
  const a = await testApp({ rateLimits: false, ...opts });
  apps.push(a);
  return a;
}

async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

const nowS = () => Math.floor(Date.now() / 1000);

/** The documented check, written here on its own: a `v1=` entry that matches, and `t` within 300 s. */
function verifyV2(header: string | string[] | undefined, body: string, secret: string): boolean {
  const parts = String(header ?? '')
    .split(',')
    .map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowS() - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.some(([k, v]) => k === 'v1' && !!v && Buffer.from(v, 'hex').length === 32 && timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

const v1Entries = (header: string | string[] | undefined) => [...String(header).matchAll(/v1=([0-9a-f]+)/g)].map((m) => m[1]);
const legacy = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** A strict receiver: the V2 signature by one of `secrets`, a timestamp within 300 s, each delivery id acted on once. */
function strict(secrets: string[]): (r: Received) => number {
  const seen = new Set<string>();
  return (r) => {
    if (!secrets.some((s) => verifyV2(r.headers['x-sandbox-signature-v2'], r.body, s))) return 401;
    const id = String(r.headers['x-sandbox-delivery-id']);
    if (seen.has(id)) return 200;
    JSON.parse(r.body);
    seen.add(id);
    return 204;
  };
}

function scenarioWith(webhooks: ScenarioFile['webhooks'] = {}, rules: ScenarioFile['payouts']['rules'] = []): ScenarioFile {
  return { name: 'drills', payouts: { default_timeline: [{ after: '5s', status: 'Success' }], rules }, webhooks };
}

const settle = (app: SandboxApp) => request(app).post('/__sandbox/webhooks/settle').expect(200);
const deliveries = (app: SandboxApp, merchantId = DEMO_ID) => app.sandbox.webhooks.list({ merchantId, limit: 1000 });
const endpoint = async (app: SandboxApp, merchantId = DEMO_ID) => (await request(app).get(`/__sandbox/merchants/${merchantId}/webhooks/endpoint`)).body;
const rotate = (app: SandboxApp, body: unknown, merchantId = DEMO_ID) =>
  request(app)
    .post(`/__sandbox/merchants/${merchantId}/webhook-secret/rotate`)
    .send(body as object);
const probe = (app: SandboxApp, body: unknown = {}, merchantId = DEMO_ID) =>
  request(app)
    .post(`/__sandbox/merchants/${merchantId}/webhooks/probe`)
    .send(body as object);
const replay = (app: SandboxApp, body: unknown = {}, merchantId = DEMO_ID) =>
  request(app)
    .post(`/__sandbox/merchants/${merchantId}/webhooks/replay`)
    .send(body as object);

describe('the timestamped signature', () => {
  test('every delivery carries X-Sandbox-Timestamp (real time, whatever the sandbox clock) and X-Sandbox-Signature-V2 beside the unchanged header', async () => {
    const r = await receiver();
    const app = await sandbox({ webhookUrl: r.url });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await r.waitFor(1);
    const [got] = r.received;
    const t = Number(got.headers['x-sandbox-timestamp']);
    expect(String(got.headers['x-sandbox-timestamp'])).toMatch(/^\d{10}$/);
    expect(Math.abs(nowS() - t)).toBeLessThan(30);
    // The sandbox clock is months away from the real one: the timestamp is not its.
    expect(Math.abs(app.sandbox.clock.now() / 1000 - t)).toBeGreaterThan(3600);
    expect(got.headers['x-sandbox-signature-v2']).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
    expect(v1Entries(got.headers['x-sandbox-signature-v2'])[0]).toBe(createHmac('sha256', DEMO.secret).update(`${t}.${got.body}`).digest('hex'));
    expect(got.headers['x-sandbox-signature']).toBe(legacy(got.body, DEMO.secret));
    expect(deliveries(app)[0].attempts[0]).toMatchObject({ kind: 'genuine', timestamp: t });
  });

  test('the Node receiver of docs/webhooks.md, run as it is written, accepts genuine deliveries and refuses forged and stale ones', async () => {
    const docs = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');
    const block = /### Node\n[\s\S]*?```js\n([\s\S]*?)```/.exec(docs)?.[1];
    if (!block) throw new Error('docs/webhooks.md has no ### Node js block');
    // Beside node_modules, so that its `import express` resolves as in a merchant's project.
    const file = join(ROOT, 'node_modules', '.cache', `webhook-recipe-${process.pid}.mjs`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, block);
    const port = await freePort();
    const proc = spawn(process.execPath, [file], {
      env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: DEMO.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    procs.push(proc);
    let out = '';
    proc.stdout?.on('data', (d) => (out += d));
    proc.stderr?.on('data', (d) => (out += d));
    try {
      await listening(port, () => out);
      const url = `http://127.0.0.1:${port}/hooks`;
      const app = await sandbox({
        webhookUrl: url,
        scenario: scenarioWith({}, [
          { name: 'forged', match: { client_ref_id_prefix: 'FORGE' }, timeline: [{ after: '5s', status: 'Success' }], webhooks: { wrong_signature: 1 } },
          { name: 'stale', match: { client_ref_id_prefix: 'STALE' }, timeline: [{ after: '5s', status: 'Success' }], webhooks: { stale_timestamp: 1 } },
        ]),
      });
      await initialize(app, payoutBody({ client_ref_id: 'GOOD000001' }));
      await initialize(app, payoutBody({ client_ref_id: 'FORGE00001' }));
      await initialize(app, payoutBody({ client_ref_id: 'STALE00001' }));
      await advanceBy(app, '5s');
      await settle(app);
      const byRef = (prefix: string) => {
        const d = deliveries(app).find((x) => (x.body.transaction as { client_ref_id: string }).client_ref_id.startsWith(prefix));
        if (!d) throw new Error(`no delivery of ${prefix}`);
        return d;
      };
      expect(byRef('GOOD').attempts.map((a) => [a.kind, a.status])).toEqual([['genuine', 204]]);
      expect(byRef('FORGE').attempts.map((a) => [a.kind, a.status])).toEqual([['forged', 401]]);
      expect(byRef('STALE').attempts.map((a) => [a.kind, a.status])).toEqual([['stale', 401]]);
      // The stale delivery's retry is fresh, and taken.
      await advanceBy(app, '10s');
      await settle(app);
      expect(byRef('STALE').attempts.map((a) => [a.kind, a.status])).toEqual([
        ['stale', 401],
        ['genuine', 204],
      ]);
      expect(byRef('STALE').state).toBe('delivered');
      // So is the forged delivery's: a correct receiver that refused the forgery still learns the event.
      expect(byRef('FORGE').attempts.map((a) => [a.kind, a.status])).toEqual([
        ['forged', 401],
        ['genuine', 204],
      ]);
      expect(byRef('FORGE').state).toBe('delivered');
      // A delivery it handled before is acknowledged again, not acted on twice.
      const good = byRef('GOOD');
      await request(app).post(`/__sandbox/webhooks/${good.delivery_id}/redeliver`).expect(202);
      await settle(app);
      expect(byRef('GOOD').attempts.map((a) => a.status)).toEqual([204, 200]);
      expect(out.split('\n').filter((l) => l.startsWith(good.delivery_id))).toHaveLength(1);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

describe('the webhook secret and its rotation', () => {
  test('the webhook secret is the API secret until rotated; during the grace two v1= entries (and the old header on the previous secret), after it one', async () => {
    const r = await receiver(strict([DEMO.secret]));
    const app = await sandbox({ webhookUrl: r.url });
    const listed = async () => (await request(app).get('/__sandbox/merchants')).body.merchants.find((m: { merchant_id: string }) => m.merchant_id === DEMO_ID);
    expect((await listed()).webhook_secret).toBe(DEMO.secret);

    const rotated = await rotate(app, { grace: '24h' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhook_secret).toMatch(/^whsec_[a-z0-9]{32}$/);
    expect(rotated.body.previous_expires_at).toBe(toIso(app.sandbox.clock.now() + 86_400_000));
    const secret = rotated.body.webhook_secret as string;
    expect((await listed()).webhook_secret).toBe(secret);
    expect((await request(app).patch(`/__sandbox/merchants/${DEMO_ID}`).send({})).body.webhook_secret).toBe(secret);

    // During the grace: the new secret's entry first, the previous one's second; the strict receiver that only knows the old secret accepts.
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await r.waitFor(1);
    const during = r.received[0];
    const [fresh, previous] = v1Entries(during.headers['x-sandbox-signature-v2']);
    const t = Number(during.headers['x-sandbox-timestamp']);
    expect(v1Entries(during.headers['x-sandbox-signature-v2'])).toHaveLength(2);
    expect(fresh).toBe(createHmac('sha256', secret).update(`${t}.${during.body}`).digest('hex'));
    expect(previous).toBe(createHmac('sha256', DEMO.secret).update(`${t}.${during.body}`).digest('hex'));
    expect(during.headers['x-sandbox-signature']).toBe(legacy(during.body, DEMO.secret));
    expect(deliveries(app)[0].attempts[0].status).toBe(204);

    // After the grace (24 h of the merchant's clock): one entry, by the new secret; the old-secret receiver refuses.
    await advanceBy(app, '24h');
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await r.waitFor(2);
    const after = r.received[1];
    expect(v1Entries(after.headers['x-sandbox-signature-v2'])).toHaveLength(1);
    expect(verifyV2(after.headers['x-sandbox-signature-v2'], after.body, secret)).toBe(true);
    expect(after.headers['x-sandbox-signature']).toBe(legacy(after.body, secret));
    expect(deliveries(app)[0].attempts[0].status).toBe(401);
  });

  test('a rotation during a grace ends the older grace at once', async () => {
    const r = await receiver();
    const app = await sandbox({ webhookUrl: r.url });
    const first = (await rotate(app, { grace: '7d' })).body.webhook_secret;
    const second = (await rotate(app, {})).body.webhook_secret;
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await r.waitFor(1);
    const [got] = r.received;
    const t = Number(got.headers['x-sandbox-timestamp']);
    const sig = (s: string) => createHmac('sha256', s).update(`${t}.${got.body}`).digest('hex');
    expect(v1Entries(got.headers['x-sandbox-signature-v2'])).toEqual([sig(second), sig(first)]);
    expect(got.headers['x-sandbox-signature']).toBe(legacy(got.body, first));
    // No grace: one secret at once.
    const third = (await rotate(app, { grace: '0s' })).body;
    expect(third.previous_expires_at).toBeNull();
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await r.waitFor(2);
    expect(v1Entries(r.received[1].headers['x-sandbox-signature-v2'])).toHaveLength(1);
    expect(verifyV2(r.received[1].headers['x-sandbox-signature-v2'], r.received[1].body, third.webhook_secret)).toBe(true);
  });

  test('bad input: a grace that is not a duration, longer than 30 days, an unknown field, an unknown merchant', async () => {
    const app = await sandbox();
    const notDuration = await rotate(app, { grace: 'soon' });
    expect(notDuration.status).toBe(400);
    expect(notDuration.body.error).toBe(
      'The grace field must be a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M, of at most 30d.',
    );
    const tooLong = await rotate(app, { grace: '31d' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toBe('The grace field must be at most 30d (30 days).');
    expect((await rotate(app, { grace: '30d' })).status).toBe(200);
    const unknown = await rotate(app, { grace: '1h', keep: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/keep/);
    expect((await rotate(app, {}, 'NOPE')).status).toBe(404);
  });
});

describe('chaos: replay and stale_timestamp, each attempt marked', () => {
  test('replay: the captured request goes out again 10 minutes later with the same bytes, delivery id, timestamp and signatures', async () => {
    const r = await receiver(strict([DEMO.secret]));
    const app = await sandbox({ webhookUrl: r.url, scenario: scenarioWith({ chaos: { replay: 1 } }) });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await r.waitFor(1);
    await settle(app);
    await advanceBy(app, '599s');
    expect(r.received).toHaveLength(1);
    await advanceBy(app, '1s');
    await r.waitFor(2);
    await settle(app);
    const [original, again] = r.received;
    expect(again.body).toBe(original.body);
    for (const h of ['x-sandbox-delivery-id', 'x-sandbox-attempt', 'x-sandbox-timestamp', 'x-sandbox-signature', 'x-sandbox-signature-v2']) {
      expect(again.headers[h]).toBe(original.headers[h]);
    }
    const [copy, genuine] = deliveries(app);
    expect(genuine).toMatchObject({ kind: 'genuine', state: 'delivered' });
    expect(copy).toMatchObject({ kind: 'replay', replay_of: genuine.delivery_id, state: 'delivered' });
    // The strict receiver saw that delivery id before: acknowledged, not acted on again.
    expect(copy.attempts).toEqual([expect.objectContaining({ kind: 'replay', status: 200, timestamp: genuine.attempts[0].timestamp })]);
    const listed = (await request(app).get(`/__sandbox/webhooks?merchant_id=${DEMO_ID}`)).body.deliveries;
    expect(listed.map((d: { kind: string; replay_of: string | null }) => [d.kind, d.replay_of])).toEqual([
      ['replay', genuine.delivery_id],
      ['genuine', null],
    ]);
    // Sent once: never retried, whatever the answer.
    await advanceBy(app, '1d');
    expect(r.received).toHaveLength(2);
    const coverage = (await request(app).get(`/__sandbox/merchants/${DEMO_ID}/coverage`)).body;
    expect(coverage.items.find((i: { id: string }) => i.id === 'webhook.replay').hits).toBe(1);
  });

  test('stale_timestamp: the first attempt is signed correctly with a timestamp over 10 minutes old; the retry is fresh; the endpoint stays healthy', async () => {
    const r = await receiver(strict([DEMO.secret]));
    const app = await sandbox({ webhookUrl: r.url, scenario: scenarioWith({ chaos: { stale_timestamp: 1 } }) });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await r.waitFor(1);
    await settle(app);
    const [stale] = r.received;
    const t = Number(stale.headers['x-sandbox-timestamp']);
    expect(nowS() - t).toBeGreaterThan(600);
    expect(nowS() - t).toBeLessThan(960);
    expect(v1Entries(stale.headers['x-sandbox-signature-v2'])).toEqual([createHmac('sha256', DEMO.secret).update(`${t}.${stale.body}`).digest('hex')]);
    expect(deliveries(app)[0].attempts).toEqual([expect.objectContaining({ kind: 'stale', status: 401, timestamp: t })]);
    expect((await endpoint(app)).failing_since).toBeNull();
    await advanceBy(app, '10s');
    await r.waitFor(2);
    await settle(app);
    const [d] = deliveries(app);
    expect(d.kind).toBe('stale');
    expect(d.attempts.map((a) => [a.kind, a.status])).toEqual([
      ['stale', 401],
      ['genuine', 204],
    ]);
    expect(d.state).toBe('delivered');
    const coverage = (await request(app).get(`/__sandbox/merchants/${DEMO_ID}/coverage`)).body;
    expect(coverage.items.find((i: { id: string }) => i.id === 'webhook.stale_timestamp').hits).toBe(1);
  });

  test('wrong_signature: the first attempt is forged and its retry signed as any other (a correct receiver learns the event); the refusal does not make the endpoint fail', async () => {
    const r = await receiver(strict([DEMO.secret]));
    const app = await sandbox({ webhookUrl: r.url, scenario: scenarioWith({ chaos: { wrong_signature: 1 } }) });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await advanceBy(app, '10s');
    await r.waitFor(2);
    await settle(app);
    expect(deliveries(app)[0].attempts.map((a) => [a.kind, a.status, a.signature_valid])).toEqual([
      ['forged', 401, false],
      ['genuine', 204, true],
    ]);
    expect(deliveries(app)[0].state).toBe('delivered');
    expect((await endpoint(app)).failing_since).toBeNull();
  });
});

describe('the receiver probe', () => {
  test('passes every check on a strict receiver; fails forged-signature and stale-timestamp on a naive one; never in the outbox; runs kept', async () => {
    const good = await receiver(strict([DEMO.secret]));
    const naive = await receiver(() => 200);
    const app = await sandbox({ webhookUrl: good.url });
    const passed = await probe(app);
    expect(passed.status).toBe(200);
    expect(passed.body.ok).toBe(true);
    expect(passed.body.url).toBe(good.url);
    expect(passed.body.checks.map((c: { check: string }) => c.check)).toEqual(PROBE_CHECKS);
    expect(passed.body.checks.every((c: { passed: boolean }) => c.passed)).toBe(true);
    expect(passed.body.checks[0]).toEqual({ check: 'valid-delivery', kind: 'genuine', expected: '2xx', got: '204', passed: true, detail: expect.any(String) });
    expect(good.received.map((x) => x.headers['x-sandbox-probe'])).toEqual(PROBE_CHECKS);
    expect(good.received.map((x) => x.headers['x-sandbox-delivery-id'])).toEqual(Array(6).fill(expect.stringMatching(/^whp_\d{8}$/)));
    // V2 by default; the unknown field on top.
    expect(JSON.parse(good.received[0].body)).toMatchObject({ success: true, data: { transaction: { status: 'Success' } } });
    expect(JSON.parse(good.received[4].body).sandbox_probe_unknown_field).toBeDefined();

    const failed = await probe(app, { url: naive.url });
    expect(failed.body.ok).toBe(false);
    expect(failed.body.checks.filter((c: { passed: boolean }) => !c.passed).map((c: { check: string }) => c.check)).toEqual([
      'forged-signature',
      'stale-timestamp',
    ]);
    expect(failed.body.checks[1]).toMatchObject({ expected: expect.stringMatching(/^4xx/), got: '200', passed: false });

    // Probes are not deliveries.
    expect((await request(app).get(`/__sandbox/webhooks?merchant_id=${DEMO_ID}`)).body.deliveries).toEqual([]);
    expect((await endpoint(app)).failing_since).toBeNull();
    const runs = (await request(app).get(`/__sandbox/merchants/${DEMO_ID}/webhooks/probes`)).body.probes;
    expect(runs.map((x: { ok: boolean; url: string }) => [x.ok, x.url])).toEqual([
      [false, naive.url],
      [true, good.url],
    ]);
    expect(runs[0].at).toBe(toIso(app.sandbox.clock.now()));
  });

  test('a V1 merchant is probed with V1 bodies, signed as its deliveries are (its rotated secret)', async () => {
    const r = await receiver();
    const app = await sandbox();
    await request(app).patch(`/__sandbox/merchants/${DEMO_ID}`).send({ webhook_url: r.url, webhook_version: 'v1' }).expect(200);
    const secret = (await rotate(app, { grace: '0s' })).body.webhook_secret;
    await probe(app).expect(200);
    const body = JSON.parse(r.received[0].body);
    expect(Object.keys(body)).toEqual(['transaction']);
    expect(body.transaction.status).toBe('Success');
    expect(verifyV2(r.received[0].headers['x-sandbox-signature-v2'], r.received[0].body, secret)).toBe(true);
  });

  test('an unreachable receiver: 200, every check failed with the connection error; a URL outside --webhook-allow: 400; bad input: 400', async () => {
    const closed = await receiver();
    await closed.close();
    const app = await sandbox();
    const res = await probe(app, { url: closed.url });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(false);
    expect(res.body.checks).toHaveLength(6);
    for (const c of res.body.checks) expect(c).toMatchObject({ passed: false, got: 'no answer', detail: 'ECONNREFUSED' });
    expect((await probe(app, { url: 'ftp://example.com/hooks' })).body.error).toBe(
      'The url field must be an http or https URL, e.g. http://127.0.0.1:3000/hooks.',
    );
    expect((await probe(app, { url: closed.url, extra: 1 })).status).toBe(400);
    expect((await probe(app)).body.error).toMatch(/no webhook_url/);
    expect((await probe(app, {}, 'NOPE')).status).toBe(404);

    const fenced = await sandbox({ webhookAllow: ['hooks.example', '*.internal.example'] });
    const refused = await probe(fenced, { url: closed.url });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("The probe url's host is not allowed (--webhook-allow hooks.example,*.internal.example).");
  });

  test('the last 20 runs are kept, newest first', async () => {
    const closed = await receiver();
    await closed.close();
    const app = await sandbox();
    for (let i = 0; i < 22; i++) await app.sandbox.admin.webhooks.probe(DEMO_ID, { url: `${closed.url}?run=${i}` });
    const runs = app.sandbox.admin.webhooks.probes(DEMO_ID).probes;
    expect(runs).toHaveLength(20);
    expect(runs[0].url).toBe(`${closed.url}?run=21`);
    expect(runs[19].url).toBe(`${closed.url}?run=2`);
  });
});

describe('endpoint health, auto-disable and replay', () => {
  test('a receiver answering 503 for a day is disabled; attempts stop; replay after it recovers sends exactly the unacknowledged set, oldest first, and enables it', async () => {
    let down = true;
    const ok = strict([DEMO.secret]);
    const r = await receiver((x) => (down ? 503 : ok(x)));
    const app = await sandbox({ webhookUrl: r.url, scenario: scenarioWith() });
    const start = app.sandbox.clock.now();
    expect(await endpoint(app)).toEqual({ merchant_id: DEMO_ID, url: r.url, state: 'enabled', failing_since: null, disabled_at: null, unacknowledged: 0 });

    // One payout every 6 hours, each delivery failing all of its attempts (5 s, +10 s, +1 min, +5 min, +30 min, +2 h).
    for (let i = 0; i < 4; i++) {
      await initialize(app, payoutBody());
      await advanceBy(app, '6h');
    }
    await settle(app);
    expect(r.received).toHaveLength(24);
    expect(await endpoint(app)).toMatchObject({ state: 'enabled', failing_since: toIso(start + 5000) });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await settle(app);
    expect(r.received).toHaveLength(25);
    expect(await endpoint(app)).toEqual({
      merchant_id: DEMO_ID,
      url: r.url,
      state: 'disabled',
      failing_since: toIso(start + 5000),
      disabled_at: toIso(start + 86_400_000 + 5000),
      unacknowledged: 5,
    });
    expect(deliveries(app)[0].state).toBe('undelivered');

    // Disabled: no more attempts; new events are stored undelivered; redeliver is refused.
    await initialize(app, payoutBody());
    await advanceBy(app, '1d');
    await settle(app);
    expect(r.received).toHaveLength(25);
    expect(deliveries(app)[0]).toMatchObject({ state: 'undelivered', attempts: [] });
    expect((await request(app).post(`/__sandbox/webhooks/${deliveries(app)[0].delivery_id}/redeliver`)).status).toBe(409);

    const unacknowledged = deliveries(app)
      .filter((d) => d.state !== 'delivered')
      .sort((a, b) => a.created_at - b.created_at)
      .map((d) => d.delivery_id);
    expect(unacknowledged).toHaveLength(6);
    expect((await replay(app, { from: toIso(start + 3_600_000), to: toIso(start) })).body.error).toBe('The from field must not be after to.');
    expect((await replay(app, { from: 'yesterday' })).status).toBe(400);

    down = false;
    const replayed = await replay(app);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual({ replayed: 6 });
    await settle(app);
    expect(r.received.slice(25).map((x) => x.headers['x-sandbox-delivery-id'])).toEqual(unacknowledged);
    expect(r.received.slice(25).map((x) => x.headers['x-sandbox-attempt'])).toEqual(['7', '7', '7', '7', '2', '1']);
    expect(deliveries(app).every((d) => d.state === 'delivered')).toBe(true);
    expect(await endpoint(app)).toMatchObject({ state: 'enabled', failing_since: null, disabled_at: null, unacknowledged: 0 });

    // Acknowledged ones are never sent again.
    expect((await replay(app)).body).toEqual({ replayed: 0 });
    await settle(app);
    expect(r.received).toHaveLength(31);
    const coverage = (await request(app).get(`/__sandbox/merchants/${DEMO_ID}/coverage`)).body;
    expect(coverage.items.find((i: { id: string }) => i.id === 'webhook.disabled').hits).toBe(1);
  });

  test('replay from..to sends only the deliveries created within it (sandbox time), and new events flow again', async () => {
    let down = true;
    const r = await receiver(() => (down ? 500 : 204));
    const app = await sandbox({ webhookUrl: r.url, scenario: scenarioWith({ disable_after: '1m', retry_schedule: ['30s', '30s', '30s'] }) });
    const start = app.sandbox.clock.now();
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await advanceBy(app, '1m');
    await settle(app);
    expect((await endpoint(app)).state).toBe('disabled');
    await advanceBy(app, '1h');
    await initialize(app, payoutBody());
    await advanceBy(app, '1h');
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    const [third, second, first] = deliveries(app);
    expect([first.state, second.state, third.state]).toEqual(['undelivered', 'undelivered', 'undelivered']);
    down = false;
    const before = r.received.length;
    expect((await replay(app, { from: toIso(start + 30 * 60_000), to: toIso(second.created_at) })).body).toEqual({ replayed: 1 });
    await settle(app);
    expect(r.received.slice(before).map((x) => x.headers['x-sandbox-delivery-id'])).toEqual([second.delivery_id]);
    expect(deliveries(app).map((d) => d.state)).toEqual(['undelivered', 'delivered', 'undelivered']);
    // Enabled again: a new event goes out on its own.
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await settle(app);
    expect(deliveries(app)[0].state).toBe('delivered');
  });
});

describe('persisted with the state', () => {
  test('a restart on a data file keeps the endpoint state, the secrets and the probe runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-drills-'));
    try {
      const r = await receiver(() => 503);
      const data = join(dir, 'db.json');
      const options = { data, webhookUrl: r.url, scenario: scenarioWith({ disable_after: '1m', retry_schedule: ['30s', '30s', '30s'] }) };
      const first = await testApp({ rateLimits: false, ...options });
      const { webhook_secret: secret } = (await rotate(first, { grace: '2h' })).body;
      await initialize(first, payoutBody());
      await advanceBy(first, '5s');
      await advanceBy(first, '30s');
      await advanceBy(first, '30s');
      await settle(first);
      await probe(first).expect(200);
      const before = await endpoint(first);
      expect(before.state).toBe('disabled');
      await first.sandbox.close();

      const second = await testApp({ rateLimits: false, ...options });
      try {
        expect(await endpoint(second)).toEqual(before);
        const merchant = (await request(second).get('/__sandbox/merchants')).body.merchants.find((m: { merchant_id: string }) => m.merchant_id === DEMO_ID);
        expect(merchant.webhook_secret).toBe(secret);
        expect(second.sandbox.repo.merchant(DEMO_ID)?.previous_webhook_secret?.secret).toBe(DEMO.secret);
        expect((await request(second).get(`/__sandbox/merchants/${DEMO_ID}/webhooks/probes`)).body.probes).toHaveLength(1);
        const received = r.received.length;
        await initialize(second, payoutBody());
        await advanceBy(second, '5s');
        await settle(second);
        expect(r.received).toHaveLength(received);
        expect(deliveries(second)[0].state).toBe('undelivered');
      } finally {
        await second.sandbox.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the endpoint state and the secret go with a merchant's snapshot, restore and reset", async () => {
    const r = await receiver(() => 500);
    const app = await sandbox({ scenario: scenarioWith({ disable_after: '1m', retry_schedule: ['30s', '30s', '30s'] }) });
    const m = (await request(app).post('/__sandbox/merchants').send({ webhook_url: r.url })).body;
    expect(m.webhook_secret).toBe(m.api_secret);
    const rotated = (await rotate(app, { grace: '0s' }, m.merchant_id)).body.webhook_secret;
    await request(app).post(`/__sandbox/merchants/${m.merchant_id}/snapshots`).send({ name: 'healthy' }).expect(201);
    await request(app)
      .post('/api/v1/public/payment/transfer')
      .set(m.headers)
      .send(payoutBody({ debit_from: m.account_no }))
      .expect(200);
    await advanceBy(app, '5s');
    await advanceBy(app, '1m');
    await settle(app);
    expect((await endpoint(app, m.merchant_id)).state).toBe('disabled');
    await rotate(app, {}, m.merchant_id).expect(200);

    await request(app).post(`/__sandbox/merchants/${m.merchant_id}/snapshots/healthy/restore`).expect(200);
    expect((await endpoint(app, m.merchant_id)).state).toBe('enabled');
    expect(app.sandbox.repo.merchant(m.merchant_id)?.webhook_secret).toBe(rotated);
    // The demo merchant's endpoint is not touched by another merchant's.
    expect((await endpoint(app)).state).toBe('enabled');

    await request(app).post(`/__sandbox/merchants/${m.merchant_id}/reset`).expect(200);
    const after = (await request(app).get('/__sandbox/merchants')).body.merchants.find((x: { merchant_id: string }) => x.merchant_id === m.merchant_id);
    expect(after.webhook_secret).toBe(m.api_secret);
  });
});

/** A free port on 127.0.0.1 (taken and let go). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something answers HTTP on the port (at most 10 s). */
async function listening(port: number, output: () => string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      return;
    } catch {
      if (Date.now() > until) throw new Error(`the recipe did not start:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

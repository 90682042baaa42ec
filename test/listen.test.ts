import { send, serverSentEvents } from '../src/client/http.js';
import { type MerchantHandle, type StartedSandbox, startSandbox } from '../src/index.js';
import type { RelayedAttempt } from '../src/webhooks/listeners.js';

/**
 * The sandbox's side of `payout-sandbox listen` in-process (no CLI): the event stream and the
 * reports over HTTP, and the listener through the Admin — what an attempt comes to when the
 * report comes, never comes, or the listener detaches; one listener per merchant; the stream
 * ended at shutdown.
 */

let sb: StartedSandbox;
const open: AbortController[] = [];

beforeEach(async () => {
  sb = await startSandbox({ clock: 'manual', rateLimits: false });
});
afterEach(async () => {
  for (const c of open.splice(0)) c.abort();
  await sb.stop();
});

async function pay(m: MerchantHandle, amount = 100): Promise<string> {
  const res = await fetch(`${sb.url}/api/v1/public/payment/transfer`, {
    method: 'POST',
    headers: { ...m.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_ref_id: `L${Math.random().toString(36).slice(2, 12)}`,
      transfer_type: 'BANK',
      amount,
      payment_method: '1001',
      debit_from: m.accounts[0],
      beneficiary_name: 'Ravi Kumar',
      beneficiary_email: 'ravi@example.com',
      account_number: '50100012345678',
      ifsc_code: 'HDFC0001234',
      purpose: 'VENDOR_PAYOUT',
      remarks: 'listen test',
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { ref_id: string } }).data.ref_id;
}

/** What `payout-sandbox listen` sends to attach. */
const LISTENER = { 'X-Sandbox-Listener': 'test' };

/** A listener attached over HTTP: its `attached` event, and the next event of each kind as it comes. */
async function attachOverHttp(merchantId: string, forwardTo = 'http://127.0.0.1:3000/hooks') {
  const controller = new AbortController();
  open.push(controller);
  const res = await send(`${sb.controlUrl}/merchants/${merchantId}/webhooks/listen?forward_to=${encodeURIComponent(forwardTo)}`, {
    signal: controller.signal,
    headers: LISTENER,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = serverSentEvents(res);
  const next = async () => {
    const e = await events.next();
    if (e.done) throw new Error('the stream ended');
    return { event: e.value.event, data: JSON.parse(e.value.data) as Record<string, unknown> };
  };
  return { controller, next };
}

const report = (merchantId: string, token: string, body: unknown) =>
  fetch(`${sb.controlUrl}/merchants/${merchantId}/webhooks/listen/${token}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

test('over HTTP: attached, then each attempt as a delivery event; the report is the attempt result; a second listener is refused', async () => {
  const m = await sb.createMerchant({});
  const l = await attachOverHttp(m.merchantId);
  const attached = await l.next();
  expect(attached).toMatchObject({
    event: 'attached',
    data: { merchant_id: m.merchantId, forward_to: 'http://127.0.0.1:3000/hooks', webhook_url: null, webhook_secret: m.apiSecret, timeout_ms: 5000 },
  });
  const second = await fetch(`${sb.controlUrl}/merchants/${m.merchantId}/webhooks/listen`, { headers: LISTENER });
  expect(second.status).toBe(409);
  expect(((await second.json()) as { error: string }).error).toContain(`already has a listener (${attached.data.listener_id}`);
  expect(sb.admin.listen.list().listeners).toEqual([expect.objectContaining({ merchant_id: m.merchantId, relayed: 0, in_flight: 0 })]);

  const ref = await pay(m);
  await sb.advance('5s');
  const { event, data } = await l.next();
  const a = data as unknown as RelayedAttempt;
  expect(event).toBe('delivery');
  expect(a).toMatchObject({ delivery_id: 'whd_00000001', attempt: 1, method: 'POST', timeout_ms: 5000 });
  expect(a.headers).toMatchObject({ 'Content-Type': 'application/json', 'X-Sandbox-Delivery-Id': 'whd_00000001', 'X-Sandbox-Attempt': '1' });
  expect(JSON.parse(a.body).transaction).toMatchObject({ ref_id: Number(ref), status: 'Success' });

  expect((await report(m.merchantId, a.token, { status: 204, error: 'x' })).status).toBe(400);
  expect((await report(m.merchantId, a.token, { latency_ms: 3 })).status).toBe(400);
  expect((await report(m.merchantId, a.token, { status: 204, latency_ms: 12, extra: 1 })).status).toBe(400);
  expect((await report(m.merchantId, 'nope', { status: 204 })).status).toBe(404);
  const ok = await report(m.merchantId, a.token, { status: 204, latency_ms: 12 });
  expect(ok.status).toBe(200);
  await sb.settleWebhooks();
  const [d] = sb.admin.deliveries({ merchant_id: m.merchantId }).deliveries;
  expect(d).toMatchObject({ state: 'delivered', target_url: `listen://${m.merchantId}` });
  expect(d.attempts).toEqual([expect.objectContaining({ status: 204, latency_ms: 12, error: null, listener: 'http://127.0.0.1:3000/hooks' })]);
  // Reported once: a second report finds nothing waiting.
  expect((await report(m.merchantId, a.token, { status: 204 })).status).toBe(404);
});

test('an attempt whose report never comes counts as a time-out after the webhook timeout; a detach fails what it held, and later attempts of a listener-only delivery fail', async () => {
  await sb.admin.useScenario({
    scenario: { name: 'short', payouts: { default_timeline: [{ after: '5s', status: 'Success' }], rules: [] }, webhooks: { timeout: '100ms' } },
  });
  const m = await sb.createMerchant({});
  const sent: RelayedAttempt[] = [];
  let relayed: () => void = () => undefined;
  /** Resolves once `n` attempts have been relayed. */
  const relayedCount = (n: number) =>
    new Promise<void>((resolve) => {
      relayed = () => {
        if (sent.length >= n) resolve();
      };
    });
  const sink = {
    delivery: (a: RelayedAttempt) => {
      sent.push(a);
      relayed();
    },
    end: () => undefined,
  };
  const { listener } = await sb.admin.listen.attach(m.merchantId, {}, sink);
  await pay(m);
  await sb.advance('5s');
  await sb.settleWebhooks();
  let [d] = sb.admin.deliveries({ merchant_id: m.merchantId }).deliveries;
  expect(sent).toHaveLength(1);
  expect(d.state).toBe('pending');
  expect(d.attempts[0]).toMatchObject({ status: null, error: 'no answer within 100 ms (the listener reported none)', listener: 'payout-sandbox listen' });
  expect(d.attempts[0].latency_ms).toBeGreaterThanOrEqual(100);

  // The retry goes out; the listener detaches before reporting it.
  const second = relayedCount(2);
  await sb.advance('10s');
  await second;
  expect(sent).toHaveLength(2);
  sb.admin.listen.detach(listener);
  await sb.settleWebhooks();
  [d] = sb.admin.deliveries({ merchant_id: m.merchantId }).deliveries;
  expect(d.attempts[1]).toMatchObject({ status: null, error: 'the listener detached before reporting an answer' });
  // No listener, no URL of its own: the next retry fails at once; a new payout makes no delivery at all.
  await sb.advance('1m');
  await sb.settleWebhooks();
  [d] = sb.admin.deliveries({ merchant_id: m.merchantId }).deliveries;
  expect(d.attempts[2]).toMatchObject({ status: null, error: 'no listener attached (the merchant has no webhook_url of its own)' });
  expect(d.attempts[2].listener).toBe('payout-sandbox listen');
  await pay(m);
  await sb.advance('5s');
  expect(sb.admin.deliveries({ merchant_id: m.merchantId }).deliveries).toHaveLength(1);
});

test('an unknown merchant is 404; the stream ends when the sandbox stops (it does not hold the stop up)', async () => {
  const unknown = await fetch(`${sb.controlUrl}/merchants/SBXNOBODY/webhooks/listen`, { headers: LISTENER });
  expect(unknown.status).toBe(404);
  const bad = await fetch(`${sb.controlUrl}/merchants/SBXDEMO0001/webhooks/listen?forward_to=ftp://x`, { headers: LISTENER });
  expect(bad.status).toBe(400);
  // A forward_to that cannot be sent to: refused, the password not repeated, nothing attached.
  for (const [url, reason] of [
    ['http://hooks:s3cret-pw@127.0.0.1:3000/hooks', /^The forward_to URL is refused: a URL with credentials \(user:password@\) is not sent to\.$/],
    ['http://127.0.0.1:0/hooks', /^The forward_to URL is refused: bad port: 0\.$/],
  ] as const) {
    const unfit = await fetch(`${sb.controlUrl}/merchants/SBXDEMO0001/webhooks/listen?forward_to=${encodeURIComponent(url)}`, { headers: LISTENER });
    expect(unfit.status).toBe(400);
    expect(((await unfit.json()) as { error: string }).error).toMatch(reason);
  }
  // Without the header (what an <img> or a page's no-cors fetch sends): refused, nothing attached.
  const bare = await fetch(`${sb.controlUrl}/merchants/SBXDEMO0001/webhooks/listen`);
  expect(bare.status).toBe(400);
  expect(((await bare.json()) as { error: string }).error).toMatch(/X-Sandbox-Listener/);
  expect(sb.admin.listen.list().listeners).toEqual([]);
  const m = await sb.createMerchant({});
  let ended = false;
  await sb.admin.listen.attach(m.merchantId, {}, { delivery: () => undefined, end: () => (ended = true) });
  sb.app.sandbox.changes.close();
  expect(ended).toBe(true);
});

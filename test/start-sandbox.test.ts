import { createHook } from 'node:async_hooks';
import { startSandbox } from '../src/index.js';
import { payoutBody } from './helpers.js';

/** Timers alive now that Jest's own reporter did not make (its status line ticks on a timer of its own). */
const jestTimers = new Set<number>();
createHook({
  init(id, type) {
    if (type !== 'Timeout') return;
    if (/node_modules[\\/]@jest[\\/]reporters/.test(new Error().stack ?? '')) jestTimers.add(id);
  },
  destroy(id) {
    jestTimers.delete(id);
  },
}).enable();

function openResources(): string[] {
  const all = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'FSReqCallback');
  // Take away one Timeout per live timer of Jest's reporter.
  for (let n = jestTimers.size; n > 0; n--) {
    const i = all.indexOf('Timeout');
    if (i >= 0) all.splice(i, 1);
  }
  return all.sort();
}

/** What is open now beyond `before` (counted per kind). */
function leaked(before: string[]): string[] {
  const left = [...before];
  return openResources().filter((r) => {
    const i = left.indexOf(r);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

/** Lets the event loop turn until nothing is open beyond `before` (client sockets close a tick after the server's). */
async function settle(before: string[]): Promise<string[]> {
  for (let i = 0; i < 200 && leaked(before).length > 0; i++) await new Promise((r) => setImmediate(r));
  return leaked(before);
}

test('startSandbox starts on a free port, works, and stop() leaves no sockets or servers behind — several times over', async () => {
  const before = openResources();
  for (let i = 0; i < 3; i++) {
    const sb = await startSandbox({ clock: 'manual', seed: 1, checkoutPort: 0 });
    try {
      expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sb.controlUrl).toBe(`${sb.url}/__sandbox`);
      expect(sb.checkoutUrl).not.toBe(sb.url);
      expect(sb.merchant).toMatchObject({
        merchantId: 'SBXDEMO0001',
        email: 'demo@payout-sandbox.test',
        accounts: ['DEMOVAN0000000000001', 'DEMOVAN0000000000002', 'DEMOVAN0000000000003'],
      });
      const res = await fetch(`${sb.url}/api/v1/public/payment/transfer`, {
        method: 'POST',
        headers: { ...sb.merchant.headers, 'content-type': 'application/json' },
        body: JSON.stringify(payoutBody()),
      });
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as { data: { ref_id: string } };
      await sb.advance('5s');
      const st = await fetch(`${sb.url}/api/v1/public/payment/transfer/status?ref_id=${data.ref_id}`, { headers: sb.merchant.headers });
      expect(((await st.json()) as { data: { transaction: { status: string } } }).data.transaction.status).toBe('Success');
      const co = await fetch(`${sb.checkoutUrl}/api/v1/payment/transaction/PAYDEMO0000000002/status`, { headers: sb.merchant.checkoutHeaders });
      expect(co.status).toBe(200);
      await sb.reset();
      const after = await fetch(`${sb.url}/api/v1/public/payment/transfer/status?ref_id=${data.ref_id}`, { headers: sb.merchant.headers });
      expect(after.status).toBe(400);
      await expect(sb.advance('soon')).rejects.toThrow(
        'The by field must be a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M.',
      );
    } finally {
      await sb.stop();
      await sb.stop();
    }
  }
  expect(await settle(before)).toEqual([]);
});

test('a real-clock sandbox leaves nothing open after stop()', async () => {
  const before = openResources();
  const sb = await startSandbox({ clock: 'real', speed: 1 });
  try {
    const res = await fetch(`${sb.url}/api/v1/public/payment/transfer`, {
      method: 'POST',
      headers: { ...sb.merchant.headers, 'content-type': 'application/json' },
      body: JSON.stringify(payoutBody()),
    });
    expect(res.status).toBe(200);
    // The settlement is armed on the real clock.
    expect(sb.app.sandbox.scheduler.pending().map((i) => i.kind)).toEqual(['payout_step']);
  } finally {
    await sb.stop();
  }
  expect(await settle(before)).toEqual([]);
});

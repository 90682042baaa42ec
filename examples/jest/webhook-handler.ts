import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import type { Transaction } from './payout-client.js';

/** How far X-Sandbox-Timestamp may be from this machine's clock (docs/webhooks.md). */
const TOLERANCE_S = 300;

/**
 * Whether a request carries a valid X-Sandbox-Signature-V2 (`t=<unix s>,v1=<hex>`, two v1=
 * during a secret rotation): one v1 is the HMAC-SHA256 of "<t>." + the raw body, compared in
 * constant time, and t is within the tolerance of this clock (a captured request sent again later
 * is refused).
 */
export function verifyV2(header: string | undefined, raw: Buffer, secret: string, nowS = Date.now() / 1000): boolean {
  const parts = (header ?? '').split(',').map((p) => p.trim());
  const t = Number(parts.find((p) => p.startsWith('t='))?.slice(2));
  if (!Number.isInteger(t) || Math.abs(nowS - t) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
  return parts
    .filter((p) => p.startsWith('v1='))
    .some((p) => {
      const given = Buffer.from(p.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * A webhook endpoint as a merchant writes it (docs/webhooks.md "Verifying the signature"): verify
 * the V2 signature and its timestamp over the raw body before anything else (401 otherwise, never
 * a 5xx), then de-duplicate by X-Sandbox-Delivery-Id (a delivery seen before is acknowledged and
 * not applied again), accept V1 and V2 bodies, and apply each (ref_id, status) once.
 */
export function webhookApp(webhookSecret: string, onTransaction: (t: Transaction) => void) {
  const deliveries = new Set<string>();
  const applied = new Set<string>();
  const app = express();
  app.post('/webhooks/payouts', express.raw({ type: 'application/json' }), (req, res) => {
    const raw = req.body as Buffer;
    if (!verifyV2(req.get('X-Sandbox-Signature-V2'), raw, webhookSecret)) {
      res.sendStatus(401);
      return;
    }
    const id = req.get('X-Sandbox-Delivery-Id') ?? '';
    if (deliveries.has(id)) {
      res.sendStatus(204);
      return;
    }
    deliveries.add(id);
    const event = JSON.parse(raw.toString('utf8'));
    const t: Transaction = event.transaction ?? event.data.transaction;
    const key = `${t.ref_id}:${t.status}`;
    if (!applied.has(key)) {
      applied.add(key);
      onTransaction(t);
    }
    res.sendStatus(204);
  });
  return app;
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import type { Transaction } from './payout-client.js';

/**
 * A webhook endpoint as a merchant writes it: verify the signature over the raw body, accept V1
 * and V2 bodies, and apply each (ref_id, status) once however often it arrives.
 */
export function webhookApp(apiSecret: string, onTransaction: (t: Transaction) => void) {
  const seen = new Set<string>();
  const app = express();
  app.post('/webhooks/payouts', express.raw({ type: 'application/json' }), (req, res) => {
    const raw = req.body as Buffer;
    const expected = Buffer.from(`sha256=${createHmac('sha256', apiSecret).update(raw).digest('hex')}`);
    const given = Buffer.from(req.get('X-Sandbox-Signature') ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.sendStatus(401);
      return;
    }
    const event = JSON.parse(raw.toString('utf8'));
    const t: Transaction = event.transaction ?? event.data.transaction;
    const key = `${t.ref_id}:${t.status}`;
    if (!seen.has(key)) {
      seen.add(key);
      onTransaction(t);
    }
    res.sendStatus(204);
  });
  return app;
}

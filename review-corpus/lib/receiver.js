// The merchant's webhook endpoint (docs/webhooks.md "Verifying the signature"): a node:http server
// that verifies X-Sandbox-Signature-V2 on the raw body (HMAC-SHA256 of "<t>." + body, constant-time
// compare, t within 300 s of our clock), then de-duplicates by X-Sandbox-Delivery-Id (a delivery
// already handled is acknowledged and not acted on again), then hands the payout record (V1 or V2
// body) to the application. Its options are the switches our teams have flipped over the years;
// the defaults are the careful ones.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const TOLERANCE_S = 300;

function parseSignatureHeader(header) {
  const parts = String(header ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const i = p.indexOf('=');
      return i < 0 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)];
    });
  const t = parts.find(([k]) => k === 't')?.[1];
  return { t: t !== undefined && /^\d+$/.test(t) ? Number(t) : null, v1: parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v) };
}

/** Whether one v1 entry is the HMAC of "<t>." + raw body under the secret. */
export function signatureMatches({ t, v1 }, rawBody, secret) {
  if (t === null) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return v1.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The older header: X-Sandbox-Signature = "sha256=" + hex HMAC of the raw body (no timestamp). */
export function legacyMatches(header, rawBody, secret) {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The payout record of a V1 ({ transaction }) or V2 ({ data: { transaction } }) body. */
export function transactionOf(event) {
  return event?.transaction ?? event?.data?.transaction ?? null;
}

/**
 * Starts a receiver on 127.0.0.1, a free port. Returns { url, log, close() }.
 *
 * @param {object} o
 * @param {string} o.secret the webhook secret (the API secret until rotated)
 * @param {(transaction: object, info: { deliveryId: string, attempt: number }) => void} o.onTransaction
 *   the application; an error it throws with a `status` is that answer (else 500)
 * @param {'v2'|'legacy'} [o.scheme='v2'] 'legacy': verify X-Sandbox-Signature (no timestamp) instead of V2
 * @param {boolean} [o.checkTimestamp=true] refuse t more than 300 s from our clock
 * @param {boolean} [o.awaitSignature=true] (the async-verify bug when false: the check's promise is never awaited)
 * @param {'ack'|'conflict'|'handle'} [o.onSeen='ack'] what a delivery id already handled gets: 200, 409 from the unique key,
 *   or handled again as if new (no de-duplication)
 * @param {boolean} [o.refuseReplays=false] also refuse (401) an attempt received before (same delivery id, attempt number and signature header)
 * @param {'any'|'v1'} [o.bodies='any'] 'v1': the handler reads event.transaction only (and fails on a V2 body)
 * @param {() => number} [o.nowS] our clock, unix seconds (real time: the timestamp is the real time of the attempt)
 * @param {number} [o.down] the endpoint is down: every request answered with this status (the load balancer's 503)
 */
export async function startReceiver(o) {
  const opts = { scheme: 'v2', checkTimestamp: true, awaitSignature: true, onSeen: 'ack', refuseReplays: false, bodies: 'any', ...o };
  const nowS = opts.nowS ?? (() => Math.floor(Date.now() / 1000));
  const seen = new Set(); // delivery ids handled (a table with a unique key, in production)
  const attemptsSeen = new Set();
  const log = [];

  // The secret comes from our config store; in production that lookup is async.
  const secretFor = async () => opts.secret;
  async function verifyAsync(sig, raw) {
    return signatureMatches(sig, raw, await secretFor());
  }

  async function handle(req, raw) {
    if (opts.down) return [opts.down, 'endpoint down'];
    const header = req.headers['x-sandbox-signature-v2'];
    const sig = parseSignatureHeader(header);
    const deliveryId = String(req.headers['x-sandbox-delivery-id'] ?? '');
    if (opts.scheme === 'legacy') {
      if (!legacyMatches(req.headers['x-sandbox-signature'], raw, opts.secret)) return [401, 'bad signature'];
    } else {
      if (opts.checkTimestamp && (sig.t === null || Math.abs(nowS() - sig.t) > TOLERANCE_S)) return [401, 'stale or missing timestamp'];
      // (with awaitSignature false the promise is tested, not its result: always truthy, never refused)
      const verified = opts.awaitSignature ? await verifyAsync(sig, raw) : verifyAsync(sig, raw);
      if (!verified) return [401, 'bad signature'];
    }
    if (opts.refuseReplays) {
      // the same attempt of the same delivery with the same signature: a captured request sent again
      const fingerprint = `${deliveryId}|${req.headers['x-sandbox-attempt'] ?? ''}|${header}`;
      if (attemptsSeen.has(fingerprint)) return [401, 'replayed request'];
      attemptsSeen.add(fingerprint);
    }
    if (seen.has(deliveryId) && opts.onSeen !== 'handle') return opts.onSeen === 'conflict' ? [409, 'duplicate key'] : [200, 'already handled'];
    const event = JSON.parse(raw.toString('utf8'));
    const transaction = opts.bodies === 'v1' ? event.transaction : transactionOf(event);
    // a V2 body read as V1: transaction is undefined and the next line throws (answered 500)
    if (transaction.ref_id === undefined) return [400, 'no ref_id'];
    try {
      opts.onTransaction?.(transaction, { deliveryId, attempt: Number(req.headers['x-sandbox-attempt'] ?? 0) });
    } catch (err) {
      if (err?.status) return [err.status, err.message]; // the application refused it
      throw err;
    }
    seen.add(deliveryId);
    return [204, 'handled'];
  }

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      handle(req, raw)
        .catch((err) => [500, `handler failed: ${err?.message ?? err}`])
        .then(([status, reason]) => {
          log.push({ deliveryId: req.headers['x-sandbox-delivery-id'], probe: req.headers['x-sandbox-probe'] ?? null, status, reason });
          res.writeHead(status).end();
        });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/hooks/payouts`,
    log,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

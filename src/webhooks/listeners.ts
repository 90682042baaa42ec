import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Sent } from './send.js';
import { describeError } from './signing.js';

/**
 * Listeners: `payout-sandbox listen` attached as a merchant's webhook receiver (docs/companion.md).
 * While one is attached, every attempt of that merchant's deliveries goes to it, whatever the
 * merchant's webhook_url, over its event stream: the exact request (method, headers, the raw
 * body signed) with a token; the listener posts it, byte for byte, to its local receiver and
 * reports the answer (status and latency, or the connection error) back under that token, and that
 * is the attempt's result. An answer that never comes back is a time-out; a listener that detaches
 * fails the attempts it still holds (as a dropped connection would), and from then on the
 * merchant's deliveries go to its own URL again. Listeners live in memory only: a restart, like a
 * dropped connection, detaches them.
 */

/** One attempt as the listener's stream carries it: what to send, and the token to report its answer under. */
export interface RelayedAttempt {
  token: string;
  delivery_id: string;
  attempt: number;
  method: 'POST';
  headers: Record<string, string>;
  /** The raw body, exactly as signed: post it as it is. */
  body: string;
  /** How long the receiver may take (the scenario's `webhooks.timeout`). */
  timeout_ms: number;
}

/** The listener's end of the stream. */
export interface ListenerSink {
  delivery(attempt: RelayedAttempt): void;
  /** Ends the stream (the sandbox is stopping). */
  end(): void;
}

/** What a listener reports of its receiver's answer: its status, or the error that took its place; how long it took. */
export interface ListenerReport {
  status?: number | null;
  error?: string | null;
  latency_ms?: number;
}

/** How long past the webhook time-out the sandbox waits for a listener's report (the relay's own round trip). */
export const REPORT_GRACE_MS = 2000;

/** The target of a delivery made while only a listener received (the merchant had no webhook URL): `listen://<merchant id>`. */
export const LISTEN_TARGET_PREFIX = 'listen://';

/** How an attempt goes out instead of the usual POST: `via` names where (for the attempt's record). */
export interface Transport {
  via: string;
  send(raw: string, headers: Record<string, string>, timeoutMs: number, controller: AbortController): Promise<Sent>;
}

interface Waiting {
  finish(sent: Sent): void;
  elapsed(): number;
}

/** One attached listener of one merchant. */
export class Listener {
  readonly id = `lst_${randomBytes(6).toString('hex')}`;
  /** Real time it attached (ms since the epoch). */
  readonly attachedAt = Date.now();
  /** Attempts relayed to it so far. */
  relayed = 0;
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    readonly merchantId: string,
    /** The local URL the CLI said it forwards to (shown, and recorded on each attempt), if it said. */
    readonly forwardTo: string | null,
    /** The address it attached from. */
    readonly from: string | null,
    private readonly sink: ListenerSink,
  ) {}

  /** Where attempts relayed to it are recorded as going. */
  get via(): string {
    return this.forwardTo ?? 'payout-sandbox listen';
  }

  get inFlight(): number {
    return this.waiting.size;
  }

  /**
   * One attempt, relayed: resolves to the receiver's answer as the listener reports it; to a
   * time-out when no report comes within the webhook time-out (and REPORT_GRACE_MS for the round
   * trip); to the abort's reason when the outbox aborts it (a stop, a replaced state); to a failure
   * when the listener detaches first.
   */
  send(raw: string, headers: Record<string, string>, timeoutMs: number, controller: AbortController): Promise<Sent> {
    const token = randomBytes(16).toString('hex');
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<Sent>((resolve) => {
      const finish = (sent: Sent) => {
        if (!this.waiting.delete(token)) return;
        clearTimeout(timer);
        controller.signal.removeEventListener('abort', onAbort);
        resolve(sent);
      };
      const onAbort = () => finish({ status: null, error: describeError(controller.signal.reason), latency_ms: elapsed() });
      const timer = setTimeout(
        () => finish({ status: null, error: `no answer within ${timeoutMs} ms (the listener reported none)`, latency_ms: elapsed() }),
        timeoutMs + REPORT_GRACE_MS,
      );
      this.waiting.set(token, { finish, elapsed });
      if (controller.signal.aborted) return onAbort();
      controller.signal.addEventListener('abort', onAbort, { once: true });
      this.relayed += 1;
      this.sink.delivery({
        token,
        delivery_id: headerOf(headers, 'X-Sandbox-Delivery-Id'),
        attempt: Number(headerOf(headers, 'X-Sandbox-Attempt')),
        method: 'POST',
        headers,
        body: raw,
        timeout_ms: timeoutMs,
      });
    });
  }

  /**
   * The listener's report of attempt `token`: a status (with its latency) or an error. False when
   * no attempt waits under that token (it timed out, or was never sent).
   */
  report(token: string, r: ListenerReport): boolean {
    const w = this.waiting.get(token);
    if (!w) return false;
    const latency = r.latency_ms === undefined ? w.elapsed() : Math.round(r.latency_ms);
    w.finish(
      r.status !== undefined && r.status !== null
        ? { status: r.status, error: null, latency_ms: latency }
        : { status: null, error: r.error ?? 'the listener reported no answer', latency_ms: latency },
    );
    return true;
  }

  /** Detached: the attempts it still holds fail, as a dropped connection would. */
  detached(): void {
    for (const w of [...this.waiting.values()]) w.finish({ status: null, error: 'the listener detached before reporting an answer', latency_ms: w.elapsed() });
  }

  end(): void {
    this.sink.end();
  }
}

/** Every attached listener, at most one per merchant. */
export class Listeners {
  private readonly byMerchant = new Map<string, Listener>();

  of(merchantId: string): Listener | undefined {
    return this.byMerchant.get(merchantId);
  }

  all(): Listener[] {
    return [...this.byMerchant.values()];
  }

  /** Attaches a listener to a merchant that has none (the caller checks); its deliveries go to it from now on. */
  attach(merchantId: string, forwardTo: string | null, from: string | null, sink: ListenerSink): Listener {
    if (this.byMerchant.has(merchantId)) throw new Error(`merchant ${merchantId} already has a listener`);
    const l = new Listener(merchantId, forwardTo, from, sink);
    this.byMerchant.set(merchantId, l);
    return l;
  }

  /** Its stream closed: deliveries go to the merchant's own URL again; what it still held fails. */
  detach(l: Listener): void {
    if (this.byMerchant.get(l.merchantId) === l) this.byMerchant.delete(l.merchantId);
    l.detached();
  }

  /** Where a merchant without a webhook URL of its own sends while a listener is attached (null: nowhere). */
  target(merchantId: string): string | null {
    return this.byMerchant.has(merchantId) ? `${LISTEN_TARGET_PREFIX}${merchantId}` : null;
  }

  /**
   * How an attempt to `targetUrl` goes out: through the merchant's listener while one is
   * attached; failed at once when the target is a listener's and none is attached any more; null
   * for the usual POST to the target.
   */
  transport(merchantId: string, targetUrl: string): Transport | null {
    const l = this.byMerchant.get(merchantId);
    if (l) return l;
    if (!targetUrl.startsWith(LISTEN_TARGET_PREFIX)) return null;
    return {
      via: 'payout-sandbox listen',
      send: async () => ({ status: null, error: 'no listener attached (the merchant has no webhook_url of its own)', latency_ms: 0 }),
    };
  }
}

function headerOf(headers: Record<string, string>, name: string): string {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? '' : headers[key];
}

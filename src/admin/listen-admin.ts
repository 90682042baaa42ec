import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { inputParser } from '../contract/parse.js';
import { RequestError } from '../errors.js';
import type { SandboxCore } from '../sandbox/core.js';
import { toIso } from '../time.js';
import type { Listener, ListenerSink } from '../webhooks/listeners.js';
import { HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from '../webhooks/targets.js';
import { refuseUnfitTarget, requireMerchant } from './refusals.js';

/**
 * `payout-sandbox listen` on the sandbox's side (docs/companion.md): a listener attaches as a
 * merchant's webhook receiver over an event stream, is sent each attempt, and reports what its
 * local receiver answered. One listener per merchant: a second is refused (409) naming the first.
 * Each method parses its own input, as the Admin's do.
 */

const input = <P extends TProperties>(properties: P, description: string): TObject<P> => Type.Object(properties, { additionalProperties: false, description });

export const ListenQuery = input(
  {
    forward_to: Type.Optional(Type.String({ pattern: HTTP_URL_PATTERN, maxLength: 2000, 'x-message': HTTP_URL_MESSAGE })),
  },
  'The local URL the listener forwards to (shown in the listener list and recorded on each attempt it relays).',
);
export type ListenQuery = Static<typeof ListenQuery>;

export const ListenReportBody = input(
  {
    status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    error: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    latency_ms: Type.Optional(Type.Number({ minimum: 0, maximum: 3_600_000 })),
  },
  "What the listener's local receiver answered to a relayed attempt: its HTTP status, or the error in its place (ECONNREFUSED, a time-out); how long it took.",
);
export type ListenReport = Static<typeof ListenReportBody>;

const strict = { strict: true };
const parseListen = { query: inputParser(ListenQuery, strict), report: inputParser(ListenReportBody, strict) };

export class ListenAdmin {
  /** How each listener's stream is ended when the sandbox stops. */
  private readonly unhook = new Map<Listener, () => void>();

  constructor(private readonly sb: SandboxCore) {}

  private get listeners() {
    return this.sb.webhooks.listeners;
  }

  private view(l: Listener) {
    return {
      listener_id: l.id,
      merchant_id: l.merchantId,
      forward_to: l.forwardTo,
      from: l.from,
      attached_at: toIso(l.attachedAt),
      relayed: l.relayed,
      in_flight: l.inFlight,
    };
  }

  /**
   * Attaches a listener as the merchant's receiver: from now on every attempt of its deliveries
   * is sent to `sink` (whatever its webhook_url) until detach(). 404 for an unknown merchant, 409
   * while another listener is attached to it. Answers what the stream's first event says.
   */
  async attach(merchantId: string, query: unknown, sink: ListenerSink, from: string | null = null) {
    const q = parseListen.query(query ?? {});
    if (q.forward_to !== undefined) await refuseUnfitTarget(this.sb, q.forward_to, 'forward_to URL', { allowList: false });
    const m = requireMerchant(this.sb.repo, merchantId);
    const first = this.listeners.of(merchantId);
    if (first) {
      throw new RequestError(
        409,
        `Merchant ${merchantId} already has a listener (${first.id}, attached ${toIso(first.attachedAt)} from ${first.from ?? 'an unknown address'}, forwarding to ${first.forwardTo ?? 'an unnamed URL'}): one listener per merchant. Stop that one (Ctrl-C) first.`,
      );
    }
    const listener = this.listeners.attach(merchantId, q.forward_to ?? null, from, sink);
    // The sandbox is stopping: the stream ends, so it does not hold the stop up.
    this.unhook.set(
      listener,
      this.sb.changes.listen(
        () => undefined,
        () => listener.end(),
      ),
    );
    this.sb.logger.info({ merchant: merchantId, listener: listener.id, forward_to: listener.forwardTo }, 'webhook listener attached');
    return {
      listener,
      attached: {
        ...this.view(listener),
        webhook_url: m.webhook_url ?? this.sb.config.webhookUrl,
        webhook_secret: m.webhook_secret ?? m.api_secret,
        timeout_ms: this.sb.scenario().webhooks.timeoutMs,
      },
    };
  }

  /** The listener's stream closed: the merchant's deliveries go to its own URL again; attempts it still held fail. */
  detach(listener: Listener): void {
    const unhook = this.unhook.get(listener);
    if (!unhook) return;
    unhook();
    this.unhook.delete(listener);
    this.listeners.detach(listener);
    this.sb.logger.info({ merchant: listener.merchantId, listener: listener.id }, 'webhook listener detached');
  }

  /**
   * A listener's report of what its receiver answered to attempt `token`: recorded as the
   * attempt's result. 404 when no attempt of the merchant waits under that token (it timed out,
   * or its listener detached).
   */
  report(merchantId: string, token: string, input: unknown) {
    const body = parseListen.report(input ?? {});
    if ((body.status === undefined) === (body.error === undefined)) {
      throw new RequestError(400, "Give either status (the receiver's HTTP status) or error (why there was none).");
    }
    const l = this.listeners.of(merchantId);
    if (!l?.report(token, body)) {
      throw new RequestError(404, `No attempt of merchant ${merchantId} waits for a report under ${token} (it timed out, or its listener detached).`);
    }
    return { reported: true };
  }

  /** The listeners attached now. */
  list() {
    return { listeners: this.listeners.all().map((l) => this.view(l)) };
  }
}

import type { BehaviourId } from '../behaviours.js';
import { statusCheckBody, webhookV1Body } from '../contract/records.js';
import type { DomainContext } from '../domain/context.js';
import { RequestError } from '../errors.js';
import { own } from '../own.js';
import { NO_CHAOS, type WebhookChaos } from '../scenario/scenario.js';
import type { AttemptKind, DeliveryAttempt, DueItem, Payout, WebhookDelivery } from '../store/state.js';
import { type DeliveryFilter, DeliveryIndex } from './delivery-index.js';
import { Endpoints } from './endpoints.js';
import { attemptKind, seenIdOf, signedWithWrongKey } from './kinds.js';
import { Listeners } from './listeners.js';
import { SelfAddresses } from './self.js';
import { is2xx, post } from './send.js';
import { DELIVERY_HEADER, deliveryHeaders, merchantKeys, TIMESTAMP_HEADER, unixNow, WRONG_KEYS } from './signing.js';
import { targetAllowed } from './targets.js';

export { SIGNATURE_HEADER, SIGNATURE_V2_HEADER, signatureV2, signBody, TIMESTAMP_HEADER, verifySignatureV2 } from './signing.js';

/** Chaos stale_timestamp: how old the first attempt's timestamp is (seconds). */
export const STALE_AGE_S = 15 * 60;

/** Chaos replay: how long after the captured attempt (sandbox time) it is sent again. */
export const REPLAY_AFTER_MS = 10 * 60_000;

/** Chaos reorder: how far apart (sandbox time) a payout's held deliveries go out, newest first. */
export const REORDER_GAP_MS = 1_000;

/** Chaos duplicate: how long after its original's first attempt ended (sandbox time) the copy goes, under the same delivery id. */
export const DUPLICATE_AFTER_MS = 1_000;

/** The attempts whose failures say the endpoint is unhealthy: correctly signed, fresh, events of their own. */
const HEALTH_KINDS: ReadonlySet<AttemptKind> = new Set(['genuine', 'duplicate']);

export { attemptKind } from './kinds.js';

/** What a delivery is, as listed (older records carry no kind). */
export function deliveryKind(d: WebhookDelivery): AttemptKind {
  return d.kind ?? attemptKind(d, 1);
}

export interface OutboxContext extends DomainContext {
  persist(): Promise<void>;
  /** The target of merchants without a webhook URL of their own (`--webhook-url`). */
  fallbackUrl: string | null;
  /** Hosts deliveries may go to (`--webhook-allow`); null: any. */
  allow: readonly string[] | null;
  /** Deliveries kept per merchant: past it, the oldest finished ones (delivered or failed) go. */
  maxPerMerchant: number;
}

/**
 * The webhook outbox. Every payout status change becomes a stored delivery (in the same write as
 * the change), attempted on the scheduler: a POST of the V1 or V2 body, signed; a 2xx delivers it,
 * anything else is retried on the scenario's schedule, then marked failed. Attempts run off the
 * request path, so a slow or dead receiver never slows the API.
 */
export class WebhookOutbox {
  /** The attempts under way: each one's abort, and whose delivery it is. */
  private readonly inFlight = new Map<AbortController, string>();
  /** The attempts under way, as promises that settle when each has recorded its result. */
  private readonly attempts = new Set<Promise<void>>();
  /** Bumped when the state is replaced (whole, or one merchant's): an attempt started before then records nothing. */
  private readonly generations = new Generations();
  /** Set by close(): attempts cut off by it are made again at the next start. */
  private closing = false;
  private readonly index = new DeliveryIndex();
  /** Each merchant's endpoint: enabled or disabled, failing since, probe runs. */
  readonly endpoints: Endpoints;
  /** `payout-sandbox listen` attached as merchants' receivers: their attempts go to it (listeners.ts). */
  readonly listeners = new Listeners();
  /** Where the sandbox itself listens: no attempt goes there (self.ts). */
  readonly self = new SelfAddresses();
  /** The delivery ids of the attempts being sent now (a duplicate shares its original's), by how many: one that reaches the sandbox's own app is refused there. */
  private readonly sending = new Map<string, number>();

  constructor(private readonly ctx: OutboxContext) {
    this.endpoints = new Endpoints(ctx.repo);
    this.reindex();
  }

  private get deliveries(): Record<string, WebhookDelivery> {
    return this.ctx.repo.state.webhook_deliveries;
  }

  reindex(): void {
    const all = Object.values(this.deliveries);
    for (const d of all) bodyAsJson(d);
    this.index.rebuild(all);
  }

  /** One merchant's deliveries, through the store's index of owners (what it holds, not every merchant's). */
  private deliveriesOf(merchantId: string): WebhookDelivery[] {
    return this.ctx.repo.store.owners.recordsOf<WebhookDelivery>(this.ctx.repo.state, merchantId, 'webhook_deliveries');
  }

  /** One merchant's deliveries are about to be replaced (its reset, a restore): out of the indexes first. */
  replacing(merchantId: string): void {
    this.index.forgetMerchant(merchantId, this.deliveriesOf(merchantId));
  }

  private retain(merchantId: string): void {
    this.index.retain(this.deliveries, merchantId, this.ctx.maxPerMerchant, (id) => this.ctx.repo.remove('webhook_deliveries', id));
  }

  /** Finished deliveries kept per merchant from now on; every merchant is trimmed to it at once. */
  setRetention(maxPerMerchant: number): void {
    this.ctx.maxPerMerchant = maxPerMerchant;
    for (const m of new Set(Object.values(this.deliveries).map((d) => d.merchant_id))) this.retain(m);
  }

  get retention(): number {
    return this.ctx.maxPerMerchant;
  }

  /** The chaos in force for a payout: its rule's over the scenario's. */
  private chaosFor(payout: Payout): WebhookChaos {
    const scenario = this.ctx.scenario();
    const rule = scenario.payouts.rules.find((r) => r.name === payout.rule);
    return { ...NO_CHAOS, ...scenario.webhooks.chaos, ...(rule?.chaos ?? {}) };
  }

  /** The status-change listener: stores the delivery (and, by chaos, its duplicate) and schedules it. */
  enqueue(payout: Payout): void {
    const { repo } = this.ctx;
    const merchant = repo.merchant(payout.merchant_id);
    const target = merchant?.webhook_url ?? this.ctx.fallbackUrl ?? this.listeners.target(payout.merchant_id);
    if (!merchant || !target) return;
    const version = merchant.webhook_version ?? payout.version;
    const body: Record<string, unknown> = version === 'v1' ? webhookV1Body(payout) : statusCheckBody(payout);
    const chaos = this.chaosFor(payout);
    const now = this.ctx.clocks.now(merchant.merchant_id);
    // A disabled endpoint gets nothing: new events wait, undelivered, for a replay.
    const disabled = this.endpoints.disabled(merchant.merchant_id);
    const make = (duplicateOf: string | null): WebhookDelivery => {
      repo.state.webhook_seq += 1;
      const d: WebhookDelivery = {
        delivery_id: `whd_${String(repo.state.webhook_seq).padStart(8, '0')}`,
        merchant_id: merchant.merchant_id,
        ref_id: payout.ref_id,
        event_status: payout.status,
        version,
        target_url: target,
        body,
        wrong_signature: this.ctx.random.chance(chaos.wrongSignature),
        duplicate_of: duplicateOf,
        state: chaos.reorder ? 'held' : disabled ? 'undelivered' : 'pending',
        attempts: [],
        next_attempt: null,
        created_at: now,
      };
      // Drawn only when their share is set (a share of 0 draws nothing: older seeds give the same runs).
      if (this.ctx.random.chance(chaos.staleTimestamp)) d.stale_timestamp = true;
      if (this.ctx.random.chance(chaos.replay)) d.replay_planned = true;
      d.kind = attemptKind(d, 1);
      this.ctx.repo.put('webhook_deliveries', d.delivery_id, d);
      this.index.add(d);
      // A duplicate goes once its original's first attempt has ended (recordAttempt), so the receiver
      // has answered the id before it sees it again; held (reorder), it goes out with the others.
      if (d.state === 'pending' && duplicateOf === null) this.scheduleAttempt(d, now + chaos.delayMs);
      return d;
    };
    const first = make(null);
    if (this.ctx.random.chance(chaos.duplicate)) make(first.delivery_id);
    this.retain(merchant.merchant_id);
    if (chaos.reorder && payout.next_step === null) this.releaseHeld(payout.ref_id, now + chaos.delayMs);
  }

  /**
   * Reorder chaos: once a payout's timeline has ended, its held deliveries go out newest first,
   * REORDER_GAP_MS apart (sandbox time): on a manual clock an advance runs them in that order
   * (an attempt slower than the advance's wait may still be under way when the next goes).
   */
  private releaseHeld(refId: string, at: number): void {
    const held = this.index
      .ofPayout(refId)
      .map((id) => this.deliveries[id])
      .filter((d) => d.state === 'held');
    const disabled = held.length > 0 && this.endpoints.disabled(held[0].merchant_id);
    for (const [i, d] of held.reverse().entries()) {
      d.reordered = true;
      if (disabled) {
        d.state = 'undelivered';
        this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
      } else {
        d.state = 'pending';
        this.scheduleAttempt(d, at + i * REORDER_GAP_MS);
      }
    }
  }

  private scheduleAttempt(d: WebhookDelivery, at: number): void {
    this.ctx.scheduler.cancel(d.next_attempt);
    const item = this.ctx.scheduler.schedule('webhook_attempt', at, { delivery_id: d.delivery_id }, d.merchant_id);
    d.next_attempt = item.id;
    this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
  }

  /** The scheduler's handler: one attempt; its promise ends once the attempt is recorded (its write asked for, tracked by idle()). */
  attempt(item: DueItem): Promise<void> {
    return this.track(this.attemptOnce(item));
  }

  /** Work that sends (an attempt, a replay run): idle() waits for it. */
  private track(p: Promise<void>): Promise<void> {
    this.attempts.add(p);
    const done = () => this.attempts.delete(p);
    p.then(done, done);
    return p;
  }

  private async attemptOnce(item: DueItem): Promise<void> {
    const id = String(item.payload.delivery_id);
    const d = own(this.deliveries, id);
    if (!d || d.next_attempt !== item.id) return;
    d.next_attempt = null;
    this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
    if (this.endpoints.disabled(d.merchant_id)) {
      this.shelve(d);
      await this.ctx.persist();
      return;
    }
    await this.send(d);
  }

  /**
   * The endpoint is disabled: the delivery waits, undelivered, for a replay (a replayed capture,
   * which is no event of its own, is dropped: failed without an attempt).
   */
  private shelve(d: WebhookDelivery): void {
    this.ctx.scheduler.cancel(d.next_attempt);
    d.next_attempt = null;
    d.state = d.replay_of ? 'failed' : 'undelivered';
    this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
    if (d.state === 'failed') this.index.finished(d);
  }

  /** One attempt of `d` now (it has no attempt scheduled): written first, sent, recorded. */
  private async send(d: WebhookDelivery): Promise<void> {
    const at = this.ctx.clocks.now(d.merchant_id);
    const before = this.generations.of(d.merchant_id);
    // What a delivery tells goes out only once it is on disk (a restart never takes back what a
    // receiver was told); if it cannot be written now, the attempt waits for the store's recovery.
    try {
      await this.ctx.persist();
    } catch {
      if (before === this.generations.of(d.merchant_id) && !this.closing) this.scheduleAttempt(d, this.ctx.clocks.now(d.merchant_id));
      return;
    }
    if (before !== this.generations.of(d.merchant_id) || this.closing) return;
    const merchant = this.ctx.repo.merchant(d.merchant_id);
    const n = d.attempts.length + 1;
    const kind = attemptKind(d, n);
    const { timeoutMs } = this.ctx.scenario().webhooks;
    const raw = JSON.stringify(d.body);
    // A replayed capture goes out exactly as it was (its delivery id, attempt, timestamp and signatures).
    const headers =
      kind === 'replay' && d.captured_headers
        ? d.captured_headers
        : deliveryHeaders(
            seenIdOf(d),
            n,
            raw,
            kind === 'forged' || !merchant ? WRONG_KEYS : merchantKeys(merchant, at),
            unixNow() - (kind === 'stale' ? STALE_AGE_S : 0),
          );
    const controller = new AbortController();
    this.inFlight.set(controller, d.merchant_id);
    const generation = this.generations.of(d.merchant_id);
    // While a listener is attached, the attempt goes to it instead (whatever the target).
    const relay = this.listeners.transport(d.merchant_id, d.target_url);
    const sentAt = Date.now();
    const sent = relay ? await relay.send(raw, headers, timeoutMs, controller) : await this.post(d, raw, headers, timeoutMs, controller);
    this.inFlight.delete(controller);
    // Shutting down (resumed at the next start), or the state was replaced under it.
    if (controller.signal.aborted && this.closing) return;
    if (generation !== this.generations.of(d.merchant_id)) return;
    const attempt: DeliveryAttempt = {
      n,
      at,
      real_at: sentAt,
      ...sent,
      signature_valid: !signedWithWrongKey(d, kind),
      kind,
      timestamp: Number(headers[TIMESTAMP_HEADER]),
    };
    if (relay) attempt.listener = relay.via;
    this.recordAttempt(d, attempt, headers);
  }

  /** An attempt to the delivery's URL: refused unsent when --webhook-allow does not allow it or when it is the sandbox's own address. */
  private async post(d: WebhookDelivery, raw: string, headers: Record<string, string>, timeoutMs: number, controller: AbortController) {
    if (!targetAllowed(d.target_url, this.ctx.allow))
      return { status: null, error: `target not allowed by --webhook-allow: ${hostOf(d.target_url)}`, latency_ms: 0 };
    const self = await this.self.problem(d.target_url);
    if (self !== null) return { status: null, error: `not sent: ${self}`, latency_ms: 0 };
    const done = this.markSending(headers[DELIVERY_HEADER] as string);
    try {
      return await post(d.target_url, raw, headers, timeoutMs, controller);
    } finally {
      done();
    }
  }

  /** A request of the sandbox's own under this delivery id is under way (an attempt, a probe's): until the returned function is called. */
  markSending(id: string): () => void {
    this.sending.set(id, (this.sending.get(id) ?? 0) + 1);
    return () => {
      const left = (this.sending.get(id) ?? 1) - 1;
      if (left > 0) this.sending.set(id, left);
      else this.sending.delete(id);
    };
  }

  /** Whether a request carrying this delivery id is one of this sandbox's own attempts (it reached the sandbox itself). */
  isOwnAttempt(deliveryId: string): boolean {
    return this.sending.has(deliveryId);
  }

  /**
   * An attempt's result: delivered, retried on the scenario's schedule, or failed (a replayed
   * capture is sent once); the endpoint's health told; written.
   */
  private recordAttempt(d: WebhookDelivery, attempt: DeliveryAttempt, headers: Record<string, string>): void {
    const { n, at, status, error } = attempt;
    const { retryScheduleMs, disableAfterMs } = this.ctx.scenario().webhooks;
    this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
    d.attempts.push(attempt);
    for (const id of deliveryBehaviours(d, attempt)) this.ctx.events.behaviour(d.merchant_id, id);
    if (HEALTH_KINDS.has(attempt.kind ?? 'genuine')) {
      if (is2xx(status)) this.endpoints.succeeded(d.merchant_id);
      else if (this.endpoints.failed(d.merchant_id, at, disableAfterMs)) this.disable(d.merchant_id);
    }
    if (is2xx(status)) {
      d.state = 'delivered';
    } else if (d.replay_of) {
      d.state = 'failed';
    } else if (this.endpoints.disabled(d.merchant_id)) {
      d.state = 'undelivered';
    } else if (n <= retryScheduleMs.length) {
      d.state = 'pending';
      this.scheduleAttempt(d, at + retryScheduleMs[n - 1]);
    } else {
      d.state = 'failed';
    }
    // Chaos replay: the first request that got an answer is the captured one.
    if (d.replay_planned && status !== null) this.planReplay(d, headers, at, signedWithWrongKey(d, attempt.kind));
    if (n === 1) this.releaseDuplicates(d, at);
    this.ctx.logger.debug({ delivery: d.delivery_id, n, status, error, kind: attempt.kind }, 'webhook attempt');
    if (d.state === 'delivered' || d.state === 'failed') {
      this.index.finished(d);
      this.retain(d.merchant_id);
    }
    // Written, but not waited for here: a manual advance waits for its attempts to be recorded, and
    // then for its own write, which (begun at the end of the turn) carries them; what anyone is
    // answered waits for what it shows to be on disk (http/durability.ts), and idle() for this.
    this.track(
      this.ctx
        .persist()
        .catch((err: unknown) =>
          this.ctx.logger.warn(
            { reason: (err as Error).message, delivery: d.delivery_id },
            'a webhook attempt ran, but could not be written yet: it is once the store can',
          ),
        ),
    );
  }

  /** Chaos duplicate: the copies of `d` waiting for its first attempt to end go DUPLICATE_AFTER_MS after it. */
  private releaseDuplicates(d: WebhookDelivery, at: number): void {
    for (const id of this.index.ofPayout(d.ref_id)) {
      const copy = own(this.deliveries, id);
      if (copy?.duplicate_of === d.delivery_id && copy.state === 'pending' && copy.next_attempt === null && copy.attempts.length === 0) {
        this.scheduleAttempt(copy, at + DUPLICATE_AFTER_MS);
      }
    }
  }

  /** Chaos replay: a copy of `d`'s captured request (same bytes and headers), sent once, REPLAY_AFTER_MS later. */
  private planReplay(d: WebhookDelivery, headers: Record<string, string>, at: number, forged: boolean): void {
    delete d.replay_planned;
    this.ctx.repo.state.webhook_seq += 1;
    const r: WebhookDelivery = {
      delivery_id: `whd_${String(this.ctx.repo.state.webhook_seq).padStart(8, '0')}`,
      merchant_id: d.merchant_id,
      ref_id: d.ref_id,
      event_status: d.event_status,
      version: d.version,
      target_url: d.target_url,
      body: d.body,
      // Whether the captured request (so the replay) was signed with a wrong key.
      wrong_signature: forged,
      duplicate_of: null,
      kind: 'replay',
      replay_of: d.delivery_id,
      captured_headers: { ...headers },
      state: 'pending',
      attempts: [],
      next_attempt: null,
      created_at: at,
    };
    this.ctx.repo.put('webhook_deliveries', r.delivery_id, r);
    this.index.add(r);
    this.scheduleAttempt(r, at + REPLAY_AFTER_MS);
  }

  /** The endpoint was just disabled: no more attempts; what was still to be sent waits, undelivered, for a replay. */
  private disable(merchantId: string): void {
    this.ctx.events.behaviour(merchantId, 'webhook.disabled');
    this.ctx.logger.info({ merchant: merchantId }, 'webhook endpoint disabled: its deliveries kept failing');
    for (const d of this.deliveriesOf(merchantId)) if (d.state === 'pending') this.shelve(d);
  }

  /**
   * Sends every never-acknowledged delivery of the merchant created within [from, to] (sandbox
   * time), oldest first, one at a time, and enables its endpoint again. Replayed captures (chaos)
   * are not events of their own and are left out; acknowledged ones are never sent again. The
   * number of deliveries it sends; they go out after this returns (idle() waits for them).
   */
  replayEndpoint(merchantId: string, from: number, to: number): number {
    const due = this.deliveriesOf(merchantId)
      .filter((d) => !d.replay_of && (d.state === 'pending' || d.state === 'failed' || d.state === 'undelivered'))
      .filter((d) => d.created_at >= from && d.created_at <= to)
      .sort((a, b) => a.created_at - b.created_at || a.delivery_id.localeCompare(b.delivery_id));
    for (const d of due) {
      this.ctx.scheduler.cancel(d.next_attempt);
      d.next_attempt = null;
      d.state = 'pending';
      this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
    }
    this.endpoints.enable(merchantId);
    if (due.length > 0)
      void this.track(
        this.replayRun(
          merchantId,
          due.map((d) => d.delivery_id),
        ),
      );
    return due.length;
  }

  /** A replay's sends, one after another (each waits for the one before); a stop or a replaced state ends it (resume() sends the rest). */
  private async replayRun(merchantId: string, ids: string[]): Promise<void> {
    const generation = this.generations.of(merchantId);
    for (const id of ids) {
      if (this.closing || generation !== this.generations.of(merchantId)) return;
      const d = own(this.deliveries, id);
      if (d?.state !== 'pending' || d.next_attempt !== null) continue;
      if (this.endpoints.disabled(merchantId)) this.shelve(d);
      else await this.send(d).catch((err: unknown) => this.ctx.logger.error({ err, delivery: id }, 'a replayed delivery failed'));
    }
    await this.ctx.persist();
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Resolves when no attempt is under way (each ends by its answer or its time-out). */
  async idle(): Promise<void> {
    while (this.attempts.size > 0) await Promise.allSettled([...this.attempts]);
  }

  /** Stops in-flight attempts (they are attempted again at the next start). */
  close(): void {
    this.closing = true;
    for (const c of this.inFlight.keys()) c.abort(new Error('sandbox stopping'));
  }

  /** The state was replaced (reset, restore), or one merchant's records: attempts under way (of that merchant) are dropped. */
  replaced(merchantId?: string): void {
    this.generations.bump(merchantId);
    for (const [c, owner] of this.inFlight) if (merchantId === undefined || owner === merchantId) c.abort(new Error('state replaced'));
    if (merchantId === undefined) {
      this.reindex();
      return;
    }
    // One merchant's (taken out by `replacing`): only its deliveries are read again.
    const mine = this.deliveriesOf(merchantId);
    for (const d of mine) bodyAsJson(d);
    this.index.include(mine);
  }

  /** At start: deliveries left without a scheduled attempt (cut off by a stop) are attempted now. */
  resume(): void {
    const items = this.ctx.repo.state.scheduler.items;
    for (const d of Object.values(this.deliveries)) {
      if (this.waitsForOriginal(d)) continue;
      if (d.state === 'pending' && (d.next_attempt === null || !items[d.next_attempt])) this.scheduleAttempt(d, this.ctx.clocks.now(d.merchant_id));
      if (d.state === 'held' && this.ctx.repo.state.payouts[d.ref_id]?.next_step === null) this.releaseHeld(d.ref_id, this.ctx.clocks.now(d.merchant_id));
    }
  }

  /** A chaos duplicate whose original has not made its first attempt yet: it goes after it (releaseDuplicates). */
  private waitsForOriginal(d: WebhookDelivery): boolean {
    if (d.duplicate_of === null || d.attempts.length > 0 || d.state !== 'pending') return false;
    const original = own(this.deliveries, d.duplicate_of);
    return original !== undefined && original.attempts.length === 0 && original.state === 'pending';
  }

  list(filter: DeliveryFilter): WebhookDelivery[] {
    const pool = filter.refId === undefined && filter.merchantId !== undefined ? this.deliveriesOf(filter.merchantId) : undefined;
    return this.index.list(this.deliveries, filter, pool);
  }

  /** When the next attempt is due (from its scheduled item), or null when none is scheduled. */
  nextAttemptAt(d: WebhookDelivery): number | null {
    return d.next_attempt === null ? null : (own(this.ctx.repo.state.scheduler.items, d.next_attempt)?.due ?? null);
  }

  /** Sends a delivery again now, whatever its state: the only way an acknowledged one is resent (409 while its endpoint is disabled). */
  redeliver(id: string): WebhookDelivery | undefined {
    const d = own(this.deliveries, id);
    if (!d) return undefined;
    if (this.endpoints.disabled(d.merchant_id)) {
      throw new RequestError(
        409,
        `Merchant ${d.merchant_id}'s webhook endpoint is disabled: POST /__sandbox/merchants/${d.merchant_id}/webhooks/replay sends what it missed and enables it again.`,
      );
    }
    d.state = 'pending';
    this.scheduleAttempt(d, this.ctx.clocks.now(d.merchant_id));
    return d;
  }
}

/** The behaviours an attempt of a delivery showed the merchant's endpoint (behaviour coverage ids). */
function deliveryBehaviours(d: WebhookDelivery, attempt: DeliveryAttempt): BehaviourId[] {
  const ids: BehaviourId[] = [`webhook.${d.version}`];
  if (attempt.n > 1) ids.push('webhook.retry');
  if (d.duplicate_of !== null) ids.push('webhook.duplicate');
  if (signedWithWrongKey(d, attempt.kind)) ids.push('webhook.bad_signature');
  if (d.reordered) ids.push('webhook.reorder');
  if (attempt.kind === 'replay') ids.push('webhook.replay');
  if (attempt.kind === 'stale') ids.push('webhook.stale_timestamp');
  return ids;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Generations of the state, whole and per merchant: an attempt records its result only if its own has not changed. */
class Generations {
  private whole = 0;
  private readonly merchants = new Map<string, number>();

  of(merchantId: string): string {
    return `${this.whole}.${this.merchants.get(merchantId) ?? 0}`;
  }

  /** The whole state was replaced (no merchant), or one merchant's records. */
  bump(merchantId?: string): void {
    if (merchantId === undefined) this.whole += 1;
    else this.merchants.set(merchantId, (this.merchants.get(merchantId) ?? 0) + 1);
  }
}

/** Data files written before bodies were kept as JSON hold the sent text: the same JSON. */
function bodyAsJson(d: WebhookDelivery): void {
  if (typeof d.body === 'string') d.body = JSON.parse(d.body) as Record<string, unknown>;
}

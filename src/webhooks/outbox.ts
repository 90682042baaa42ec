import { performance } from 'node:perf_hooks';
import type { BehaviourId } from '../behaviours.js';
import { statusCheckBody, webhookV1Body } from '../contract/records.js';
import type { DomainContext } from '../domain/context.js';
import { own } from '../own.js';
import { NO_CHAOS, type WebhookChaos } from '../scenario/scenario.js';
import type { DeliveryAttempt, DueItem, Payout, WebhookDelivery } from '../store/state.js';
import { type DeliveryFilter, DeliveryIndex } from './delivery-index.js';
import { deliveryHeaders, describeError, WRONG_KEY } from './signing.js';
import { targetAllowed } from './targets.js';

export { SIGNATURE_HEADER, signBody } from './signing.js';

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

  constructor(private readonly ctx: OutboxContext) {
    this.reindex();
  }

  private get deliveries(): Record<string, WebhookDelivery> {
    return this.ctx.repo.state.webhook_deliveries;
  }

  reindex(): void {
    // Data files written before bodies were kept as JSON hold the sent text: the same JSON.
    for (const d of Object.values(this.deliveries)) if (typeof d.body === 'string') d.body = JSON.parse(d.body) as Record<string, unknown>;
    this.index.rebuild(this.deliveries);
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
    const target = merchant?.webhook_url ?? this.ctx.fallbackUrl;
    if (!merchant || !target) return;
    const version = merchant.webhook_version ?? payout.version;
    const body: Record<string, unknown> = version === 'v1' ? webhookV1Body(payout) : statusCheckBody(payout);
    const chaos = this.chaosFor(payout);
    const now = this.ctx.clocks.now(merchant.merchant_id);
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
        state: chaos.reorder ? 'held' : 'pending',
        attempts: [],
        next_attempt: null,
        created_at: now,
      };
      this.ctx.repo.put('webhook_deliveries', d.delivery_id, d);
      this.index.add(d);
      if (!chaos.reorder) this.scheduleAttempt(d, now + chaos.delayMs);
      return d;
    };
    const first = make(null);
    if (this.ctx.random.chance(chaos.duplicate)) make(first.delivery_id);
    this.retain(merchant.merchant_id);
    if (chaos.reorder && payout.next_step === null) this.releaseHeld(payout.ref_id, now + chaos.delayMs);
  }

  /** Reorder chaos: once a payout's timeline has ended, its held deliveries go out newest first. */
  private releaseHeld(refId: string, at: number): void {
    const held = this.index
      .ofPayout(refId)
      .map((id) => this.deliveries[id])
      .filter((d) => d.state === 'held');
    for (const d of held.reverse()) {
      d.state = 'pending';
      d.reordered = true;
      this.scheduleAttempt(d, at);
    }
  }

  private scheduleAttempt(d: WebhookDelivery, at: number): void {
    this.ctx.scheduler.cancel(d.next_attempt);
    const item = this.ctx.scheduler.schedule('webhook_attempt', at, { delivery_id: d.delivery_id }, d.merchant_id);
    d.next_attempt = item.id;
    this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
  }

  /** The scheduler's handler: one attempt, recorded and written when it ends. */
  attempt(item: DueItem): Promise<void> {
    const p = this.attemptOnce(item);
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
    const { timeoutMs } = this.ctx.scenario().webhooks;
    const raw = JSON.stringify(d.body);
    const controller = new AbortController();
    this.inFlight.set(controller, d.merchant_id);
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const started = performance.now();
    const generation = this.generations.of(d.merchant_id);
    let status: number | null = null;
    let error: string | null = null;
    try {
      if (!targetAllowed(d.target_url, this.ctx.allow)) throw new Error(`target not allowed by --webhook-allow: ${new URL(d.target_url).host}`);
      const res = await fetch(d.target_url, {
        method: 'POST',
        body: raw,
        redirect: 'manual',
        signal: controller.signal,
        headers: deliveryHeaders(d, n, raw, d.wrong_signature ? WRONG_KEY : (merchant?.api_secret ?? WRONG_KEY)),
      });
      status = res.status;
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      // Shutting down (resumed at the next start), or the state was replaced under it.
      if (controller.signal.aborted && (this.closing || generation !== this.generations.of(d.merchant_id))) return;
      error = describeError(controller.signal.aborted ? controller.signal.reason : err);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
    if (generation !== this.generations.of(d.merchant_id)) return;
    await this.recordAttempt(d, { n, at, status, error, latency_ms: Math.round(performance.now() - started), signature_valid: !d.wrong_signature });
  }

  /** An attempt's result: delivered, retried on the scenario's schedule, or failed; written. */
  private async recordAttempt(d: WebhookDelivery, attempt: DeliveryAttempt): Promise<void> {
    const { n, at, status, error } = attempt;
    const { retryScheduleMs } = this.ctx.scenario().webhooks;
    this.ctx.repo.touch('webhook_deliveries', d.delivery_id);
    d.attempts.push(attempt);
    for (const id of deliveryBehaviours(d, n)) this.ctx.events.behaviour(d.merchant_id, id);
    if (status !== null && status >= 200 && status < 300) {
      d.state = 'delivered';
    } else if (n <= retryScheduleMs.length) {
      d.state = 'pending';
      this.scheduleAttempt(d, at + retryScheduleMs[n - 1]);
    } else {
      d.state = 'failed';
    }
    this.ctx.logger.debug({ delivery: d.delivery_id, n, status, error }, 'webhook attempt');
    if (d.state !== 'pending') {
      this.index.finished(d);
      this.retain(d.merchant_id);
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
    this.reindex();
  }

  /** At start: deliveries left without a scheduled attempt (cut off by a stop) are attempted now. */
  resume(): void {
    const items = this.ctx.repo.state.scheduler.items;
    for (const d of Object.values(this.deliveries)) {
      if (d.state === 'pending' && (d.next_attempt === null || !items[d.next_attempt])) this.scheduleAttempt(d, this.ctx.clocks.now(d.merchant_id));
      if (d.state === 'held' && this.ctx.repo.state.payouts[d.ref_id]?.next_step === null) this.releaseHeld(d.ref_id, this.ctx.clocks.now(d.merchant_id));
    }
  }

  list(filter: DeliveryFilter): WebhookDelivery[] {
    return this.index.list(this.deliveries, filter);
  }

  /** When the next attempt is due (from its scheduled item), or null when none is scheduled. */
  nextAttemptAt(d: WebhookDelivery): number | null {
    return d.next_attempt === null ? null : (own(this.ctx.repo.state.scheduler.items, d.next_attempt)?.due ?? null);
  }

  /** Sends a delivery again now, whatever its state: the only way an acknowledged one is resent. */
  redeliver(id: string): WebhookDelivery | undefined {
    const d = own(this.deliveries, id);
    if (!d) return undefined;
    d.state = 'pending';
    this.scheduleAttempt(d, this.ctx.clocks.now(d.merchant_id));
    return d;
  }
}

/** The behaviours attempt `n` of a delivery showed the merchant's endpoint (behaviour coverage ids). */
function deliveryBehaviours(d: WebhookDelivery, n: number): BehaviourId[] {
  const ids: BehaviourId[] = [`webhook.${d.version}`];
  if (n > 1) ids.push('webhook.retry');
  if (d.duplicate_of !== null) ids.push('webhook.duplicate');
  if (d.wrong_signature) ids.push('webhook.bad_signature');
  if (d.reordered) ids.push('webhook.reorder');
  return ids;
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

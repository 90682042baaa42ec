import type { Request, Response } from 'express';
import { type ClientRateLimitInfo, rateLimit, type Store } from 'express-rate-limit';
import type { Clock } from '../clock.js';
import { MESSAGES, RequestError } from '../errors.js';
import type { CounterEntries, Counters, RateLimits, SandboxCore } from '../sandbox/core.js';
import type { RateLimitRule } from '../scenario/scenario.js';

/** A counter's key for one of a merchant's things (its counters go with its snapshots), and back. */
const merchantKey = (merchantId: string, id: string) => `${merchantId}\u0000${id}`;
const merchantOfKey = (key: string) => key.slice(0, Math.max(0, key.indexOf('\u0000')));

/**
 * express-rate-limit's hit counter: a fixed window per key that opens at the key's first hit and
 * reopens when its length has passed on the key's clock (the merchant's: a manual clock advanced
 * past it frees the key at once) or in real time (a client that sleeps out Retry-After gets its
 * window back, even on a manual clock that nobody advances).
 */
export class ClockStore implements Store {
  private readonly hits = new Map<string, Window>();

  /** `windowMs` is read at each window's opening, so a changed rule applies to the next window. */
  constructor(
    private readonly clockOf: (key: string) => Clock,
    private readonly windowMs: () => number,
  ) {}

  get(key: string): ClientRateLimitInfo | undefined {
    const h = this.live(key);
    return h ? { totalHits: h.totalHits, resetTime: new Date(h.resetAt) } : undefined;
  }

  increment(key: string): ClientRateLimitInfo {
    let h = this.live(key);
    if (!h) {
      if (this.hits.size >= 10_000) this.sweep();
      const ms = this.windowMs();
      h = { totalHits: 0, resetAt: this.clockOf(key).now() + ms, realResetAt: Date.now() + ms };
      this.hits.set(key, h);
    }
    h.totalHits += 1;
    return { totalHits: h.totalHits, resetTime: new Date(h.resetAt) };
  }

  decrement(key: string): void {
    const h = this.live(key);
    if (h && h.totalHits > 0) h.totalHits -= 1;
  }

  resetKey(key: string): void {
    this.hits.delete(key);
  }

  resetAll(): void {
    this.hits.clear();
  }

  merchantCounters(merchantId: string): CounterEntries {
    return [...this.hits].filter(([k]) => merchantOfKey(k) === merchantId).map(([k, w]) => [k, { ...w }]);
  }

  replaceMerchant(merchantId: string, entries: CounterEntries | undefined): void {
    for (const [k] of this.merchantCounters(merchantId)) this.hits.delete(k);
    for (const [k, w] of entries ?? []) this.hits.set(k, { ...w });
  }

  /**
   * Milliseconds to state as the key's `Retry-After`. On a manual clock, the time left on it: what
   * a test advances by, and always enough for it (sleeping that long is enough too whenever real
   * time would reopen the window sooner). On a real clock, sped up or not: the sooner of the real
   * time left and the real time its clock takes to get there.
   */
  msUntilReset(key: string): number {
    const h = this.hits.get(key);
    if (!h) return 0;
    const clock = this.clockOf(key);
    if (clock.mode === 'manual') return h.resetAt - clock.now();
    return Math.min(h.realResetAt - Date.now(), clock.realDelayUntil(h.resetAt));
  }

  private live(key: string) {
    const h = this.hits.get(key);
    if (h && expired(h, this.clockOf(key).now())) {
      this.hits.delete(key);
      return undefined;
    }
    return h;
  }

  private sweep(): void {
    for (const [k, h] of this.hits) if (expired(h, this.clockOf(k).now())) this.hits.delete(k);
  }
}

interface Window {
  totalHits: number;
  /** On the key's clock. */
  resetAt: number;
  /** Real time. */
  realResetAt: number;
}

function expired(h: Window, now: number): boolean {
  return h.resetAt <= now || h.realResetAt <= Date.now();
}

export interface LimiterOptions {
  /** The 429's message (default: the reference's `Too many attempts`). */
  message?: string;
  /** Which answered requests count; by default all of them. */
  counts?: (req: Request, res: Response) => boolean;
  /** Called when a request is refused (behaviour coverage). */
  onRefused?: (res: Response) => void;
}

/**
 * A fixed-window limit keyed by `key(req, res)`, each key's window on `clockOf(key)` and real
 * time. Excess: a RequestError 429 with `Retry-After`: the seconds until the window reopens
 * (`ClockStore.msUntilReset`: on a manual clock, those left on it).
 */
export function limiter(
  clockOf: (key: string) => Clock,
  rule: () => RateLimitRule | null,
  key: (req: Request, res: Response) => string,
  registry?: Set<Counters>,
  options: LimiterOptions = {},
) {
  const store = new ClockStore(clockOf, () => rule()?.windowMs ?? 60_000);
  registry?.add(store);
  const counts = options.counts;
  const middleware = rateLimit({
    limit: () => rule()?.limit ?? 0,
    skip: () => rule() === null,
    keyGenerator: (req, res) => key(req, res),
    standardHeaders: false,
    legacyHeaders: false,
    validate: false,
    store,
    ...(counts ? { skipSuccessfulRequests: true, requestWasSuccessful: (req: Request, res: Response) => !counts(req, res) } : {}),
    handler: (req, res, next) => {
      options.onRefused?.(res);
      const seconds = Math.max(1, Math.ceil(store.msUntilReset(key(req, res)) / 1000));
      next(new RequestError(429, options.message ?? MESSAGES.tooManyAttempts, { 'Retry-After': String(seconds) }));
    },
  });
  return Object.assign(middleware, { store });
}

/**
 * One of the reference's limits (status check 3/min per transaction, balance 10/min per account)
 * on the merchant's clock (and real time), or nothing when rate limits are off (no middleware on the path). Its
 * counters are cleared with the state; a refusal counts as the behaviour `ratelimit.<name>`.
 */
export function referenceLimit(sb: SandboxCore, name: keyof RateLimits, key: (res: Response) => { merchantId: string; id: string }) {
  if (!sb.config.rateLimits) return null;
  return limiter(
    (k) => sb.clocks.of(merchantOfKey(k)),
    () => sb.rateLimit(name),
    (_req, res) => {
      const k = key(res);
      return merchantKey(k.merchantId, k.id);
    },
    sb.counters,
    {
      onRefused: (res) => sb.events.behaviour(key(res).merchantId, `ratelimit.${name}`),
    },
  );
}

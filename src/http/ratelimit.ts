import type { Request, Response } from 'express';
import { rateLimit, type ClientRateLimitInfo, type Store } from 'express-rate-limit';
import type { Clock } from '../clock.js';
import { MESSAGES, RequestError } from '../errors.js';
import type { RateLimitRule } from '../scenario/scenario.js';
import type { Counters, RateLimits, SandboxCore } from '../runtime/core.js';


/**
 * express-rate-limit's hit counter on the sandbox clock: a fixed window per key that opens at the
 * key's first hit, so a manual clock advanced past the window frees the key without real waiting.
 */
export class ClockStore implements Store {
  private readonly hits = new Map<string, { totalHits: number; resetAt: number }>();

  /** `windowMs` is read at each window's opening, so a changed rule applies to the next window. */
  constructor(
    private readonly clock: Clock,
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
      h = { totalHits: 0, resetAt: this.clock.now() + this.windowMs() };
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

  private live(key: string) {
    const h = this.hits.get(key);
    if (h && h.resetAt <= this.clock.now()) {
      this.hits.delete(key);
      return undefined;
    }
    return h;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [k, h] of this.hits) if (h.resetAt <= now) this.hits.delete(k);
  }
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
 * A fixed-window limit on `clock`, keyed by `key(req, res)`. Excess: a RequestError 429 with
 * `Retry-After` in seconds of that clock's time.
 */
export function limiter(
  clock: Clock,
  rule: () => RateLimitRule | null,
  key: (req: Request, res: Response) => string,
  registry?: Set<Counters>,
  options: LimiterOptions = {},
) {
  const store = new ClockStore(clock, () => rule()?.windowMs ?? 60_000);
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
      const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? clock.now()) - clock.now()) / 1000));
      next(new RequestError(429, options.message ?? MESSAGES.tooManyAttempts, { 'Retry-After': String(seconds) }));
    },
  });
  return Object.assign(middleware, { store });
}

/**
 * One of the reference's limits (status check 3/min per transaction, balance 10/min per account)
 * on the sandbox clock, or nothing when rate limits are off (no middleware on the path). Its
 * counters are cleared with the state; a refusal counts as the behaviour `ratelimit.<name>`.
 */
export function referenceLimit(sb: SandboxCore, name: keyof RateLimits, key: (res: Response) => { merchantId: string; id: string }) {
  if (!sb.config.rateLimits) return null;
  return limiter(sb.clock, () => sb.rateLimit(name), (_req, res) => {
    const k = key(res);
    return `${k.merchantId}\u0000${k.id}`;
  }, sb.counters, {
    onRefused: (res) => sb.coverage.hit(key(res).merchantId, `ratelimit.${name}`),
  });
}

import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { DomainContext, EventBus } from '../domain/context.js';
import type { ChangeFeed } from '../observe/changes.js';
import type { Coverage } from '../observe/coverage.js';
import type { Journal } from '../observe/journal.js';
import type { Review } from '../observe/review/review.js';
import type { SandboxRandom } from '../random.js';
import type { RateLimitRule, Scenario } from '../scenario/scenario.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { Repo } from '../store/repo.js';
import type { MerchantSlice, State } from '../store/state.js';
import type { Store } from '../store/store.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { SandboxConfig } from './config.js';

export interface RateLimits {
  status_check: RateLimitRule;
  balance_check: RateLimitRule;
}

/** Counters kept outside the state (rate-limit windows): cleared whenever the state is replaced. */
export interface Counters {
  resetAll(): void;
  /** One merchant's counters, to save with its snapshot. */
  merchantCounters(merchantId: string): CounterEntries;
  /** Puts a merchant's counters in place of its current ones (none: cleared). */
  replaceMerchant(merchantId: string, entries: CounterEntries | undefined): void;
}

/** A limiter's windows, by key. */
export type CounterEntries = Array<[key: string, window: { totalHits: number; resetAt: number; realResetAt: number }]>;

/** The running sandbox without its admin surface: the store, the clock, the scheduler, the outbox. */
export interface SandboxCore extends DomainContext {
  config: SandboxConfig;
  store: Store;
  repo: Repo;
  clock: Clock;
  random: SandboxRandom;
  logger: Logger;
  scheduler: Scheduler;
  events: EventBus;
  webhooks: WebhookOutbox;
  /** The scenario in force. */
  scenario(): Scenario;
  /** Puts another scenario in force (for what is decided from now on). */
  setScenario(next: Scenario): void;
  journal: Journal;
  /** Change notifications for live views (the dashboard's event stream). */
  changes: ChangeFeed;
  /** Behaviour coverage per merchant (see docs/coverage.md). */
  coverage: Coverage;
  /** The integration review: facts per merchant, and the rules over them (see docs/review.md). */
  review: Review;
  /** The rate limiters' counters (cleared on reset and restore). */
  counters: Set<Counters>;
  /**
   * Puts a whole state in force (reset, snapshot restore): indexes, due items and the outbox follow
   * it; the manual clock goes to `clockNow`; counters are cleared. The caller persists.
   */
  replaceState(next: State, clockNow: number): void;
  /**
   * Puts one merchant's records in place of what it has now (its reset, its snapshot's restore):
   * nothing of another merchant changes; its attempts under way are dropped; its rate-limit
   * counters become `counters` (one per limiter, in `counters` order), or are cleared. The caller persists.
   */
  replaceMerchant(slice: MerchantSlice, counters?: CounterEntries[]): void;
  /** Back to the fixtures and the configured scenario; the manual clock back to its start. */
  resetState(): Promise<void>;
  /** The limits in force, or null for a limit that is off. */
  rateLimit(name: keyof RateLimits): RateLimitRule | null;
  /**
   * Releases timers and writes everything; nothing is answered after it. Rejects with a
   * StoreWriteError when the changes cannot be written (a full disk): called again, it tries again.
   */
  close(): Promise<void>;
}

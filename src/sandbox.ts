import type { Logger } from 'pino';
import type { ClockStore, RateLimitRule } from './api/ratelimit.js';
import type { Journal } from './control/journal.js';
import type { State } from './store/state.js';
import type { Clock } from './clock.js';
import type { SandboxConfig } from './config.js';
import type { DomainContext, PayoutEvents } from './domain/context.js';
import type { SandboxRandom } from './random.js';
import type { Scenario } from './scenario/scenario.js';
import type { Scheduler } from './scheduler.js';
import type { WebhookOutbox } from './webhooks/outbox.js';
import type { Repo } from './store/repo.js';
import type { Store } from './store/store.js';

export interface RateLimits {
  status_check: RateLimitRule;
  balance_check: RateLimitRule;
}

/** The running sandbox behind one app: everything routers and the CLI reach through. */
export interface Sandbox extends DomainContext {
  config: SandboxConfig;
  store: Store;
  repo: Repo;
  clock: Clock;
  random: SandboxRandom;
  logger: Logger;
  scheduler: Scheduler;
  events: PayoutEvents;
  webhooks: WebhookOutbox;
  /** The scenario in force. */
  scenario(): Scenario;
  /** Puts another scenario in force (for what is decided from now on). */
  setScenario(next: Scenario): void;
  journal: Journal;
  /** The rate limiters' counters (cleared on reset and restore). */
  limiterStores: Set<ClockStore>;
  /**
   * Puts a whole state in force (reset, snapshot restore): indexes, due items and the outbox follow
   * it; the manual clock goes to `clockNow`; counters are cleared. The caller persists.
   */
  replaceState(next: State, clockNow: number): void;
  /** Back to the fixtures and the configured scenario; the manual clock back to its start. */
  reset(): Promise<void>;
  /** The limits in force, or null for a limit that is off. */
  rateLimit(name: keyof RateLimits): RateLimitRule | null;
  /** Writes everything and releases timers; the app answers nothing after it. */
  close(): Promise<void>;
}

import { pino, type Logger } from 'pino';
import { Clock, DEFAULT_MANUAL_START } from '../clock.js';
import { runBeneficiaryActivation } from '../domain/beneficiaries.js';
import { runCheckoutStep } from '../domain/checkout.js';
import { PayoutEvents, type DomainContext } from '../domain/context.js';
import { runPayoutStep } from '../domain/lifecycle.js';
import { SandboxRandom } from '../random.js';
import { loadScenario, scenarioFromValue, type RateLimitRule, type Scenario } from '../scenario/scenario.js';
import type { ScenarioFile } from '../scenario/schema.js';
import { Scheduler } from '../scheduler.js';
import { Repo } from '../store/repo.js';
import type { State } from '../store/state.js';
import { openStore, type Store } from '../store/store.js';
import { WebhookOutbox } from '../webhooks/outbox.js';
import { Admin } from './admin.js';
import { resolveConfig, type SandboxConfig, type SandboxOptions } from './config.js';
import { fixturesFromValue, loadFixtures, stateFromFixtures, type Fixtures } from './fixtures.js';
import { Journal } from './journal.js';

export interface RateLimits {
  status_check: RateLimitRule;
  balance_check: RateLimitRule;
}

/** Counters kept outside the state (rate-limit windows): cleared whenever the state is replaced. */
export interface Counters {
  resetAll(): void;
}

/**
 * The running sandbox: the store, the clock, the scheduler, the outbox and their wiring. The
 * emulated API and the control API (HTTP) and the in-process handle all reach the sandbox
 * through this; the admin surface through `admin`.
 */
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
  counters: Set<Counters>;
  /**
   * Puts a whole state in force (reset, snapshot restore): indexes, due items and the outbox follow
   * it; the manual clock goes to `clockNow`; counters are cleared. The caller persists.
   */
  replaceState(next: State, clockNow: number): void;
  /** Back to the fixtures and the configured scenario; the manual clock back to its start. */
  resetState(): Promise<void>;
  /** The limits in force, or null for a limit that is off. */
  rateLimit(name: keyof RateLimits): RateLimitRule | null;
  /** The one admin surface: the control API and the in-process handle both call it. */
  admin: Admin;
  /** Writes everything and releases timers; nothing is answered after it. */
  close(): Promise<void>;
}

function fixturesOf(source: string | Fixtures): Promise<Fixtures> {
  return typeof source === 'string' ? loadFixtures(source) : Promise.resolve(fixturesFromValue(source, 'fixtures'));
}

function scenarioOf(source: string | ScenarioFile): Promise<Scenario> {
  return typeof source === 'string' ? loadScenario(source) : Promise.resolve(scenarioFromValue(source, null));
}

function loggerOf(config: SandboxConfig): Logger {
  return pino({
    level: config.logLevel,
    base: { name: 'payout-sandbox' },
    redact: ['req.headers["x-api-key"]', 'req.headers["x-api-secret"]', 'req.headers.accesstoken', 'req.headers.authorization'],
  });
}

/** The scheduler's handlers and the status-change listener. */
function wire(sb: Sandbox): void {
  sb.events.onPayoutStatus((payout) => sb.webhooks.enqueue(payout));
  sb.scheduler.on('payout_step', (item) => runPayoutStep(sb, item));
  sb.scheduler.on('beneficiary_activation', (item) => runBeneficiaryActivation(sb, item));
  sb.scheduler.on('checkout_step', (item) => runCheckoutStep(sb, item));
  sb.scheduler.on('webhook_attempt', (item) => sb.webhooks.attempt(item));
  sb.scheduler.reload();
  sb.webhooks.resume();
}

/**
 * Builds the runtime from options (the CLI's, startSandbox's, or a test's): files read and
 * checked, the store opened, everything due while the sandbox was stopped run. Invalid options
 * or files reject before anything is written.
 */
export async function openSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const config = resolveConfig(options);
  const fixtures = await fixturesOf(config.fixtures);
  const configuredScenario = await scenarioOf(config.scenario);
  let scenario = configuredScenario;
  const clock = new Clock({ mode: config.clock, speed: config.speed, start: config.clockStart ?? undefined });
  const random = new SandboxRandom(config.seed ?? undefined);
  const { store, created } = await openStore(config.data, () => stateFromFixtures(fixtures, clock.now()));
  if (clock.mode === 'manual' && store.state.clock.now !== null) clock.set(store.state.clock.now);
  if (created) await store.persist();
  const repo = new Repo(store);
  const logger = loggerOf(config);
  const scheduler = new Scheduler(clock, () => store.state, () => store.persist(), logger);
  const domain: DomainContext = { repo, clock, random, scheduler, events: new PayoutEvents(), logger, scenario: () => scenario };
  const webhooks = new WebhookOutbox({ ...domain, persist: () => store.persist(), fallbackUrl: config.webhookUrl });
  const startTime = config.clock === 'manual' ? (config.clockStart ?? DEFAULT_MANUAL_START) : null;
  let closed = false;
  const sb: Sandbox = {
    ...domain,
    config,
    store,
    webhooks,
    journal: new Journal(config.journalSize),
    counters: new Set(),
    admin: undefined as unknown as Admin,
    setScenario: (next) => {
      scenario = next;
    },
    replaceState: (next, clockNow) => {
      store.state = next;
      clock.reset(clockNow);
      if (clock.mode === 'manual') next.clock.now = clockNow;
      repo.reindex();
      scheduler.reload();
      webhooks.replaced();
      for (const c of sb.counters) c.resetAll();
    },
    resetState: async () => {
      scenario = configuredScenario;
      const at = startTime ?? clock.now();
      sb.replaceState(stateFromFixtures(fixtures, at), at);
      await store.persist();
    },
    rateLimit: (name) => (config.rateLimits ? scenario.limits[name] : null),
    close: async () => {
      if (closed) return;
      closed = true;
      scheduler.stop();
      webhooks.close();
      await store.persist();
    },
  };
  sb.admin = new Admin(sb);
  wire(sb);
  // Whatever fell due while the sandbox was stopped happens now.
  await scheduler.runDue();
  return sb;
}

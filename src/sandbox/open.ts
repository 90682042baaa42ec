import { type Logger, pino } from 'pino';
import { Clock, DEFAULT_MANUAL_START } from '../clock.js';
import { runBeneficiaryActivation } from '../domain/beneficiaries.js';
import { runCheckoutStep } from '../domain/checkout.js';
import { type DomainContext, EventBus } from '../domain/context.js';
import { runPayoutStep } from '../domain/lifecycle.js';
import { RequestError } from '../errors.js';
import { ChangeFeed } from '../observe/changes.js';
import { Coverage, writeCoverageReport } from '../observe/coverage.js';
import { Journal } from '../observe/journal.js';
import { writeReviewReport } from '../observe/review/report.js';
import { Review } from '../observe/review/review.js';
import { SandboxRandom } from '../random.js';
import { loadScenario, resolveScenario, type Scenario } from '../scenario/scenario.js';
import { Clocks } from '../schedule/clocks.js';
import { Scheduler } from '../schedule/scheduler.js';
import { fsProblem } from '../store/file-errors.js';
import { Repo } from '../store/repo.js';
import { putSlice, stampOwners, takenIds } from '../store/slices.js';
import { openStore, StartStopped, type Store, StoreFileError, StoreWriteError } from '../store/store.js';
import { toIso } from '../time.js';
import { WebhookOutbox } from '../webhooks/outbox.js';
import { resolveConfig, type SandboxConfig, type SandboxOptions } from './config.js';
import type { SandboxCore } from './core.js';
import { type Fixtures, fixturesFromValue, loadFixtures, stateFromFixtures } from './fixtures.js';
import { writeTraces } from './traces.js';

export type { Counters, RateLimits, SandboxCore } from './core.js';

import type { MerchantSlice, State } from '../store/state.js';
import type { CounterEntries } from './core.js';

function fixturesOf(source: string | Fixtures): Promise<Fixtures> {
  return typeof source === 'string' ? loadFixtures(source) : Promise.resolve(fixturesFromValue(source, 'fixtures'));
}

function scenarioOf(source: SandboxConfig['scenario']): Promise<Scenario> {
  return typeof source === 'string' ? loadScenario(source) : resolveScenario(source, null);
}

function loggerOf(config: SandboxConfig): Logger {
  return pino({
    level: config.logLevel,
    base: { name: 'payout-sandbox' },
    redact: ['req.headers["x-api-key"]', 'req.headers["x-api-secret"]', 'req.headers.accesstoken', 'req.headers.authorization'],
  });
}

function outboxOf(domain: DomainContext, config: SandboxConfig, persist: () => Promise<void>): WebhookOutbox {
  return new WebhookOutbox({
    ...domain,
    persist,
    fallbackUrl: config.webhookUrl,
    allow: config.webhookAllow,
    maxPerMerchant: config.maxDeliveriesPerMerchant,
  });
}

/** Timers and attempts stopped (once). */
function stopActivity(sb: SandboxCore): void {
  sb.scheduler.stop();
  sb.webhooks.close();
  sb.changes.close();
}

/** Reports (coverage, review, traces) that could not be written at the stop: each named with its reason, in one line. */
export class ReportWriteError extends Error {}

/**
 * Everything written (a StoreWriteError when it cannot be: called again, it tries again), then the
 * coverage and review reports and the traces: each tried even when another failed (a
 * ReportWriteError then names every one that did).
 */
async function writeOut(sb: SandboxCore): Promise<void> {
  const { problem } = await sb.store.close();
  if (problem) process.stderr.write(`payout-sandbox: ${problem}\n`);
  const { coverageReport, coverageIgnore, coverageUncovered, reviewReport: reviewFile, traceDir } = sb.config;
  const failed: string[] = [];
  const attempt = async (option: string, path: string, write: () => Promise<string>) => {
    try {
      const done = await write();
      sb.logger.info({ file: path }, done);
    } catch (err) {
      // mkdir -p says EEXIST when a file stands where a directory of the path should be.
      const inTheWay = (err as NodeJS.ErrnoException).code === 'EEXIST';
      failed.push(`${option} ${path}: ${inTheWay ? 'a part of its path is not a directory (EEXIST)' : fsProblem(err)}`);
    }
  };
  if (coverageReport !== null) {
    await attempt('--coverage-report', coverageReport, async () => {
      await writeCoverageReport(coverageReport, sb.coverage.report(null, coverageIgnore), coverageUncovered);
      return `coverage report written to ${coverageReport}`;
    });
  }
  if (reviewFile !== null) {
    await attempt('--review-report', reviewFile, async () => {
      await writeReviewReport(reviewFile, sb.review.report(null));
      return `review report written to ${reviewFile}`;
    });
  }
  if (traceDir !== null) {
    await attempt('--trace-dir', traceDir, async () => {
      const files = await writeTraces(sb, traceDir);
      return `${files.length} trace${files.length === 1 ? '' : 's'} written to ${traceDir}`;
    });
  }
  if (failed.length > 0) throw new ReportWriteError(`could not write ${failed.join('; ')}`);
}

/**
 * A start that failed after the runtime was built (the port in use, a signal before listening):
 * timers and attempts stopped, a write under way finished, the files let go of. Nothing else is
 * written: no compaction, and no report, which only a sandbox that served writes.
 */
export async function abandon(sb: SandboxCore): Promise<void> {
  stopActivity(sb);
  await sb.store.release();
}

/** The scheduler's handlers and the status-change listener. */
function wire(sb: SandboxCore): void {
  sb.events.onPayoutStatus((payout) => sb.webhooks.enqueue(payout));
  // For traces: when each status change and each advance of a clock happened in real time.
  sb.events.onPayoutStatus((payout) => sb.journal.noteStatusChange(payout.ref_id, payout.status, payout.updated_at));
  sb.scheduler.onAdvance = (merchantId, from, to) => sb.journal.noteClockMove({ merchant_id: merchantId, from, to, real_at: Date.now() });
  sb.events.onBehaviour((merchantId, id) => sb.coverage.hit(merchantId, id));
  sb.scheduler.on('payout_step', (item) => runPayoutStep(sb, item));
  sb.scheduler.on('beneficiary_activation', (item) => runBeneficiaryActivation(sb, item));
  sb.scheduler.on('checkout_step', (item) => runCheckoutStep(sb, item));
  sb.scheduler.on('webhook_attempt', (item) => sb.webhooks.attempt(item));
  sb.scheduler.reload();
  sb.webhooks.resume();
}

/** SandboxCore.replaceState: the whole state, then everything derived from it. */
function replaceState(sb: SandboxCore, next: State, clockNow: number): void {
  sb.store.state = next;
  sb.clock.reset(clockNow);
  if (sb.clock.mode === 'manual') next.clock.now = clockNow;
  sb.repo.reindex();
  sb.review.reindex();
  sb.clocks.reload();
  sb.scheduler.reload();
  sb.webhooks.replaced();
  for (const c of sb.counters) c.resetAll();
  sb.changes.note('state');
}

/** SandboxCore.replaceMerchant: one merchant's records (refused when another merchant holds one of their ids). */
function replaceMerchant(sb: SandboxCore, slice: MerchantSlice, counters: CounterEntries[] | undefined): void {
  const id = slice.merchant.merchant_id;
  const taken = takenIds(sb.store.state, slice);
  if (taken.length > 0)
    throw new RequestError(409, `Cannot bring back merchant ${id}'s records: other merchants hold these ids now: ${taken.slice(0, 5).join(', ')}.`);
  // Its entries out of the indexes while its old records are there to find them, then back in
  // from the new ones: each costs what this merchant holds, not what the sandbox holds.
  sb.repo.forgetMerchant(id);
  sb.webhooks.replacing(id);
  const left = sb.scheduler.sandboxEntriesOf(id);
  putSlice(sb.repo, slice);
  sb.repo.indexMerchant(id);
  sb.review.reindexMerchant(id);
  // Only this merchant's clock and lane: another merchant's advance under way runs on undisturbed.
  sb.clocks.reload(id);
  sb.scheduler.relane(id, { replaced: true, left });
  sb.webhooks.replaced(id);
  for (const [i, c] of [...sb.counters].entries()) c.replaceMerchant(id, counters?.[i]);
}

/** The inputs read and checked, before anything of the data file is touched. */
interface Inputs {
  config: SandboxConfig;
  fixtures: Fixtures;
  scenario: Scenario;
  clock: Clock;
  logger: Logger;
}

/**
 * The store, opened (the lock taken, the document checked, the log replayed); what an operator
 * should know of it said on stderr, even when the opening fails; a new store's fixtures written.
 */
async function openDataStore({ config, fixtures, clock, logger }: Inputs): Promise<Store> {
  const notices: string[] = [];
  const options = {
    fsync: config.fsync,
    compactBytes: config.compactBytes,
    hooks: config.storeHooks ?? undefined,
    warn: (message: string) => logger.warn(message),
  };
  try {
    const { store, created } = await openStore(config.data, () => stateFromFixtures(fixtures, clock.now()), options, notices);
    try {
      await config.storeHooks?.checkpoint?.('open');
      if (created) await store.persist();
    } catch (err) {
      await store.release();
      throw err;
    }
    return store;
  } finally {
    for (const notice of notices) process.stderr.write(`payout-sandbox: ${notice}\n`);
  }
}

/**
 * Builds the runtime (the admin surface is put on it by admin/sandbox.ts) from options (the
 * CLI's, startSandbox's, or a test's): files read and checked, the store opened, everything due
 * while the sandbox was stopped run. Invalid options or files reject before anything is written;
 * records in the data file that cannot be used stop the start with the file named, its files let
 * go of, unchanged.
 */
export async function openCore(options: SandboxOptions = {}): Promise<{ core: SandboxCore; fixtureMerchants: number }> {
  const config = resolveConfig(options);
  const fixtures = await fixturesOf(config.fixtures);
  const scenario = await scenarioOf(config.scenario);
  const clock = new Clock({ mode: config.clock, speed: config.speed, start: config.clockStart ?? undefined });
  const inputs: Inputs = { config, fixtures, scenario, clock, logger: loggerOf(config) };
  const store = await openDataStore(inputs);
  try {
    return { core: await assemble(inputs, store), fixtureMerchants: fixtures.merchants.length };
  } catch (err) {
    await store.release();
    if (store.kind === 'memory' || err instanceof StoreFileError || err instanceof StoreWriteError || err instanceof StartStopped) throw err;
    throw new StoreFileError(
      `${config.data}: the records in the data file cannot be used (${(err as Error).message}); see docs/operations.md "Data file and change log"`,
    );
  }
}

/** The runtime around an open store: repo, clocks, scheduler, outbox, journal, coverage, wired. */
async function assemble({ config, fixtures, scenario: configuredScenario, clock, logger }: Inputs, store: Store): Promise<SandboxCore> {
  let scenario = configuredScenario;
  const random = new SandboxRandom(config.seed ?? undefined);
  if (clock.mode === 'manual' && store.state.clock.now !== null) clock.set(store.state.clock.now);
  for (const id of stampOwners(store.state)) store.changed('due_items', id);
  const repo = new Repo(store, { perMerchant: config.maxRecordsPerMerchant, total: config.maxRecords });
  const clocks = new Clocks(clock, store);
  const scheduler = new Scheduler(clocks, store, logger);
  const domain: DomainContext = { repo, clocks, random, scheduler, events: new EventBus(), logger, scenario: () => scenario };
  const webhooks = outboxOf(domain, config, () => store.persist());
  const changes = new ChangeFeed();
  store.onChanged = (c) => changes.note(c);
  // Writing works again after a failure: what fell due meanwhile (and the paused timers) run now.
  store.onRecovered = () => {
    logger.info('the data file is writable again: every change is on disk; due items run again');
    scheduler.runDue().catch((err: unknown) => logger.error({ err }, 'running due items failed'));
  };
  const startTime = config.clock === 'manual' ? (config.clockStart ?? DEFAULT_MANUAL_START) : null;
  let stopped = false;
  let closed: Promise<void> | null = null;
  const core: SandboxCore = {
    ...domain,
    config,
    store,
    clock,
    webhooks,
    journal: new Journal(config.journalSize),
    review: new Review(
      store,
      {
        probes: (merchantId) =>
          (store.state.webhook_endpoints?.[merchantId]?.probes ?? []).map((r) => ({ id: `probe@${toIso(r.at)}`, at: r.at, checks: r.checks })),
        webhookTimeoutMs: () => scenario.webhooks.timeoutMs,
        repeatWindowMs: () => scenario.review.repeatWindowMs,
        now: (merchantId) => clocks.now(merchantId),
        retention: () => webhooks.retention,
      },
      config.review,
    ),
    changes,
    coverage: new Coverage(store, () => scenario),
    counters: new Set(),
    setScenario: (next) => {
      scenario = next;
    },
    replaceState: (next, clockNow) => replaceState(core, next, clockNow),
    replaceMerchant: (slice, counters) => replaceMerchant(core, slice, counters),
    resetState: async () => {
      scenario = configuredScenario;
      const at = startTime ?? clock.now();
      core.replaceState(stateFromFixtures(fixtures, at), at);
      await store.persist();
    },
    rateLimit: (name) => (config.rateLimits ? scenario.limits[name] : null),
    close: () => {
      if (!stopped) {
        stopped = true;
        stopActivity(core);
      }
      // A close that could not write everything may be tried again; one that did is done.
      closed ??= writeOut(core).catch((err: unknown) => {
        closed = null;
        throw err;
      });
      return closed;
    },
  };
  wire(core);
  // Whatever fell due while the sandbox was stopped happens now.
  await scheduler.runDue();
  return core;
}

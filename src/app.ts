import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { pino } from 'pino';
import { pinoHttp } from 'pino-http';
import { balanceRouter } from './api/balance.js';
import { beneficiariesRouter } from './api/beneficiaries.js';
import { checkoutRouter } from './api/checkout.js';
import { verificationRouter } from './api/verification.js';
import { sendError } from './api/envelopes.js';
import { payoutsRouter } from './api/payouts.js';
import { notFound } from './api/routing.js';
import { Clock, DEFAULT_MANUAL_START } from './clock.js';
import { Journal } from './control/journal.js';
import { resolveConfig, type SandboxOptions } from './config.js';
import { controlRouter } from './control/router.js';
import { BusinessError, CheckoutError, RequestError, transportMessage } from './errors.js';
import { fixturesFromValue, loadFixtures, stateFromFixtures, type Fixtures } from './fixtures.js';
import { runBeneficiaryActivation } from './domain/beneficiaries.js';
import { runCheckoutStep } from './domain/checkout.js';
import { PayoutEvents, type DomainContext } from './domain/context.js';
import { runPayoutStep } from './domain/lifecycle.js';
import type { Sandbox } from './sandbox.js';
import { loadScenario, scenarioFromValue, type Scenario } from './scenario/scenario.js';
import type { ScenarioFile } from './scenario/schema.js';
import { Scheduler } from './scheduler.js';
import { WebhookOutbox } from './webhooks/outbox.js';
import { Repo } from './store/repo.js';
import { openStore } from './store/store.js';
import { SandboxRandom } from './random.js';

export type SandboxApp = Express & { sandbox: Sandbox };

const BODY_LIMIT = '100kb';

function fixturesOf(source: string | Fixtures): Promise<Fixtures> {
  return typeof source === 'string' ? loadFixtures(source) : Promise.resolve(fixturesFromValue(source, 'fixtures'));
}

function scenarioOf(source: string | ScenarioFile): Promise<Scenario> {
  return typeof source === 'string' ? loadScenario(source) : Promise.resolve(scenarioFromValue(source, null));
}

/**
 * The sandbox as an Express app, not listening: for supertest, or for the CLI to listen with.
 * Invalid options or fixtures reject before anything is written.
 */
export async function createApp(options: SandboxOptions = {}): Promise<SandboxApp> {
  const config = resolveConfig(options);
  const fixtures = await fixturesOf(config.fixtures);
  let scenario = await scenarioOf(config.scenario);
  const clock = new Clock({ mode: config.clock, speed: config.speed, start: config.clockStart ?? undefined });
  const random = new SandboxRandom(config.seed ?? undefined);
  const { store, created } = await openStore(config.data, () => stateFromFixtures(fixtures, clock.now()));
  if (clock.mode === 'manual' && store.state.clock.now !== null) clock.set(store.state.clock.now);
  if (created) await store.persist();
  const repo = new Repo(store);
  const logger = pino({
    level: config.logLevel,
    base: { name: 'payout-sandbox' },
    redact: ['req.headers["x-api-key"]', 'req.headers["x-api-secret"]', 'req.headers.accesstoken', 'req.headers.authorization'],
  });

  const scheduler = new Scheduler(clock, () => store.state, () => store.persist(), logger);
  const events = new PayoutEvents();
  const domain: DomainContext = { repo, clock, random, scheduler, events, logger, scenario: () => scenario };
  const webhooks = new WebhookOutbox({ ...domain, persist: () => store.persist(), fallbackUrl: config.webhookUrl });
  const configuredScenario = scenario;
  const startTime = config.clock === 'manual' ? (config.clockStart ?? DEFAULT_MANUAL_START) : null;

  let closed = false;
  const sandbox: Sandbox = {
    ...domain,
    config,
    store,
    webhooks,
    setScenario: (next) => {
      scenario = next;
    },
    journal: new Journal(clock, config.journalSize),
    limiterStores: new Set(),
    replaceState: (next, clockNow) => {
      store.state = next;
      clock.reset(clockNow);
      if (clock.mode === 'manual') next.clock.now = clockNow;
      repo.reindex();
      scheduler.reload();
      webhooks.replaced();
      for (const s of sandbox.limiterStores) s.resetAll();
    },
    reset: async () => {
      scenario = configuredScenario;
      const at = startTime ?? clock.now();
      sandbox.replaceState(stateFromFixtures(fixtures, at), at);
      sandbox.journal.clear();
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
  events.onPayoutStatus((payout) => webhooks.enqueue(payout));
  scheduler.on('payout_step', (item) => runPayoutStep(domain, item));
  scheduler.on('beneficiary_activation', (item) => runBeneficiaryActivation(domain, item));
  scheduler.on('checkout_step', (item) => runCheckoutStep(domain, item));
  scheduler.on('webhook_attempt', (item) => webhooks.attempt(item));
  scheduler.reload();
  webhooks.resume();
  // Whatever fell due while the sandbox was stopped happens now.
  await scheduler.runDue();

  const app = express() as SandboxApp;
  app.sandbox = sandbox;
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(
    pinoHttp({
      logger,
      genReqId: (_req, res) => {
        const id = randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customProps: (_req, res) => ({ merchant: (res as express.Response).locals?.merchant?.merchant_id ?? null }),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(sandbox.journal.middleware());
  app.use(express.json({ limit: BODY_LIMIT }));
  app.use(express.urlencoded({ extended: true, limit: BODY_LIMIT }));
  app.use(controlRouter(sandbox));
  app.use(payoutsRouter(sandbox));
  app.use(balanceRouter(sandbox));
  app.use(beneficiariesRouter(sandbox));
  app.use(verificationRouter(sandbox));
  app.use(checkoutRouter(sandbox));
  app.use(notFound);
  app.use(errorHandler(sandbox));
  return app;
}

interface HttpError extends Error {
  status?: number;
  type?: string;
}

function errorHandler(sb: Sandbox): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (err instanceof BusinessError || err instanceof RequestError || err instanceof CheckoutError) return sendError(res, err);
    const e = err as HttpError;
    if (e?.type === 'entity.parse.failed') return sendError(res, new RequestError(400, 'The request body is not valid JSON.'));
    if (e?.type === 'entity.too.large') {
      return sendError(res, new RequestError(413, 'The request body is larger than the 100 kB limit.'));
    }
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      return sendError(res, new RequestError(e.status, e.message || 'The request could not be read.'));
    }
    sb.logger.error({ err, reqId: req.id }, 'internal error');
    sendError(res, new RequestError(500, transportMessage(500)));
  };
}

import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { SANDBOX_RULE_HEADER } from '../../contract/envelopes.js';
import { RequestError } from '../../errors.js';
import { TransitionRefused, type Admin, type ScenarioChoice } from '../../runtime/admin.js';
import type { Sandbox } from '../../runtime/sandbox.js';
import { secretEquals } from '../auth.js';
import { limiter } from '../ratelimit.js';
import { Clock } from '../../clock.js';
import { noteRefusal } from '../requests.js';
import { inputParser } from '../validation.js';
import { openApiDocument } from '../../contract/openapi.js';
import { coverageJunit, coverageMarkdown, type CoverageReport } from '../../runtime/coverage.js';
import * as body from './schemas.js';
import { changeStream, dashboardFiles } from './dashboard.js';

/** Control-API failures are plain `{ error }` with the HTTP status (not the emulated API's envelopes). */
function controlErrorHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof TransitionRefused) noteRefusal(res, err.refusal);
  if (err instanceof RequestError && err.httpCode < 500) {
    res.set(err.headers).status(err.httpCode).json({ error: err.message });
    return;
  }
  next(err);
}

/** A coverage report as asked: `?format=json|markdown|junit`, and `&uncovered=failed|skipped` for JUnit. */
function coverageAnswer(req: Request, report: CoverageReport): Answer {
  const q = req.query as Record<string, string | undefined>;
  const format = q.format ?? 'json';
  if (format === 'json') return report;
  if (format === 'markdown') return { status: 200, headers: { 'Content-Type': 'text/markdown; charset=utf-8' }, text: coverageMarkdown(report), answer: true };
  if (format === 'junit') {
    const uncovered = q.uncovered ?? 'failed';
    if (uncovered !== 'failed' && uncovered !== 'skipped') throw new RequestError(400, 'The uncovered field must be failed or skipped.');
    return { status: 200, headers: { 'Content-Type': 'application/xml; charset=utf-8' }, text: coverageJunit(report, uncovered), answer: true };
  }
  throw new RequestError(400, 'The format field must be json, markdown or junit.');
}

/** What a route answers: a JSON body, with a status other than 200 or headers where needed. */
type Answer = unknown | { status: number; headers?: Record<string, string>; body?: unknown; text?: string; answer: true };
type Route = [method: 'get' | 'post' | 'put' | 'patch', path: string, handle: (req: Request) => Answer | Promise<Answer>];

const created = (b: unknown, headers?: Record<string, string>) => ({ status: 201, headers, body: b, answer: true as const });
const accepted = (b: unknown) => ({ status: 202, body: b, answer: true as const });
const param = (req: Request, name: string) => String(req.params[name]);
const merchantIdOf = (req: Request) => param(req, 'merchant_id');
const limitOf = (req: Request) => Number((req.query as Record<string, string | undefined>).limit ?? 100) || 100;

const parse = {
  advance: inputParser(body.AdvanceClockBody),
  checkout: inputParser(body.CreateCheckoutBody),
  merchant: inputParser(body.CreateMerchantBody),
  patchMerchant: inputParser(body.PatchMerchantBody),
  credit: inputParser(body.CreditBody),
  accountStatus: inputParser(body.AccountStatusBody),
  payoutStatus: inputParser(body.PayoutStatusBody),
  beneficiaryStatus: inputParser(body.BeneficiaryStatusBody),
  checkoutStatus: inputParser(body.CheckoutStatusBody),
  scenario: inputParser(body.ScenarioBody),
  snapshot: inputParser(body.SnapshotBody),
  retention: inputParser(body.RetentionBody),
};

/** The sandbox as a whole: health, reset, clock, scenario, snapshots, the API description. */
function sandboxRoutes(admin: Admin): Route[] {
  return [
    ['get', '/health', () => admin.health()],
    ['post', '/reset', () => admin.reset()],
    ['get', '/clock', () => admin.clock()],
    ['post', '/clock/advance', (req) => admin.advance(parse.advance(req.body).by)],
    ['post', '/clock/next', () => admin.next()],
    ['put', '/scenario', (req) => admin.useScenario(parse.scenario(req.body) as ScenarioChoice)],
    ['get', '/openapi.json', () => openApiDocument()],
    ['get', '/snapshots', () => admin.snapshots()],
    ['post', '/snapshots', (req) => created(admin.snapshot(parse.snapshot(req.body).name))],
    ['post', '/snapshots/:name/restore', (req) => admin.restore(param(req, 'name'))],
  ];
}

/** Merchants and their accounts. */
function merchantRoutes(admin: Admin): Route[] {
  return [
    ['post', '/merchants', async (req) => created(await admin.createMerchant(parse.merchant(req.body)))],
    ['patch', '/merchants/:email', (req) => admin.patchMerchant(param(req, 'email'), parse.patchMerchant(req.body))],
    ['post', '/accounts/:account_no/credit', (req) => admin.credit(param(req, 'account_no'), parse.credit(req.body).amount)],
    ['patch', '/accounts/:account_no', (req) => admin.setAccountStatus(param(req, 'account_no'), parse.accountStatus(req.body).status)],
    ['get', '/accounts/:account_no/ledger', (req) => admin.ledger(param(req, 'account_no'))],
  ];
}

/** What the dashboard lists and opens (all of it scriptable as well). */
function browseRoutes({ browse }: Admin): Route[] {
  return [
    ['get', '/merchants', () => browse.merchants()],
    ['get', '/merchants/:merchant_id/payouts', (req) => {
      const q = req.query as Record<string, string | undefined>;
      const cursor = q.cursor === undefined ? undefined : Number(q.cursor);
      return browse.payouts(merchantIdOf(req), { status: q.status, mode: q.mode, van: q.van, limit: limitOf(req), cursor: Number.isInteger(cursor) ? cursor : undefined });
    }],
    ['get', '/payouts/:ref_id', (req) => browse.payout(param(req, 'ref_id'))],
    ['get', '/merchants/:merchant_id/beneficiaries', (req) => browse.beneficiaries(merchantIdOf(req))],
    ['get', '/merchants/:merchant_id/verifications', (req) => browse.verifications(merchantIdOf(req))],
    ['get', '/merchants/:merchant_id/checkout', (req) => browse.checkout(merchantIdOf(req))],
    ['get', '/demos', () => browse.demos()],
  ];
}

/** One merchant's world on its own: its clock, snapshots and reset. */
function tenantRoutes({ merchants }: Admin): Route[] {
  return [
    ['get', '/merchants/:merchant_id/clock', (req) => merchants.clock(merchantIdOf(req))],
    ['post', '/merchants/:merchant_id/clock/next', (req) => merchants.next(merchantIdOf(req))],
    ['post', '/merchants/:merchant_id/clock/advance', (req) => merchants.advance(merchantIdOf(req), parse.advance(req.body).by)],
    ['get', '/merchants/:merchant_id/snapshots', (req) => merchants.snapshots(merchantIdOf(req))],
    ['post', '/merchants/:merchant_id/snapshots', (req) => created(merchants.snapshot(merchantIdOf(req), parse.snapshot(req.body).name))],
    ['post', '/merchants/:merchant_id/snapshots/:name/restore', (req) => merchants.restore(merchantIdOf(req), param(req, 'name'))],
    ['post', '/merchants/:merchant_id/reset', (req) => merchants.reset(merchantIdOf(req))],
  ];
}

/** Forced changes of records, checkout transactions, webhook deliveries, the request journal. */
function recordRoutes(admin: Admin): Route[] {
  return [
    ['post', '/payouts/:ref_id/status', (req) => {
      const b = parse.payoutStatus(req.body);
      return admin.forcePayoutStatus(param(req, 'ref_id'), b.status, b.bank_res_msg);
    }],
    ['post', '/beneficiaries/:id/status', (req) => {
      parse.beneficiaryStatus(req.body);
      return admin.activateBeneficiary(param(req, 'id'));
    }],
    ['post', '/checkout/transactions', async (req) => {
      const { transaction, rule } = await admin.createCheckout(parse.checkout(req.body));
      return created(transaction, { [SANDBOX_RULE_HEADER]: rule });
    }],
    ['post', '/checkout/transactions/:id/status', (req) => admin.setCheckoutStatus(param(req, 'id'), parse.checkoutStatus(req.body).status)],
    ['get', '/webhooks', (req) => {
      const q = req.query as Record<string, string | undefined>;
      return admin.deliveries({ refId: q.ref_id, merchantId: q.merchant_id, limit: limitOf(req) });
    }],
    ['post', '/webhooks/settle', () => admin.settleWebhooks()],
    ['get', '/webhooks/retention', () => admin.retention()],
    ['put', '/webhooks/retention', (req) => admin.setRetention(parse.retention(req.body).max_deliveries_per_merchant)],
    ['post', '/webhooks/:delivery_id/redeliver', async (req) => accepted(await admin.redeliver(param(req, 'delivery_id')))],
    ['get', '/coverage', (req) => coverageAnswer(req, admin.coverage())],
    ['get', '/merchants/:merchant_id/coverage', (req) => coverageAnswer(req, admin.coverage(param(req, 'merchant_id')))],
    ['get', '/requests', (req) => admin.requests(limitOf(req))],
    ['get', '/requests/:request_id', (req) => admin.request(param(req, 'request_id'))],
  ];
}

function isAnswer(a: unknown): a is { status: number; headers?: Record<string, string>; body?: unknown; text?: string } {
  return typeof a === 'object' && a !== null && (a as { answer?: unknown }).answer === true;
}

function handler(handle: Route[2]): RequestHandler {
  return async (req, res) => {
    const a = await handle(req);
    if (!isAnswer(a)) {
      res.json(a);
      return;
    }
    if (a.headers) res.set(a.headers);
    if (a.text !== undefined) res.status(a.status).send(a.text);
    else res.status(a.status).json(a.body);
  };
}

/** Failed admin-token attempts a client address may make per window before it is refused (429). */
export const TOKEN_FAILURES = { limit: 20, windowMs: 60_000 };

/**
 * `Authorization: Bearer <token>` on every control route when an admin token is set, compared in
 * constant time. Failed attempts count per client address on a window of real time (the same
 * limiter as the reference's limits, on a real clock): past TOKEN_FAILURES.limit the address is
 * answered 429 with Retry-After until the window ends, even with the right token.
 */
function adminAuth(token: string | null): RequestHandler[] {
  if (token === null) return [];
  const real = new Clock({ mode: 'real', speed: 1 });
  const failures = limiter(
    () => real,
    () => TOKEN_FAILURES,
    (req) => req.socket.remoteAddress ?? 'unknown',
    undefined,
    { message: 'Too many failed admin-token attempts from this address; try again later.', counts: (_req, res) => res.statusCode === 401 },
  );
  const check: RequestHandler = (req, _res, next) => {
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    next(secretEquals(given, token) ? undefined : new RequestError(401, 'The control API needs Authorization: Bearer <admin token>.'));
  };
  return [failures, check];
}

/** The sandbox's own surface, apart from the emulated API (SPEC 9), under `/__sandbox`. */
export function controlRouter(sb: Sandbox): Router {
  const router = Router();
  const prefix = '/__sandbox';
  // The dashboard's files hold no data: they load without the token, and the page asks for it.
  router.use(`${prefix}/ui`, dashboardFiles());
  for (const guard of adminAuth(sb.config.adminToken)) router.use(prefix, guard);
  router.get(`${prefix}/events`, changeStream(sb.changes));
  const routes = [...sandboxRoutes(sb.admin), ...merchantRoutes(sb.admin), ...browseRoutes(sb.admin), ...tenantRoutes(sb.admin), ...recordRoutes(sb.admin)];
  for (const [method, path, handle] of routes) {
    router[method](`${prefix}${path}`, handler(handle));
  }
  router.use(prefix, (req, _res, next) => next(new RequestError(404, `No control route ${req.method} ${req.originalUrl.split('?')[0]}.`)));
  router.use(prefix, controlErrorHandler);
  return router;
}

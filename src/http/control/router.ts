import { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import { type Admin, TransitionRefused } from '../../admin/admin.js';
import { ChaosBody, OutageBody } from '../../admin/failure-admin.js';
import * as inputs from '../../admin/inputs.js';
import { parse } from '../../admin/inputs.js';
import type { Sandbox } from '../../admin/sandbox.js';
import { Clock } from '../../clock.js';
import { SANDBOX_RULE_HEADER } from '../../contract/envelopes.js';
import { openApiDocument } from '../../contract/openapi.js';
import { RequestError } from '../../errors.js';
import { type CoverageGroup, coverageGroupOf } from '../../observe/catalogue.js';
import { type CoverageReport, coverageJunit, coverageMarkdown, coverageShortfall } from '../../observe/coverage.js';
import { FINDINGS_PAGE, type Page, type ReviewReport, reviewJunit, reviewMarkdown, reviewShortfall } from '../../observe/review/report.js';
import { secretEquals } from '../auth.js';
import { limiter } from '../ratelimit.js';
import { noteRefusal } from '../requests.js';
import { changeStream, dashboardFiles } from './dashboard.js';
import { listenRoutes } from './listen-routes.js';
import { controlOpenApi } from './openapi.js';
import type { Answer, Route } from './route.js';
import { traceRoutes } from './trace-routes.js';
import { webhookRoutes } from './webhook-routes.js';

/** Control-API failures are plain `{ error }` with the HTTP status (not the emulated API's envelopes). */
function controlErrorHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof TransitionRefused) noteRefusal(res, err.refusal);
  if (err instanceof RequestError && err.httpCode < 500) {
    res.set(err.headers).status(err.httpCode).json({ error: err.message });
    return;
  }
  next(err);
}

/** HTTP status of a report whose gate (`?min=`, `?fail_on=`) fails: `curl --fail-with-body` is then the whole CI gate step. */
export const GATE_FAILED_STATUS = 422;

/**
 * A report answered as asked, with its gate's verdict when one was asked: 200 and
 * `X-Sandbox-Gate: passed`, or 422 and `X-Sandbox-Gate: failed` with the reason in
 * `X-Sandbox-Gate-Reason`; the JSON gains `gate: { passed, reason }`.
 */
function gated(asked: boolean, failure: string | null, answer: { json: () => object } | { type: string; text: string }, gate = ''): Answer {
  const status = asked && failure !== null ? GATE_FAILED_STATUS : 200;
  const gateHeaders: Record<string, string> = asked
    ? { 'X-Sandbox-Gate': failure === null ? 'passed' : 'failed', ...(failure === null ? {} : { 'X-Sandbox-Gate-Reason': failure }) }
    : {};
  if ('json' in answer) {
    const body = answer.json();
    if (!asked) return body;
    return { status, headers: gateHeaders, body: { gate: { passed: failure === null, reason: failure }, ...body }, answer: true };
  }
  const text = !asked ? answer.text : answer.type === XML ? withGateCase(answer.text, gate, failure) : withGateLine(answer.text, gate, failure);
  return { status, headers: { 'Content-Type': answer.type, ...gateHeaders }, text, answer: true };
}

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Markdown with the gate's verdict first: a CI log (or `curl --fail-with-body`) shows why. */
function withGateLine(markdown: string, gate: string, failure: string | null): string {
  return `${failure === null ? `**Gate passed** (${gate}).` : `**Gate failed** (${gate}): ${failure}.`}\n\n${markdown}`;
}

/** JUnit with one more test case, the gate itself, failed with its reason when it fails (the totals counting it). */
function withGateCase(junit: string, gate: string, failure: string | null): string {
  const testcase = `    <testcase classname="payout-sandbox.gate" name="${xmlText(gate)}">${failure === null ? '' : `<failure message="${xmlText(failure)}"/>`}</testcase>`;
  const suite = [`  <testsuite name="payout-sandbox gate" tests="1" failures="${failure === null ? 0 : 1}" skipped="0">`, testcase, '  </testsuite>'].join(
    '\n',
  );
  return junit
    .replace(/<testsuites\b[^>]*>/, (root) =>
      root
        .replace(/\btests="(\d+)"/, (_m, n) => `tests="${Number(n) + 1}"`)
        .replace(/\bfailures="(\d+)"/, (_m, n) => `failures="${Number(n) + (failure === null ? 0 : 1)}"`),
    )
    .replace('</testsuites>', `${suite}\n</testsuites>`);
}

const MARKDOWN = 'text/markdown; charset=utf-8';
const XML = 'application/xml; charset=utf-8';

/** A coverage report as asked: `?format=json|markdown|junit`, and `&uncovered=failed|skipped` for JUnit; `&min=N` gates it. */
function coverageAnswer(req: Request, report: (ignore: CoverageGroup[]) => CoverageReport): Answer {
  const { format = 'json', uncovered: how = 'failed', ignore, min } = parse.coverageQuery(req.query);
  const uncovered = how === 'skipped' ? 'skipped' : 'failed';
  const r = report(
    ignore === undefined
      ? []
      : ignore
          .split(',')
          .filter((g) => g !== '')
          .map((g) => coverageGroupOf(g) as CoverageGroup),
  );
  const failure = coverageShortfall(r, min ?? null, 'min');
  const asked = min !== undefined;
  const gate = `coverage min=${min}`;
  if (format === 'json') return gated(asked, failure, { json: () => r });
  if (format === 'markdown') return gated(asked, failure, { type: MARKDOWN, text: coverageMarkdown(r) }, gate);
  return gated(asked, failure, { type: XML, text: coverageJunit(r, uncovered) }, gate);
}

const created = (b: unknown, headers?: Record<string, string>) => ({ status: 201, headers, body: b, answer: true as const });
const accepted = (b: unknown) => ({ status: 202, body: b, answer: true as const });
const param = (req: Request, name: string) => String(req.params[name]);
const merchantIdOf = (req: Request) => param(req, 'merchant_id');

/** The sandbox as a whole: health, reset, clock, scenario, snapshots, the API descriptions. */
function sandboxRoutes(admin: Admin): Route[] {
  return [
    ['get', '/health', { summary: 'Health: { ok, version, pid, v8_flags } (no admin token needed).' }, () => admin.health()],
    ['post', '/reset', { summary: 'Back to the fixtures and scenario; clock back to its start; outbox, snapshots and journal emptied.' }, () => admin.reset()],
    ['get', '/clock', { summary: 'The sandbox clock: { now, mode, speed }.' }, () => admin.clock()],
    [
      'post',
      '/clock/advance',
      { summary: 'Manual clock: fires every due transition and delivery in time order.', body: inputs.AdvanceClockBody },
      (req) => admin.advance(req.body ?? {}),
    ],
    ['post', '/clock/next', { summary: 'Manual clock: on to the next scheduled event (409 when none).' }, () => admin.next()],
    [
      'put',
      '/scenario',
      { summary: 'Puts a scenario in force: a file of scenarios/ by name, or an inline one.', body: inputs.ScenarioBody },
      (req) => admin.useScenario(req.body),
    ],
    ['get', '/openapi.json', { summary: 'OpenAPI 3.1 of the emulated API.' }, () => openApiDocument()],
    ['get', '/control-openapi.json', { summary: 'OpenAPI 3.1 of this control API.' }, () => controlOpenApi(controlRoutes(admin))],
    ['get', '/snapshots', { summary: 'The whole-sandbox snapshots kept.' }, () => admin.snapshots()],
    [
      'post',
      '/snapshots',
      { summary: 'Saves the whole state, clock and scenario.', body: inputs.SnapshotBody, status: 201 },
      (req) => created(admin.snapshot(req.body ?? {})),
    ],
    ['post', '/snapshots/:name/restore', { summary: 'Brings a whole snapshot back.' }, (req) => admin.restore(param(req, 'name'))],
  ];
}

/** Merchants and their accounts. */
function merchantRoutes(admin: Admin): Route[] {
  return [
    [
      'post',
      '/merchants',
      { summary: 'A new isolated merchant with one funded ACTIVE VAN; answers its credentials.', body: inputs.CreateMerchantBody, status: 201 },
      async (req) => created(await admin.createMerchant(req.body ?? {})),
    ],
    [
      'patch',
      '/merchants/:merchant_id',
      { summary: "Changes a merchant's webhook URL or version or per-transaction limit (merchant id, or its e-mail).", body: inputs.PatchMerchantBody },
      (req) => admin.patchMerchant(merchantIdOf(req), req.body),
    ],
    [
      'post',
      '/merchants/:merchant_id/accounts',
      { summary: 'Another VAN of the merchant (opening balance in rupees, default 1,000,000; ACTIVE unless said).', body: inputs.AddAccountBody, status: 201 },
      async (req) => created(await admin.addAccount(merchantIdOf(req), req.body ?? {})),
    ],
    [
      'post',
      '/accounts/:account_no/credit',
      { summary: 'Adds funds (rupees) through the ledger.', body: inputs.CreditBody },
      (req) => admin.credit(param(req, 'account_no'), req.body ?? {}),
    ],
    [
      'patch',
      '/accounts/:account_no',
      { summary: "Sets an account's status.", body: inputs.AccountStatusBody },
      (req) => admin.setAccountStatus(param(req, 'account_no'), req.body ?? {}),
    ],
    [
      'get',
      '/accounts/:account_no/ledger',
      { summary: 'Every ledger entry with its running balance, and whether balance = sum.' },
      (req) => admin.ledger(param(req, 'account_no')),
    ],
  ];
}

/** What the dashboard lists and opens (all of it scriptable as well). */
function browseRoutes({ browse }: Admin): Route[] {
  return [
    ['get', '/merchants', { summary: 'Every merchant with its accounts, clock and payout count.' }, () => browse.merchants()],
    [
      'get',
      '/merchants/:merchant_id/payouts',
      { summary: "A page of a merchant's payouts, newest first.", query: inputs.PayoutsQuery },
      (req) => browse.payouts(merchantIdOf(req), req.query),
    ],
    [
      'get',
      '/payouts/:ref_id',
      { summary: 'One payout: record, rule, timeline (taken and scheduled), deliveries.' },
      (req) => browse.payout(param(req, 'ref_id')),
    ],
    [
      'get',
      '/merchants/:merchant_id/beneficiaries',
      { summary: "A merchant's beneficiaries, newest first." },
      (req) => browse.beneficiaries(merchantIdOf(req)),
    ],
    [
      'get',
      '/merchants/:merchant_id/verifications',
      { summary: "A merchant's verifications, newest first." },
      (req) => browse.verifications(merchantIdOf(req)),
    ],
    ['get', '/merchants/:merchant_id/checkout', { summary: "A merchant's checkout transactions, newest first." }, (req) => browse.checkout(merchantIdOf(req))],
    ['get', '/demos', { summary: "The scenario's magic amounts, grouped: the dashboard's demo picker." }, () => browse.demos()],
  ];
}

/** One merchant's world on its own: its clock, snapshots and reset. */
function tenantRoutes({ merchants }: Admin): Route[] {
  return [
    [
      'get',
      '/merchants/:merchant_id/clock',
      { summary: "A merchant's clock (its own, or the sandbox clock it follows)." },
      (req) => merchants.clock(merchantIdOf(req)),
    ],
    ['post', '/merchants/:merchant_id/clock/next', { summary: "On to the merchant's next scheduled event." }, (req) => merchants.next(merchantIdOf(req))],
    [
      'post',
      '/merchants/:merchant_id/clock/advance',
      { summary: "Moves only this merchant's clock, running its due items in order.", body: inputs.AdvanceClockBody },
      (req) => merchants.advance(merchantIdOf(req), req.body ?? {}),
    ],
    ['get', '/merchants/:merchant_id/snapshots', { summary: "The merchant's snapshots." }, (req) => merchants.snapshots(merchantIdOf(req))],
    [
      'post',
      '/merchants/:merchant_id/snapshots',
      { summary: "Saves one merchant's records, clock and counters.", body: inputs.SnapshotBody, status: 201 },
      (req) => created(merchants.snapshot(merchantIdOf(req), req.body ?? {})),
    ],
    [
      'post',
      '/merchants/:merchant_id/snapshots/:name/restore',
      { summary: "Brings one merchant's snapshot back." },
      (req) => merchants.restore(merchantIdOf(req), param(req, 'name')),
    ],
    [
      'post',
      '/merchants/:merchant_id/reset',
      { summary: 'Back to how the merchant was made (same credentials).' },
      (req) => merchants.reset(merchantIdOf(req)),
    ],
  ];
}

/** Forced changes of records, checkout transactions, webhook deliveries, coverage, the request journal. */
function recordRoutes(admin: Admin): Route[] {
  return [
    [
      'post',
      '/payouts/:ref_id/status',
      { summary: 'Forces a payout transition (webhook and refunds as usual).', body: inputs.PayoutStatusBody },
      (req) => admin.forcePayoutStatus(param(req, 'ref_id'), req.body ?? {}),
    ],
    [
      'post',
      '/beneficiaries/:id/status',
      { summary: 'Activates a Pending beneficiary.', body: inputs.BeneficiaryStatusBody },
      (req) => admin.activateBeneficiary(param(req, 'id'), req.body ?? {}),
    ],
    [
      'post',
      '/checkout/transactions',
      { summary: 'Creates an Initialized checkout transaction.', body: inputs.CreateCheckoutBody, status: 201 },
      async (req) => {
        const { transaction, rule } = await admin.createCheckout(req.body ?? {});
        return created(transaction, { [SANDBOX_RULE_HEADER]: rule });
      },
    ],
    [
      'post',
      '/checkout/transactions/:id/status',
      { summary: "Forces a checkout transaction's status.", body: inputs.CheckoutStatusBody },
      (req) => admin.setCheckoutStatus(param(req, 'id'), req.body ?? {}),
    ],
    ['get', '/webhooks', { summary: 'Webhook deliveries, newest first.', query: inputs.DeliveriesQuery }, (req) => admin.deliveries(req.query)],
    ['post', '/webhooks/settle', { summary: 'Waits for webhook attempts under way and what they schedule that is already due.' }, () => admin.settleWebhooks()],
    ['get', '/webhooks/retention', { summary: 'Finished deliveries kept per merchant.' }, () => admin.retention()],
    [
      'put',
      '/webhooks/retention',
      { summary: 'Changes the retention (the oldest finished go first).', body: inputs.RetentionBody },
      (req) => admin.setRetention(req.body ?? {}),
    ],
    [
      'post',
      '/webhooks/:delivery_id/redeliver',
      { summary: 'Sends a delivery again now.', status: 202 },
      async (req) => accepted(await admin.redeliver(param(req, 'delivery_id'))),
    ],
    [
      'get',
      '/coverage',
      { summary: 'Behaviour coverage of every merchant: JSON, Markdown or JUnit.', query: inputs.CoverageQuery },
      (req) => coverageAnswer(req, (ignore) => admin.coverage(null, ignore)),
    ],
    [
      'get',
      '/merchants/:merchant_id/coverage',
      { summary: "One merchant's behaviour coverage.", query: inputs.CoverageQuery },
      (req) => coverageAnswer(req, (ignore) => admin.coverage(merchantIdOf(req), ignore)),
    ],
    ['get', '/requests', { summary: 'The request journal, newest first.', query: inputs.RequestsQuery }, (req) => admin.requests(req.query)],
    [
      'get',
      '/requests/:request_id',
      { summary: 'One journal entry (id = the X-Request-Id answered): the rule that matched, any refused transition.' },
      (req) => admin.request(param(req, 'request_id')),
    ],
  ];
}

/**
 * The integration review as asked: `?format=json|markdown|junit`; the JSON a page of the findings
 * (`limit`, `offset`), the others all of them; `&fail_on=high|medium|low|unproven` gates it.
 */
function reviewAnswer(req: Request, report: (page?: Page) => ReviewReport): Answer {
  const { format = 'json', limit, offset, fail_on: failOn } = parse.reviewQuery(req.query);
  const r = format === 'json' ? report({ limit: limit ?? FINDINGS_PAGE.default, offset }) : report();
  const failure = reviewShortfall(r, failOn ?? null);
  const asked = failOn !== undefined;
  const gate = `review fail_on=${failOn}`;
  if (format === 'json') return gated(asked, failure, { json: () => r });
  if (format === 'markdown') return gated(asked, failure, { type: MARKDOWN, text: reviewMarkdown(r) }, gate);
  return gated(asked, failure, { type: XML, text: reviewJunit(r) }, gate);
}

/** Whether the merchants' integrations handled what the sandbox threw at them (docs/review.md). */
function reviewRoutes(admin: Admin): Route[] {
  return [
    [
      'get',
      '/review',
      { summary: 'The integration review of every merchant: findings, each naming its merchant.', query: inputs.ReviewQuery },
      (req) => reviewAnswer(req, (page) => admin.review(null, page)),
    ],
    [
      'get',
      '/merchants/:merchant_id/review',
      { summary: "One merchant's integration review: findings with their evidence.", query: inputs.ReviewQuery },
      (req) => reviewAnswer(req, (page) => admin.review(merchantIdOf(req), page)),
    ],
  ];
}

/** Failure on purpose: a merchant's seeded chaos, bank outage windows. */
function failureRoutes({ failures }: Admin): Route[] {
  return [
    ['get', '/merchants/:merchant_id/chaos', { summary: "A merchant's chaos (its own, the scenario's, or none)." }, (req) => failures.chaos(merchantIdOf(req))],
    [
      'put',
      '/merchants/:merchant_id/chaos',
      { summary: 'Turns seeded chaos on for a merchant (or changes it).', body: ChaosBody },
      (req) => failures.setChaos(merchantIdOf(req), req.body ?? {}),
    ],
    ['delete', '/merchants/:merchant_id/chaos', { summary: "Turns a merchant's own chaos off." }, (req) => failures.clearChaos(merchantIdOf(req))],
    ['get', '/outages', { summary: "Bank outage windows: the scenario's and those made here." }, () => failures.outages()],
    [
      'post',
      '/outages',
      { summary: 'A bank outage window: payouts to it refused, held or Unknown while it lasts.', body: OutageBody, status: 201 },
      async (req) => created(await failures.createOutage(req.body ?? {})),
    ],
    ['delete', '/outages/:id', { summary: 'Ends an outage window made here.' }, (req) => failures.deleteOutage(param(req, 'id'))],
  ];
}

/** Every control route, as the router mounts them and the control API's OpenAPI document lists them. */
export function controlRoutes(admin: Admin): Route[] {
  return [
    ...sandboxRoutes(admin),
    ...merchantRoutes(admin),
    ...browseRoutes(admin),
    ...tenantRoutes(admin),
    ...recordRoutes(admin),
    ...failureRoutes(admin),
    ...webhookRoutes(admin),
    ...listenRoutes(admin),
    ...reviewRoutes(admin),
    ...traceRoutes(admin),
  ];
}

function isAnswer(a: unknown): a is { status: number; headers?: Record<string, string>; body?: unknown; text?: string } {
  return typeof a === 'object' && a !== null && (a as { answer?: unknown }).answer === true;
}

function handler(handle: Route[3]): RequestHandler {
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
  const routes = controlRoutes(sb.admin);
  // Health reveals nothing and is what container health checks and load balancers ask: no token.
  const open = (path: string) => path === '/health';
  for (const [method, path, , handle] of routes.filter(([, path]) => open(path))) router[method](`${prefix}${path}`, handler(handle));
  for (const guard of adminAuth(sb.config.adminToken)) router.use(prefix, guard);
  router.get(`${prefix}/events`, changeStream(sb.changes));
  for (const [method, path, , handle] of routes.filter(([, path]) => !open(path))) router[method](`${prefix}${path}`, handler(handle));
  router.use(prefix, (req, _res, next) => next(new RequestError(404, `No control route ${req.method} ${req.originalUrl.split('?')[0]}.`)));
  router.use(prefix, controlErrorHandler);
  return router;
}

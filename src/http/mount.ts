import { type TSchema, Type } from '@sinclair/typebox';
import type { Express, Request, RequestHandler, Response, Router } from 'express';
import type { Sandbox } from '../admin/sandbox.js';
import type { BehaviourId } from '../behaviours.js';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { inputParser } from '../contract/parse.js';
import { BY_NAME_RULE } from '../contract/schemas.js';
import { decideFault, faultsPossible } from '../domain/faults.js';
import { CheckoutError, invalidCredentials, MESSAGES } from '../errors.js';
import { isLoopback } from '../sandbox/config.js';
import type { Merchant } from '../store/state.js';
import { authenticateCheckout, authenticateDashboard, checkoutAuthReason, dashboardAuthReason } from './auth.js';
import { recordFact } from './facts.js';
import { throughFault } from './faults.js';
import { methodNotAllowed } from './routing.js';
import { inSequence, routeKey } from './sequence.js';

/** What an operation's handler gets: the authenticated merchant and the parsed input. */
export interface Call<I> {
  req: Request;
  res: Response;
  merchant: Merchant;
  input: I;
}

/** An operation's behaviour; where it is, how it authenticates and what it takes come from OPERATIONS. */
export interface OperationHandler<I = never> {
  /** Middleware between parsing and `handle` (rate limits); `res.locals.call` holds the call. */
  before?: RequestHandler[];
  handle(call: Call<I>): void | Promise<void>;
}

export type OperationHandlers = Record<string, OperationHandler<never>>;

export function callOf<I>(res: Response): Call<I> {
  return res.locals.call as Call<I>;
}

/** A JSON body's fields, under the query string's non-empty ones (which win). */
function queryOrBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  const out: Record<string, unknown> = body && typeof body === 'object' && !Array.isArray(body) ? { ...body } : {};
  const query = req.query as Record<string, unknown>;
  for (const k in query) if (query[k] !== undefined && query[k] !== '') out[k] = query[k];
  return out;
}

/**
 * The parser of an operation's input. A request that takes `beneficiary_name` is checked under the
 * name rule of the scenario in force (it may change at run time: looked up per request).
 */
function checker(sb: Sandbox, schema: TSchema): (input: unknown) => unknown {
  const variants = BY_NAME_RULE.get(schema);
  if (!variants) return inputParser(schema);
  const byRule = { 'alphanumeric-and-spaces': inputParser(variants['alphanumeric-and-spaces']), alphanumeric: inputParser(variants.alphanumeric) };
  return (input) => byRule[sb.scenario().validation.beneficiaryName](input);
}

function inputReader(sb: Sandbox, op: Operation): (req: Request) => unknown {
  const check = checker(sb, op.body ?? op.query ?? op.params ?? Type.Object({}));
  // The checkout API has no validation envelope: an id it cannot read is one it does not know.
  const parse =
    op.security === 'checkout'
      ? (input: unknown) => {
          try {
            return check(input);
          } catch {
            throw new CheckoutError(404, MESSAGES.checkoutNotFound);
          }
        }
      : check;
  if (op.body) return (req) => parse(req.body);
  if (op.params) return (req) => parse(req.params);
  if (op.queryFromBody) return (req) => parse(queryOrBody(req));
  return (req) => parse(req.query);
}

/**
 * The operation's credentials, matched to one merchant, or its 401. A 401 counts as a behaviour
 * shown (`auth.checkout`, `auth.dashboard`) to the merchant the request names, if it names one.
 */
function authenticator(sb: Sandbox, op: Operation): (req: Request, res: Response) => Merchant {
  const revealing = sb.config.adminToken === null && isLoopback(sb.config.host);
  const refuse = (res: Response, claimed: Merchant | undefined, id: BehaviourId, reason: string, err: Error): never => {
    if (claimed) sb.events.behaviour(claimed.merchant_id, id);
    res.locals.authReason = reason;
    res.setHeader(AUTH_REASON_HEADER, reason.replace(/[^\x20-\x7e]/g, '?'));
    throw err;
  };
  if (op.security === 'checkout') {
    return (req, res) =>
      authenticateCheckout(sb.repo, req.headers) ??
      refuse(
        res,
        sb.repo.merchant(String(req.headers.merchantid ?? '')),
        'auth.checkout',
        checkoutAuthReason(sb.repo, req.headers, revealing),
        // The reference's one credentials failure, on this API too (not the checkout envelope).
        invalidCredentials(),
      );
  }
  return (req, res) =>
    authenticateDashboard(sb.repo, req.headers) ??
    refuse(
      res,
      sb.repo.merchantByEmailAddress(String(req.headers['x-merchant-email'] ?? '')),
      'auth.dashboard',
      dashboardAuthReason(sb.repo, req.headers, revealing),
      invalidCredentials(),
    );
}

/** Says why a 401 was answered (sandbox-only, like X-Sandbox-Rule); the body stays the reference's. */
export const AUTH_REASON_HEADER = 'X-Sandbox-Auth-Reason';

/**
 * Mounts every operation of the reference from its description (stripe-mock's way): path and
 * method, credentials by its security, input parsed by its schema; a known path asked with
 * another method answers 405. Each operation must have a handler. Returns each operation at a
 * path without parameters by `METHOD path` (`GET /api/v1/public/balance/check`), for `dispatch()`
 * to reach it in one lookup ahead of the routes.
 */
export function mountOperations(router: Router | Express, sb: Sandbox, handlers: OperationHandlers): Map<string, RequestHandler> {
  const exact = new Map<string, RequestHandler>();
  const reviewing = sb.review.enabled;
  const takeFact = (res: Response) => {
    if (res.locals.factTaken === true) return;
    res.locals.factTaken = true;
    recordFact(sb, res);
  };
  function factOnClose(this: Response) {
    takeFact(this);
  }
  for (const op of OPERATIONS) {
    const h = handlers[op.id];
    if (!h) throw new Error(`no handler for operation ${op.id}`);
    const authenticate = authenticator(sb, op);
    const read = inputReader(sb, op);
    const begin = (req: Request, res: Response) => {
      const merchant = authenticate(req, res);
      res.locals.merchant = merchant;
      res.locals.op = op.name;
      res.locals.arrivedAt = sb.clocks.now(merchant.merchant_id);
      res.locals.arrivedReal = Date.now();
      res.locals.call = { req, res, merchant, input: read(req) };
    };
    // The operation, unless a fault rule or chaos decides otherwise (no rule, no chaos: no question asked).
    const run = (res: Response): void | Promise<void> => {
      const call = callOf<never>(res);
      // Synchronous unless a fault is decided: a call no rule matches costs a few comparisons.
      const d = faultsPossible(sb, op.name) ? decideFault(sb, call.merchant.merchant_id, op.name, call.input) : null;
      if (d === null) return h.handle(call);
      return throughFault(sb, op, res, call.merchant, d).then((go) => (go ? h.handle(call) : undefined));
    };
    // The review's fact of the call (http/facts.ts): taken as the call is answered, while what it
    // reads is fresh in memory, when the operation answers (at once, or when its promise settles);
    // else when the connection closes (a fault that holds or drops it, a refusal thrown to the
    // error handler, a limit's 429). `closing`: the close listener is there already.
    const ran = (res: Response, closing: boolean): void | Promise<void> => {
      let r: void | Promise<void>;
      try {
        r = run(res);
      } catch (err) {
        if (!closing) res.on('close', factOnClose);
        throw err;
      }
      if (r === undefined && res.writableEnded) {
        takeFact(res);
        return;
      }
      if (!closing) res.on('close', factOnClose);
      return r?.then(() => {
        if (res.writableEnded) takeFact(res);
      });
    };
    const whole: RequestHandler = (req, res) => {
      begin(req, res);
      return reviewing ? ran(res, false) : run(res);
    };
    const start: RequestHandler = (req, res, next) => {
      begin(req, res);
      // A middleware in between (a limit) may answer itself: the fact is taken at the close then.
      if (reviewing) res.on('close', factOnClose);
      next();
    };
    const finish: RequestHandler = (_req, res) => (reviewing ? ran(res, true) : run(res));
    // Without middleware in between, one handler does it all (one router layer less per request).
    const chain = h.before?.length ? [start, ...h.before, finish] : [whole];
    if (!op.path.includes('{')) exact.set(routeKey(op.method.toUpperCase(), op.path), chain.length === 1 ? whole : inSequence(chain));
    router
      .route(op.path.replace(/\{(\w+)\}/g, ':$1'))
      [op.method](...chain)
      .all(methodNotAllowed);
  }
  return exact;
}

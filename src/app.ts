import express, { type ErrorRequestHandler, type Express } from 'express';
import { openSandbox, type Sandbox } from './admin/sandbox.js';
import { BusinessError, CheckoutError, FaultError, RequestError, transportMessage } from './errors.js';
import { balanceHandlers } from './http/api/balance.js';
import { beneficiaryHandlers } from './http/api/beneficiaries.js';
import { checkoutHandlers } from './http/api/checkout.js';
import { payoutHandlers } from './http/api/payouts.js';
import { verificationHandlers } from './http/api/verification.js';
import { favicon } from './http/control/dashboard.js';
import { controlRouter } from './http/control/router.js';
import { durableAnswers, STORE_ERROR_HEADER } from './http/durability.js';
import { guard } from './http/guard.js';
import { mountOperations } from './http/mount.js';
import { keepRawBody, requestId, requestTracking } from './http/requests.js';
import { sendError } from './http/respond.js';
import { notFound } from './http/routing.js';
import { dispatch, inSequence } from './http/sequence.js';
import type { SandboxOptions } from './sandbox/config.js';
import { StoreWriteError } from './store/store.js';

export type SandboxApp = Express & { sandbox: Sandbox };

/** The largest request body read (100 kB), and the one answer to a larger one. */
const BODY_LIMIT = 100 * 1024;
const tooLarge = () => new RequestError(413, 'The request body is larger than the 100 kB limit.');

/**
 * A body announced larger than the limit is refused at once (413), before any of it is read, and
 * the connection closed after the answer (the body parser would first read the whole body).
 */
function refuseOversized(req: express.Request, res: express.Response, next: express.NextFunction): void {
  res.set('Connection', 'close');
  res.once('finish', () => req.socket.destroySoon());
  next(tooLarge());
}

/**
 * A body that came but was not read (no Content-Type, or one neither parser takes: Python's
 * `requests.post(url, data=json.dumps(body))` sends none) is refused saying why, rather than
 * answered as if its fields were missing. Envelope A 400 on the emulated API, `{ error }` on the
 * control API.
 */
function refuseUnreadBody(req: express.Request, next: express.NextFunction): void {
  const type = req.headers['content-type'];
  const sent = type ? `Content-Type ${type.split(';')[0]}` : 'no Content-Type';
  // The control API takes JSON only (http/guard.ts); the emulated API forms too.
  const takes = req.url.startsWith('/__sandbox') ? 'application/json' : 'application/json or application/x-www-form-urlencoded';
  next(new RequestError(400, `The request body was not read (${sent}): send Content-Type: ${takes}.`));
}

/**
 * The request's body: none (a GET, most of the traffic: nothing to do), one announced too large
 * (413 at once), else read by the JSON parser, then the form parser, and refused if neither took it.
 */
function body(verify: typeof keepRawBody | undefined): express.RequestHandler {
  const json = express.json({ limit: BODY_LIMIT, verify });
  const form = express.urlencoded({ extended: true, limit: BODY_LIMIT, verify });
  return (req, res, next) => {
    const announced = req.headers['content-length'];
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if (announced === undefined && !chunked) return next();
    const length = Number(announced ?? 0);
    if (length > BODY_LIMIT) return refuseOversized(req, res, next);
    if (announced !== undefined && plainJson(req) && !req.readableEnded) return readJson(req, res, next, verify);
    // A body that came (not an empty one) and that neither parser took is refused.
    const read = () => (req.body === undefined && (length > 0 || chunked) ? refuseUnreadBody(req, next) : next());
    json(req, res, (err?: unknown) => (err ? next(err) : form(req, res, (e?: unknown) => (e ? next(e) : read()))));
  };
}

/** `Content-Type: application/json` (or with `charset=utf-8`), not compressed: what nearly every client sends. */
function plainJson(req: express.Request): boolean {
  const type = req.headers['content-type'];
  if (type === undefined || req.headers['transfer-encoding'] !== undefined) return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const t = type.toLowerCase();
  return t === 'application/json' || t === 'application/json; charset=utf-8' || t === 'application/json;charset=utf-8';
}

/** As express.json() answers a body that is not JSON: the error the error handler knows (`entity.parse.failed`). */
function notJson(): Error {
  return Object.assign(new Error('The request body is not valid JSON.'), { status: 400, type: 'entity.parse.failed' });
}

/**
 * The common case of express.json() (a plain JSON body of an announced length within the limit)
 * read without it: the chunks as they come, one JSON.parse, the same strictness (an object or an
 * array), the raw body to `verify` (the journal). The profile showed express.json()'s content-type
 * parsing, charset lookup and stream bookkeeping as a tenth of an initialize; anything else
 * (another type or charset, compression, no length) still goes through it.
 */
function readJson(req: express.Request, res: express.Response, next: express.NextFunction, verify: typeof keepRawBody | undefined): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  // A client gone mid-body: handed on as express.json() does, before the response closes (the
  // journal then records the 400 "request aborted" nobody is left to read).
  let ended = false;
  const aborted = () => {
    if (!ended) next(Object.assign(new Error('request aborted'), { status: 400, type: 'request.aborted' }));
    ended = true;
  };
  req.once('aborted', aborted);
  req.on('error', aborted);
  req.once('end', () => {
    if (ended) return;
    ended = true;
    const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    try {
      verify?.(req, res, raw);
    } catch (err) {
      return next(err);
    }
    // As express.json() decodes it: UTF-8 without a byte-order mark (a body of only one is
    // empty), JSON's own whitespace first.
    const text = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? raw.toString('utf8', 3) : raw.toString('utf8');
    if (text.length === 0) {
      req.body = {};
      return next();
    }
    const first = /^[ \t\n\r]*([^ \t\n\r])/.exec(text)?.[1];
    if (first !== '{' && first !== '[') return next(notJson());
    try {
      req.body = JSON.parse(text);
    } catch {
      return next(notJson());
    }
    next();
  });
}

/** GET or HEAD /favicon.ico: the icon, before anything else (not logged, not journaled). */
const faviconFirst: express.RequestHandler = (req, res, next) =>
  (req.method === 'GET' || req.method === 'HEAD') && /favicon\.ico/i.test(req.url) && /^\/favicon\.ico\/?$/i.test(req.path) ? favicon(req, res, next) : next();

/** The emulated API: every operation of the reference, mounted from its description on a router; each at a fixed path also by `METHOD path`. */
function mountApi(router: express.Router, sb: Sandbox): Map<string, express.RequestHandler> {
  return mountOperations(router, sb, {
    ...payoutHandlers(sb),
    ...balanceHandlers(sb),
    ...beneficiaryHandlers(sb),
    ...verificationHandlers(sb),
    ...checkoutHandlers(sb),
  });
}

/** Express only: mounts a running sandbox (from openSandbox) on a new app, not listening. */
export function appOf(sb: Sandbox): SandboxApp {
  const app = express() as SandboxApp;
  app.sandbox = sb;
  app.disable('x-powered-by');
  app.disable('etag');
  // The raw body is kept for the journal only while it is on.
  const verify = sb.journal.enabled ? keepRawBody : undefined;
  const api = express.Router();
  // What every request passes, as one layer: the icon (before logging), tracking, the guard, the
  // file store's rule, the body's size and parsing; then an operation of the emulated API at its
  // exact path, in one lookup. Anything else goes on to the API's routes (another case, a
  // trailing slash, HEAD, a path with parameters, a wrong method), then the control API.
  app.use(
    inSequence([
      faviconFirst,
      requestTracking(sb.logger, sb.journal, sb.clocks, sb.config.adminToken),
      guard(sb),
      ...(sb.store.kind === 'file' ? [durableAnswers(sb.store)] : []),
      body(verify),
      dispatch(mountApi(api, sb)),
    ]),
  );
  app.use(api);
  const control = controlRouter(sb);
  app.use((req, res, next) => (req.url.startsWith('/__sandbox') ? control(req, res, next) : next()));
  app.use(notFound);
  app.use(errorHandler(sb));
  return app;
}

/**
 * The sandbox as an Express app, not listening: for supertest, or for the CLI to listen with.
 * Given options, it opens the sandbox first (invalid options or files reject before anything is
 * written); given a Sandbox from openSandbox(), it only mounts it.
 */
export async function createApp(source: SandboxOptions | Sandbox = {}): Promise<SandboxApp> {
  return appOf(isSandbox(source) ? source : await openSandbox(source));
}

function isSandbox(x: SandboxOptions | Sandbox): x is Sandbox {
  return typeof (x as Sandbox).admin === 'object' && typeof (x as Sandbox).close === 'function';
}

/**
 * The behaviour a refused request showed its merchant (behaviour coverage): a business error, a
 * scripted fault, a refusal for its input. (Auth failures and rate limits count where they are
 * decided: the operation mounting and the limiter.)
 */
function coverError(sb: Sandbox, res: express.Response, err: BusinessError | RequestError | CheckoutError): void {
  const merchant = (res.locals.merchant as { merchant_id?: string } | undefined)?.merchant_id;
  if (merchant === undefined) return;
  if (err instanceof BusinessError) sb.events.behaviour(merchant, `error.${err.code}`);
  else if (err instanceof FaultError) sb.events.behaviour(merchant, `fault.${err.rule}`);
  else if (err instanceof RequestError && err.httpCode === 400) sb.events.behaviour(merchant, 'request.validation');
}

interface HttpError extends Error {
  status?: number;
  type?: string;
  charset?: string;
  encoding?: string;
}

/** An error that is the client's (a refusal of the reference, or a body that could not be read), as one; else null. */
function asRefusal(err: unknown): BusinessError | RequestError | CheckoutError | null {
  if (err instanceof BusinessError || err instanceof RequestError || err instanceof CheckoutError) return err;
  const e = err as HttpError;
  if (e?.type === 'entity.parse.failed') return new RequestError(400, 'The request body is not valid JSON.');
  if (e?.type === 'entity.too.large') return tooLarge();
  // Not read, as a body without a Content-Type is not: a 400 saying why (body-parser answers 415).
  if (e?.type === 'charset.unsupported') return new RequestError(400, `The request body was not read (charset ${e.charset ?? 'unknown'}): send it in UTF-8.`);
  if (e?.type === 'encoding.unsupported')
    return new RequestError(
      400,
      `The request body was not read (Content-Encoding ${e.encoding ?? 'unknown'}): send it uncompressed, or with gzip, deflate or br.`,
    );
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new RequestError(e.status, e.message || 'The request could not be read.');
  return null;
}

function errorHandler(sb: Sandbox): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    const refused = asRefusal(err);
    // Before its router, a control-API request's refusal (an unread body) is in its own shape too.
    if (refused instanceof RequestError && refused.httpCode < 500 && req.path.startsWith('/__sandbox')) {
      res.set(refused.headers).status(refused.httpCode).json({ error: refused.message });
      return;
    }
    if (refused) {
      coverError(sb, res, refused);
      return sendError(res, refused);
    }
    if (err instanceof StoreWriteError) {
      // The change stays in memory and is written when the store can (it is never shown before).
      sb.logger.warn({ reqId: requestId(req), reason: err.message }, 'a change could not be written: answered 500');
      res.set(STORE_ERROR_HEADER, err.message.replace(/[^\x20-\x7e]/g, '?'));
      return sendError(res, new RequestError(500, transportMessage(500)));
    }
    sb.logger.error({ err, reqId: requestId(req) }, 'internal error');
    sendError(res, new RequestError(500, transportMessage(500)));
  };
}

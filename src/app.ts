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
const refuseOversized: express.RequestHandler = (req, res, next) => {
  const length = Number(req.headers['content-length'] ?? 0);
  if (!(length > BODY_LIMIT)) return next();
  res.set('Connection', 'close');
  res.once('finish', () => req.socket.destroySoon());
  next(tooLarge());
};

/**
 * A body that came but was not read (no Content-Type, or one neither parser takes: Python's
 * `requests.post(url, data=json.dumps(body))` sends none) is refused saying why, rather than
 * answered as if its fields were missing. Envelope A 400 on the emulated API, `{ error }` on the
 * control API.
 */
const refuseUnreadBody: express.RequestHandler = (req, _res, next) => {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody || req.body !== undefined) return next();
  const type = req.headers['content-type'];
  const sent = type ? `Content-Type ${type.split(';')[0]}` : 'no Content-Type';
  // The control API takes JSON only (http/guard.ts); the emulated API forms too.
  const takes = req.url.startsWith('/__sandbox') ? 'application/json' : 'application/json or application/x-www-form-urlencoded';
  next(new RequestError(400, `The request body was not read (${sent}): send Content-Type: ${takes}.`));
};

/** The emulated API: every operation of the reference, mounted from its description on the app itself. */
function mountApi(app: Express, sb: Sandbox): void {
  mountOperations(app, sb, {
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
  app.get('/favicon.ico', favicon);
  app.use(requestTracking(sb.logger, sb.journal, sb.clocks));
  app.use(guard(sb));
  if (sb.store.kind === 'file') app.use(durableAnswers(sb.store));
  app.use(refuseOversized);
  // The raw body is kept for the journal only while it is on.
  const verify = sb.journal.enabled ? keepRawBody : undefined;
  app.use(express.json({ limit: BODY_LIMIT, verify }));
  app.use(express.urlencoded({ extended: true, limit: BODY_LIMIT, verify }));
  app.use(refuseUnreadBody);
  // The emulated API's routes first, so its requests meet nothing else; then the control API.
  mountApi(app, sb);
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
}

/** An error that is the client's (a refusal of the reference, or a body that could not be read), as one; else null. */
function asRefusal(err: unknown): BusinessError | RequestError | CheckoutError | null {
  if (err instanceof BusinessError || err instanceof RequestError || err instanceof CheckoutError) return err;
  const e = err as HttpError;
  if (e?.type === 'entity.parse.failed') return new RequestError(400, 'The request body is not valid JSON.');
  if (e?.type === 'entity.too.large') return tooLarge();
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

import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { SANDBOX_RULE_HEADER } from '../contract/envelopes.js';
import type { Journal, RefusalError, RefusedTransition } from '../observe/journal.js';
import type { Clocks } from '../schedule/clocks.js';

/** Notes a refused transition on the request's journal entry (the explain of `GET /__sandbox/requests/:id`). */
export function noteRefusal(res: Response, refusal: RefusedTransition): void {
  ((res.locals.refusals as RefusedTransition[] | undefined) ?? (res.locals.refusals = [])).push(refusal);
}

/**
 * Request ids in UUID form: a random version-4 prefix per process and a counter in the last
 * group. Unique within the process (and, by the prefix, across processes) and far cheaper than a
 * random UUID per request.
 */
const nextRequestId = (() => {
  const prefix = randomUUID().slice(0, 24);
  let n = 0;
  return () => prefix + (n++).toString(16).padStart(12, '0');
})();

/** The id requestTracking gave the request. */
export function requestId(req: Request): string {
  return (req as { id?: string }).id ?? '';
}

/** A URL for the log: the values of query parameters that look like credentials are redacted. */
function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  return url.slice(0, q + 1) + url.slice(q + 1).replace(/(^|&)([^=&]*(?:token|secret|key|pass|auth)[^=&]*)=[^&]*/gi, '$1$2=[redacted]');
}

function merchantOf(res: Response): string | null {
  return (res.locals.merchant as { merchant_id?: string } | undefined)?.merchant_id ?? null;
}

/**
 * Every request gets an id (`req.id`, answered as `X-Request-Id`). When the request is done, one
 * listener does what is switched on: the log line at `info` (`{ req: { id, method, url }, res: {
 * statusCode }, merchant, responseTime }`) and the journal entry (unless the journal is off,
 * `--journal-size 0`, or the request reads the journal). With both off, nothing but the id.
 */
export function requestTracking(logger: Logger, journal: Journal, clocks: Clocks, onEnd: ((res: Response) => void) | null = null): RequestHandler {
  const logging = logger.isLevelEnabled('info');
  // One listener function for every request (it reads the response it is called on), so a
  // request allocates no closure for it.
  function done(this: Response) {
    const req = this.req;
    const { started, at, journaled } = this.locals.tracking as { started: number; at: number; journaled: boolean };
    const ms = performance.now() - started;
    const status = this.headersSent ? this.statusCode : null;
    const id = requestId(req);
    onEnd?.(this);
    if (logging) {
      const line = {
        req: { id, method: req.method, url: loggedUrl(req.originalUrl) },
        res: { statusCode: status },
        merchant: merchantOf(this),
        responseTime: Math.round(ms),
      };
      logger.info(line, this.writableFinished ? 'request completed' : 'request aborted');
    }
    if (!journaled) return;
    const merchantId = merchantOf(this);
    journal.add({
      request_id: id,
      method: req.method,
      path: req.originalUrl.split('?')[0],
      merchant_id: merchantId,
      status,
      // The merchant's own time when it has a clock of its own; else the sandbox time at arrival.
      at: merchantId !== null && clocks.hasOwn(merchantId) ? clocks.now(merchantId) : at,
      latency_ms: Math.round(ms * 100) / 100,
      rule: (this.getHeader(SANDBOX_RULE_HEADER) as string | undefined) ?? null,
      refused_transitions: (this.locals.refusals as RefusedTransition[] | undefined) ?? [],
      ref_id: (this.locals.refId as string | undefined) ?? null,
      error: (this.locals.refusal as RefusalError | undefined) ?? null,
      auth_reason: (this.locals.authReason as string | undefined) ?? null,
      api: req.originalUrl.startsWith('/__sandbox') ? 'control' : 'emulated',
    });
  }
  return (req, res, next) => {
    const id = nextRequestId();
    (req as { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    const journaled = journal.enabled && !req.url.startsWith('/__sandbox/requests');
    if (!logging && !journaled && onEnd === null) return next();
    res.locals.tracking = { started: performance.now(), at: clocks.sandbox.now(), journaled };
    res.on('close', done);
    next();
  };
}

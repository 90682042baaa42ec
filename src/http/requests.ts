import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { SANDBOX_RULE_HEADER } from '../contract/envelopes.js';
import type { Exchange, Journal, RefusalError, RefusedTransition } from '../observe/journal.js';
import type { Clocks } from '../schedule/clocks.js';
import { pathOf } from './sequence.js';

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

/** The refused transitions of most requests: none (one array for all of them, read only). */
const NO_REFUSALS = Object.freeze([]) as unknown as RefusedTransition[];

/** The id requestTracking gave the request. */
export function requestId(req: Request): string {
  return (req as { id?: string }).id ?? '';
}

/** The forms the admin token can take in a URL (as sent, percent-encoded): loggedUrl redacts them wherever they are. */
function tokenForms(token: string | null): string[] {
  return token === null || token === '' ? [] : [...new Set([token, encodeURIComponent(token)])];
}

/**
 * A URL for the log: the values of query parameters that look like credentials are redacted, and
 * the admin token wherever it is (`secrets`: a client that put it in the path or another parameter).
 */
function loggedUrl(url: string, secrets: readonly string[]): string {
  for (const s of secrets) if (url.includes(s)) url = url.split(s).join('[redacted]');
  const q = url.indexOf('?');
  if (q < 0) return url;
  return url.slice(0, q + 1) + url.slice(q + 1).replace(/(^|&)([^=&]*(?:token|secret|key|pass|auth)[^=&]*)=[^&]*/gi, '$1$2=[redacted]');
}

/**
 * The body parsers' `verify`: keeps the request body as it came (before parsing, so a body that
 * is not valid JSON is kept too), for the journal's exchange; read only for the emulated API's
 * requests. Kept in `res.locals`, a dictionary already: a property added to the request object
 * itself would change its shape and slow every later access to it.
 */
export function keepRawBody(_req: IncomingMessage, res: ServerResponse, buf: Buffer): void {
  (res as Response).locals.rawBody = buf;
}

/** The request and the answer as sent (the answer's body as respond.ts sent it), for a trace. */
function exchangeOf(res: Response, req: Request, cap: number): Exchange {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const raw = res.locals.rawBody as Buffer | undefined;
  const sent = res.headersSent;
  const body = sent ? (res.locals.body as string | undefined) : undefined;
  return {
    real_at: Date.now(),
    search: q < 0 ? '' : url.slice(q + 1),
    req_headers: req.headers,
    req_body: raw === undefined ? null : raw.toString('utf8', 0, Math.min(raw.length, cap)),
    req_body_size: raw === undefined ? 0 : raw.length,
    res_headers: sent ? res.getHeaders() : {},
    res_body: body ?? null,
    res_body_size: body === undefined ? 0 : Buffer.byteLength(body),
    bodies_kept: true,
  };
}

function merchantOf(res: Response): string | null {
  return (res.locals.merchant as { merchant_id?: string } | undefined)?.merchant_id ?? null;
}

/**
 * Every request gets an id (`req.id`, answered as `X-Request-Id`). When the request is done, one
 * function does what is switched on: the log line at `info` (`{ req: { id, method, url }, res: {
 * statusCode }, merchant, responseTime }`) and the journal entry (unless the journal is off,
 * `--journal-size 0`, or the request reads the journal). With both off, nothing but the id.
 */
export function requestTracking(logger: Logger, journal: Journal, clocks: Clocks, adminToken: string | null = null): RequestHandler {
  const logging = logger.isLevelEnabled('info');
  const secrets = tokenForms(adminToken);
  // One listener function for every request (it reads the response it is called on), so a
  // request allocates no closure for it.
  function done(this: Response) {
    const req = this.req;
    const locals = this.locals;
    const started = locals.started as number;
    const ms = performance.now() - started;
    const status = this.headersSent ? this.statusCode : null;
    const id = requestId(req);
    if (logging) {
      const line = {
        req: { id, method: req.method, url: loggedUrl(req.originalUrl, secrets) },
        res: { statusCode: status },
        merchant: merchantOf(this),
        responseTime: Math.round(ms),
      };
      logger.info(line, this.writableFinished ? 'request completed' : 'request aborted');
    }
    if (locals.journaled !== true) return;
    const merchantId = merchantOf(this);
    const api = req.originalUrl.startsWith('/__sandbox') ? 'control' : 'emulated';
    journal.add({
      request_id: id,
      method: req.method,
      path: pathOf(req.originalUrl),
      merchant_id: merchantId,
      status,
      // The merchant's own time when it has a clock of its own; else the sandbox time at arrival.
      at: merchantId !== null && clocks.hasOwn(merchantId) ? clocks.now(merchantId) : (locals.at as number),
      latency_ms: Math.round(ms * 100) / 100,
      rule: (this.getHeader(SANDBOX_RULE_HEADER) as string | undefined) ?? null,
      refused_transitions: (this.locals.refusals as RefusedTransition[] | undefined) ?? NO_REFUSALS,
      ref_id: (this.locals.refId as string | undefined) ?? null,
      error: (this.locals.refusal as RefusalError | undefined) ?? null,
      auth_reason: (this.locals.authReason as string | undefined) ?? null,
      api,
      x: api === 'emulated' ? exchangeOf(this, req, journal.limits.perEntry) : undefined,
    });
  }
  return (req, res, next) => {
    const id = nextRequestId();
    (req as { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    // Not the journal's own reads, nor the dashboard's files: neither is anyone's traffic.
    const journaled = journal.enabled && !req.url.startsWith('/__sandbox/requests') && !req.url.startsWith('/__sandbox/ui');
    if (!logging && !journaled) return next();
    // Three values on the response's locals (a dictionary already), not an object of their own.
    const locals = res.locals;
    locals.started = performance.now();
    locals.at = clocks.sandbox.now();
    locals.journaled = journaled;
    next();
    // Answered before next() returned (a read answered from memory, a refusal): the entry is made
    // now, without a listener on the response. Else when the connection closes: an answer that
    // waits (a write made durable first, a held answer, a body still coming) or none at all. The
    // log line waits for the close either way, to say whether the answer was all sent.
    if (!logging && res.writableEnded) done.call(res);
    else res.on('close', done);
  };
}

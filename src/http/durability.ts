import { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { envelopeA } from '../contract/envelopes.js';
import { transportMessage } from '../errors.js';
import type { Store } from '../store/store.js';
import { RETRY_MS } from '../store/store.js';

/** Names, on every answer refused for it, why the sandbox cannot write (sandbox-only, like X-Sandbox-Rule). */
export const STORE_ERROR_HEADER = 'X-Sandbox-Store-Error';

const END = ServerResponse.prototype.end;
const CHECKOUT_PATH = /^\/api\/v1\/payment\/transaction\/[^/]+\/status\/?$/;

/** The 503 of a request that cannot be answered while the store cannot write: in the shape of the API it was sent to. */
function unavailable(req: Request, reason: string): { headers: Record<string, string>; body: unknown } {
  const headers = { 'Retry-After': String(Math.ceil(RETRY_MS.last / 1000)), [STORE_ERROR_HEADER]: reason.replace(/[^\x20-\x7e]/g, '?') };
  if (req.path.startsWith('/__sandbox')) {
    const error = `The sandbox cannot write its data file (${reason}). It retries on its own and answers again once every change is on disk: free space (or fix the file system).`;
    return { headers, body: req.path === '/__sandbox/health' ? { ok: false, error } : { error } };
  }
  if (CHECKOUT_PATH.test(req.path)) return { headers, body: { status: false, message: transportMessage(503) } };
  return { headers, body: envelopeA(503, transportMessage(503)) };
}

/** Replaces an answer not yet sent by the 503 (its headers are still unsent: they go out in end()). */
function answerUnavailable(res: Response, reason: string): void {
  const { headers, body } = unavailable(res.req, reason);
  const json = JSON.stringify(body);
  res.statusCode = 503;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  (END as (this: Response, chunk?: string) => Response).call(res, res.req.method === 'HEAD' ? undefined : json);
}

/**
 * The rule for a file store that cannot write (see docs/operations.md "Data file and change log"): a change
 * is either on disk before anyone learns of it, or never shown. So, while the store cannot write
 * (a full disk), every request is answered 503 with nothing done (`Retry-After`, the reason in
 * X-Sandbox-Store-Error); and every answer goes out only once each change it could show is on
 * disk: an answer computed while changes are still being written waits for that write (and is
 * a 503 if it fails). Errors of 500 and up show nothing and go out at once; the request whose
 * own write failed gets its 500 that way. With everything on disk (the usual case) an answer
 * costs one comparison more.
 */
export function durableAnswers(store: Store): RequestHandler {
  function end(this: Response, ...args: unknown[]): Response {
    // A response already under way (an event stream, a file streamed) ends as it is: what it
    // showed went out with its body.
    const wait = this.statusCode >= 500 || this.headersSent ? null : store.durable();
    if (wait === null) return (END as (...a: unknown[]) => Response).apply(this, args);
    wait.then(
      () => (END as (...a: unknown[]) => Response).apply(this, args),
      (err: unknown) => {
        try {
          answerUnavailable(this, (err as Error).message);
        } catch {
          this.destroy();
        }
      },
    );
    return this;
  }
  return (req, res, next) => {
    if (store.failure !== null) {
      const { headers, body } = unavailable(req, store.failure.message);
      res.status(503).set(headers).json(body);
      return;
    }
    res.end = end as Response['end'];
    next();
  };
}

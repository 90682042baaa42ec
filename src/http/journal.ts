import type { NextFunction, Request, Response } from 'express';
import { SANDBOX_RULE_HEADER } from '../contract/envelopes.js';
import type { Clock } from '../clock.js';
import type { Journal, RefusedTransition } from '../runtime/journal.js';
import { requestId } from './request-log.js';

/** Notes a refused transition on the request's journal entry (the explain of `GET /__sandbox/requests/:id`). */
export function noteRefusal(res: Response, refusal: RefusedTransition): void {
  ((res.locals.refusals as RefusedTransition[] | undefined) ?? (res.locals.refusals = [])).push(refusal);
}

/** Records every request (but the journal's own reads) when its connection closes. */
export function journalMiddleware(journal: Journal, clock: Clock) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.url.startsWith('/__sandbox/requests')) return next();
    const started = performance.now();
    const at = clock.now();
    res.once('close', () => {
      journal.add({
        request_id: requestId(req),
        method: req.method,
        path: req.originalUrl.split('?')[0],
        merchant_id: (res.locals.merchant as { merchant_id?: string } | undefined)?.merchant_id ?? null,
        status: res.headersSent ? res.statusCode : null,
        at,
        latency_ms: Math.round((performance.now() - started) * 100) / 100,
        rule: (res.getHeader(SANDBOX_RULE_HEADER) as string | undefined) ?? null,
        refused_transitions: (res.locals.refusals as RefusedTransition[] | undefined) ?? [],
      });
    });
    next();
  };
}

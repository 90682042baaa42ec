import type { Response } from 'express';
import { envelopeA, envelopeB, SANDBOX_RULE_HEADER, successEnvelope } from '../contract/envelopes.js';
import { BusinessError, CheckoutError, type RequestError } from '../errors.js';

/**
 * Sends a body already serialized to JSON: the same headers res.json() sets, without its
 * per-call settings lookups (the hot path of status and balance polling). HEAD goes through
 * res.send(), which knows to send no body.
 */
export function sendJson(res: Response, status: number, json: string): void {
  // A fault that lets the operation run takes over its success answer (held, or a 500 after it).
  const hook = res.locals.answerHook as ((send: () => void) => void) | undefined;
  if (hook !== undefined) {
    res.locals.answerHook = undefined;
    hook(() => sendJson(res, status, json));
    return;
  }
  if (res.req.method === 'HEAD') {
    res.status(status).type('json').send(json);
    return;
  }
  // The answer as sent, for the journal's exchange (the string is made already: nothing to copy).
  res.locals.body = json;
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

export function sendSuccess<T>(res: Response, message: string, data: T): void {
  sendJson(res, 200, JSON.stringify(successEnvelope(message, data)));
}

/** As res.json() sends it (its headers, HEAD without a body), the body kept for the journal's exchange. */
function sendBody(res: Response, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  if (res.req.method !== 'HEAD') res.locals.body = json;
  if (!res.get('Content-Type')) res.type('json');
  res.status(status).send(json);
}

/** The one place an error of the reference becomes an HTTP response (and the journal learns what was answered). */
export function sendError(res: Response, err: BusinessError | RequestError | CheckoutError): void {
  res.locals.refusal = { code: err instanceof BusinessError ? err.code : null, message: err.message };
  if (err instanceof CheckoutError) {
    sendBody(res, err.httpStatus, { status: false, message: err.message });
    return;
  }
  if ('rule' in err && typeof err.rule === 'string') res.set(SANDBOX_RULE_HEADER, err.rule);
  if (err instanceof BusinessError) {
    sendBody(res, 400, envelopeB(err.code, err.message));
    return;
  }
  res.set(err.headers);
  sendBody(res, err.httpCode, envelopeA(err.httpCode, err.message));
}

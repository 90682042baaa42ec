import type { Response } from 'express';
import { SANDBOX_RULE_HEADER, envelopeA, envelopeB, successEnvelope } from '../contract/envelopes.js';
import { BusinessError, CheckoutError, RequestError } from '../errors.js';

export function sendSuccess<T>(res: Response, message: string, data: T): void {
  res.status(200).json(successEnvelope(message, data));
}

/** The one place an error of the reference becomes an HTTP response. */
export function sendError(res: Response, err: BusinessError | RequestError | CheckoutError): void {
  if (err instanceof CheckoutError) {
    res.status(err.httpStatus).json({ status: false, message: err.message });
    return;
  }
  if ('rule' in err && typeof err.rule === 'string') res.set(SANDBOX_RULE_HEADER, err.rule);
  if (err instanceof BusinessError) {
    res.status(400).json(envelopeB(err.code, err.message));
    return;
  }
  res.set(err.headers).status(err.httpCode).json(envelopeA(err.httpCode, err.message));
}

import type { NextFunction, Request, Response } from 'express';
import { RequestError } from '../errors.js';

/** A known path asked with a method it does not serve: envelope A 405. */
export function methodNotAllowed(req: Request, _res: Response, next: NextFunction): void {
  next(new RequestError(405, `The ${req.method} method is not supported for route ${req.path}.`));
}

/** Nothing matched: envelope A 404. */
export function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new RequestError(404, `The route ${req.path} could not be found.`));
}

import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * Gives every request an id (`req.id`, answered as `X-Request-Id`) and, when the log level lets
 * `info` through, logs one line when the response is done: `{ req: { id, method, url }, res: {
 * statusCode }, merchant, responseTime }`. At `warn` and above (and `silent`) it does nothing else:
 * no child logger, no serializers, no listener.
 */
export function requestLog(logger: Logger): RequestHandler {
  const enabled = logger.isLevelEnabled('info');
  return (req, res, next) => {
    const id = randomUUID();
    (req as { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    if (enabled) {
      const started = performance.now();
      res.once('close', () => {
        const merchant = (res.locals.merchant as { merchant_id?: string } | undefined)?.merchant_id ?? null;
        logger.info(
          {
            req: { id, method: req.method, url: req.originalUrl },
            res: { statusCode: res.headersSent ? res.statusCode : null },
            merchant,
            responseTime: Math.round(performance.now() - started),
          },
          res.writableFinished ? 'request completed' : 'request aborted',
        );
      });
    }
    next();
  };
}

/** The id requestLog gave the request. */
export function requestId(req: Request): string {
  return (req as { id?: string }).id ?? '';
}

import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Static, TSchema } from '@sinclair/typebox';
import { checkoutRecord } from '../contract/records.js';
import { compile, validate } from '../contract/validate.js';
import { createCheckoutTransaction } from '../domain/checkout.js';
import { parseDuration } from '../duration.js';
import type { Sandbox } from '../sandbox.js';
import { toIso } from '../time.js';
import { VERSION } from '../version.js';
import { SANDBOX_RULE_HEADER } from '../api/envelopes.js';
import { AdvanceClockBody, CreateCheckoutBody } from './schemas.js';

/** A control-API failure: `{ error }` with this HTTP status. */
export class ControlError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }
}

function bodyParser<S extends TSchema>(schema: S): (body: unknown) => Static<S> {
  compile(schema);
  return (body) => {
    const r = validate(schema, body);
    if (!r.ok) throw new ControlError(400, r.message);
    return r.value;
  };
}

export function controlErrorHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof ControlError) {
    res.status(err.httpStatus).json({ error: err.message });
    return;
  }
  next(err);
}

function clockView(sb: Sandbox) {
  return { now: toIso(sb.clock.now()), mode: sb.clock.mode, speed: sb.clock.mode === 'manual' ? 0 : sb.clock.speed };
}

/** The sandbox's own surface, apart from the emulated API (SPEC 9). */
export function controlRouter(sb: Sandbox): Router {
  const router = Router();
  const parseAdvance = bodyParser(AdvanceClockBody);
  const parseCheckout = bodyParser(CreateCheckoutBody);

  router.get('/__sandbox/health', (_req, res) => {
    res.json({ ok: true, version: VERSION });
  });

  router.get('/__sandbox/clock', (_req, res) => {
    res.json(clockView(sb));
  });

  router.post('/__sandbox/clock/advance', async (req, res) => {
    const { by } = parseAdvance(req.body);
    if (sb.clock.mode !== 'manual') throw new ControlError(409, 'The clock is real: start the sandbox with --clock manual to advance it.');
    await sb.scheduler.advance(parseDuration(by) ?? 0);
    res.json(clockView(sb));
  });

  router.post('/__sandbox/checkout/transactions', async (req, res) => {
    const body = parseCheckout(req.body);
    const merchant = sb.repo.merchant(body.merchant_id);
    if (!merchant) throw new ControlError(404, `No merchant with merchant_id "${body.merchant_id}".`);
    const { transaction, rule } = createCheckoutTransaction(sb, merchant, body);
    await sb.repo.persist();
    res.set(SANDBOX_RULE_HEADER, rule).status(201).json(checkoutRecord(transaction, merchant));
  });

  router.use('/__sandbox', controlErrorHandler);
  return router;
}

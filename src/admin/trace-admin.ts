import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../contract/kit.js';
import { inputParser } from '../contract/parse.js';
import { RequestError } from '../errors.js';
import { type Har, traceHar } from '../observe/har.js';
import { TRACE_LAST_MAX, type Trace, viewOfTrace } from '../observe/trace.js';
import type { SandboxCore } from '../sandbox/core.js';
import { traceOf } from '../sandbox/traces.js';
import { requireMerchant } from './refusals.js';

/** `GET /__sandbox/merchants/{id}/trace`: the trace as JSON (default) or HAR 1.2, of the whole run or of one payout. */
export const TraceQuery = Type.Object(
  {
    format: Type.Optional(StringEnum(['json', 'har'] as const)),
    ref_id: Type.Optional(Type.String({ minLength: 1, 'x-message': 'must be a payout ref_id.' })),
    last: Type.Optional(Type.Integer({ minimum: 1, maximum: TRACE_LAST_MAX })),
  },
  {
    additionalProperties: false,
    description:
      "The merchant's trace as JSON (`payout-sandbox show-trace` opens it) or as HAR 1.2 (`format=har`); `ref_id`: only what concerns one payout; `last`: the newest N of each list (requests, deliveries, clock moves), with the payouts they name (the dashboard's sequence pages with it).",
  },
);
export type TraceQueryInput = Static<typeof TraceQuery>;

const parse = { traceQuery: inputParser(TraceQuery, { strict: true }) };

/**
 * Traces of a merchant's run (docs/trace.md): everything the sandbox saw, decided and sent for
 * it, as one self-contained JSON document or a HAR, credentials redacted.
 */
export class TraceAdmin {
  constructor(private readonly sb: SandboxCore) {}

  /** One merchant's trace (404 for an unknown merchant; with `ref_id`, 404 for a payout the trace does not hold). */
  trace(merchantId: string, query: TraceQueryInput | Record<string, unknown> = {}): Trace {
    const q = parse.traceQuery(query);
    const trace = traceOf(this.sb, requireMerchant(this.sb.repo, merchantId));
    const view = viewOfTrace(trace, q);
    if (!view) throw new RequestError(404, `Merchant ${merchantId}'s trace holds no payout ${q.ref_id}.`);
    return view;
  }

  /** The same trace as HAR 1.2: its requests, then its webhook attempts and probe requests (marked `_webhook: true`). */
  har(merchantId: string, query: TraceQueryInput | Record<string, unknown> = {}): Har {
    const { format: _format, ...rest } = query as Record<string, unknown>;
    return traceHar(this.trace(merchantId, rest));
  }
}

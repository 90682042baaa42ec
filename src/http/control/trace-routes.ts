import type { Request } from 'express';
import type { Admin } from '../../admin/admin.js';
import { TraceQuery } from '../../admin/trace-admin.js';
import type { Route } from './route.js';

const merchantIdOf = (req: Request) => String(req.params.merchant_id);

/** A merchant's trace (docs/trace.md): one JSON document, or HAR 1.2 with `?format=har`. */
export function traceRoutes({ traces }: Admin): Route[] {
  return [
    [
      'get',
      '/merchants/:merchant_id/trace',
      {
        summary:
          "A merchant's trace: its requests (headers, bodies, rule, latency, sandbox and real time), payouts and timelines, webhook deliveries with every attempt, clock moves, ledger, coverage and review; credentials redacted. `format=har`: HAR 1.2.",
        query: TraceQuery,
      },
      (req) => {
        const id = merchantIdOf(req);
        if (req.query.format !== 'har') return traces.trace(id, req.query);
        const file = `${id}${typeof req.query.ref_id === 'string' ? `-${req.query.ref_id}` : ''}.har`.replace(/[^A-Za-z0-9._-]/g, '_');
        return { status: 200, headers: { 'Content-Disposition': `inline; filename="${file}"` }, body: traces.har(id, req.query), answer: true };
      },
    ],
  ];
}

import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { schemaErrors } from '../contract/validate.js';

/**
 * The trace document (observe/trace.ts `Trace`) as a JSON Schema, so a trace file read back
 * (`payout-sandbox show-trace`) is known to be what the viewer, the HAR builder and narrowTrace
 * read before anything is served: a damaged or hand-edited file is refused naming the field,
 * rather than failing on a request. Every field of the type is here, required where the type
 * requires it. Objects stay open (a newer payout-sandbox may add fields within a version), and
 * value lists (a cut's part, an attempt's kind, a severity) are plain strings for the same reason:
 * none of the readers branches on an unknown value.
 */

/** A field that may be null: one `type` list, so a wrong value gets one error (`must be string or null`), not one per branch. */
const OrNull = <T extends TSchema>(t: T) => Type.Unsafe<Static<T> | null>({ ...t, type: [t.type as string, 'null'] });

/**
 * A time as the trace writes it (toIso). The HAR builder turns these into dates: ajv's date-time
 * format also takes a leap second (`23:59:60`), which Date.parse does not, so seconds stop at 59.
 * (In an allOf, the format's message comes first for a value that is no time at all.)
 */
const Time = Type.Unsafe<string>({
  type: 'string',
  allOf: [{ format: 'date-time' }, { pattern: ':[0-5][0-9](\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$' }],
});

/**
 * A duration the HAR builder subtracts from a time: with no bound, a start so early it is no
 * date at all (Date's range is ±8.64e15 ms). No exchange lasts anywhere near 10^12 ms (30 years).
 */
const Latency = Type.Number({ minimum: 0, maximum: 1e12 });

/** Unix seconds (a webhook attempt's X-Sandbox-Timestamp), up to 9999-12-31: a HAR entry's start is an ISO time with a four-digit year. */
const UnixSeconds = Type.Integer({ minimum: 0, maximum: 253402300799 });

const Count = Type.Integer({ minimum: 0 });
/** An object of `of` by any key (TypeBox's Record matches keys by `^(.*)$`, which misses a key with a line break). */
const MapOf = <T extends TSchema>(of: T) => Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: of });
const Headers = MapOf(Type.String());

const Message = Type.Object({
  headers: Headers,
  body: OrNull(Type.String()),
  body_size: Count,
  body_truncated: Type.Boolean(),
});

const Request = Type.Object({
  request_id: Type.String(),
  method: Type.String(),
  path: Type.String(),
  url: Type.String(),
  status: OrNull(Type.Integer()),
  rule: OrNull(Type.String()),
  refused_transitions: Type.Array(Type.Object({ id: Type.String(), from: Type.String(), to: Type.String(), reason: Type.String() })),
  ref_id: OrNull(Type.String()),
  error: OrNull(Type.Object({ code: OrNull(Type.String()), message: Type.String() })),
  auth_reason: OrNull(Type.String()),
  latency_ms: Latency,
  at: Time,
  real_at: OrNull(Time),
  request: Message,
  response: Message,
  bodies_dropped: Type.Boolean(),
});

const Step = Type.Object({
  status: Type.String(),
  at: Time,
  real_at: Type.Optional(OrNull(Time)),
  bank_res_msg: Type.String(),
});

const ScheduledStep = Type.Object({
  status: Type.String(),
  at: OrNull(Time),
  bank_res_msg: OrNull(Type.String()),
  after_polls: Type.Optional(Type.Number()),
  polls: Type.Optional(Type.Number()),
});

const Payout = Type.Object({
  ref_id: Type.String(),
  merchant_id: Type.String(),
  rule: Type.String(),
  version: Type.String(),
  debit_from: Type.String(),
  initialize_fault: Type.Unknown(),
  reversed: Type.Boolean(),
  refund: Type.Unknown(),
  transaction: Type.Object({ status: Type.String(), payment_method: Type.String(), amount: Type.Number() }),
  timeline: Type.Object({ taken: Type.Array(Step), scheduled: Type.Array(ScheduledStep) }),
});

const Attempt = Type.Object({
  n: Type.Integer(),
  at: Time,
  status: OrNull(Type.Integer()),
  error: OrNull(Type.String()),
  latency_ms: Latency,
  signature_valid: Type.Boolean(),
  kind: Type.String(),
  timestamp: Type.Optional(UnixSeconds),
});

const Delivery = Type.Object({
  delivery_id: Type.String(),
  merchant_id: Type.String(),
  ref_id: Type.String(),
  event_status: Type.String(),
  version: Type.String(),
  target_url: Type.String(),
  state: Type.String(),
  kind: Type.String(),
  created_at: Time,
  next_attempt_at: OrNull(Time),
  attempts: Type.Array(Attempt),
  body: MapOf(Type.Unknown()),
});

const Probe = Type.Object({
  at: Time,
  url: Type.String(),
  ok: Type.Boolean(),
  checks: Type.Array(Type.Object({ check: Type.String(), expected: Type.String(), got: Type.String(), passed: Type.Boolean(), detail: Type.String() })),
});

const Ledger = Type.Object({
  account_no: Type.String(),
  status: Type.String(),
  balance: Type.Number(),
  ledger_sum: Type.Number(),
  balanced: Type.Boolean(),
  entries: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      at: Time,
      type: Type.String(),
      amount: Type.Number(),
      balance_after: Type.Number(),
      ref: OrNull(Type.String()),
      note: Type.String(),
    }),
  ),
});

const Cut = Type.Object({ part: Type.String(), kept: Count, left_out: Count, why: Type.String() });

const ClockMove = Type.Object({ clock: Type.String(), from: Time, to: Time, by_ms: Type.Number(), real_at: Time });

const Merchant = Type.Object({
  merchant_id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  webhook_url: OrNull(Type.String()),
  webhook_version: OrNull(Type.String()),
  tax_rate_percent: Type.Number(),
  accounts: Type.Array(Type.Object({ account_no: Type.String(), status: Type.String(), balance: Type.Number() })),
  clock: Type.Object({ merchant_id: Type.String(), now: Time, mode: Type.String(), speed: Type.Number(), follows_sandbox_clock: Type.Boolean() }),
});

const Coverage = Type.Object({
  merchant_id: OrNull(Type.String()),
  summary: Type.Object({ covered: Count, total: Count, percent: Type.Number() }),
  ignored: Type.Optional(Type.Array(Type.String())),
  items: Type.Array(Type.Object({ id: Type.String(), group: Type.String(), description: Type.String(), hits: Count, how: Type.String() })),
});

const RuleOutcome = Type.Object({
  rule: Type.String(),
  severity: Type.String(),
  title: Type.String(),
  result: Type.String(),
  findings: Count,
  occurrences: Count,
  how_to_exercise: Type.Optional(Type.String()),
});

const Review = Type.Object({
  merchant_id: OrNull(Type.String()),
  summary: Type.Object({
    high: Count,
    medium: Count,
    low: Count,
    verdict: Type.String(),
    rules: Type.Object({ failed: Count, passed: Count, unproven: Count }),
  }),
  findings: Type.Array(
    Type.Object({
      rule: Type.String(),
      severity: Type.String(),
      title: Type.String(),
      payment: Type.String(),
      occurrences: Count,
      detail: Type.String(),
      advice: Type.String(),
      evidence: Type.Array(
        Type.Object({
          kind: Type.String(),
          id: Type.String(),
          url: Type.Optional(Type.String()),
          outbox_id: Type.Optional(Type.String()),
          ref_id: Type.Optional(Type.String()),
          delivery_kind: Type.Optional(Type.String()),
          attempt: Type.Optional(Count),
          timestamp_age_s: Type.Optional(OrNull(Type.Number())),
        }),
      ),
      more_evidence: Count,
      first_at: Time,
      at: Time,
      merchant_id: Type.Optional(Type.String()),
    }),
  ),
  findings_total: Count,
  rules: Type.Array(RuleOutcome),
  merchants: Type.Optional(Type.Array(Type.Object({ merchant_id: Type.String(), verdict: Type.String(), rules: Type.Array(RuleOutcome) }))),
});

export const TraceDocument = Type.Object({
  format: Type.Literal('payout-sandbox-trace'),
  version: Type.Integer({ minimum: 1 }),
  generated_at: Time,
  sandbox: Type.Object({
    version: Type.String(),
    scenario: Type.String(),
    journal_size: Count,
    body_limits: Type.Object({ per_entry: Count, per_merchant: Count }),
  }),
  merchant: Merchant,
  requests: Type.Array(Request),
  payouts: Type.Array(Payout),
  deliveries: Type.Array(Delivery),
  webhook_endpoint: OrNull(MapOf(Type.Unknown())),
  probes: Type.Array(Probe),
  clock_moves: Type.Array(ClockMove),
  ledger: Type.Array(Ledger),
  coverage: Coverage,
  review: OrNull(Review),
  cut: Type.Array(Cut),
  ref_id: Type.Optional(Type.String()),
});
export type TraceDocument = Static<typeof TraceDocument>;

/** The first way `value` is not a trace document, as `path: rule` (`/payouts/0: must be object`); null when it is one. */
export function traceSchemaProblem(value: unknown): string | null {
  const errors = schemaErrors(TraceDocument, value, { dataKeys: true });
  if (errors === null) return null;
  // A key in a hand-edited file may hold a line break: the problem stays one line of the terminal's.
  return (errors[0] ?? '/: is not a trace').replace(/: must be (\w+),null$/, ': must be $1 or null').replace(/\p{Cc}/gu, (c) => JSON.stringify(c).slice(1, -1));
}

import { toRupees } from '../money.js';
import type { Account, DueItem, Merchant, Payout, WebhookDelivery, WebhookEndpoint } from '../store/state.js';
import { toIso } from '../time.js';
import type { CoverageReport } from './coverage.js';
import type { ClockMove, RecordedEntry, RefusalError, RefusedTransition } from './journal.js';
import { deliveryDetail, ledgerDetail, payoutDetail, type ScheduledStep } from './payout-detail.js';
import type { ReviewReport } from './review/report.js';
import { traceSchemaProblem } from './trace-schema.js';

/**
 * A trace of one merchant's run: everything the sandbox saw, decided and sent for it, in one
 * self-contained JSON document (the model: Playwright's trace file). Pure: the sandbox's records
 * in (admin/trace-admin.ts gathers them), the document out, with every credential redacted.
 * The viewer (`payout-sandbox show-trace`) reads it back with `readTrace`; observe/har.ts makes
 * a HAR 1.2 of its requests and webhook attempts.
 */

export const TRACE_FORMAT = 'payout-sandbox-trace';
/** The document's version: a reader refuses a newer one (it may not understand it). */
export const TRACE_VERSION = 2;

/** What a trace keeps at most of a merchant's records (the journal's own bounds come first: `--journal-size`, BODY_LIMITS). */
export const TRACE_LIMITS = { payouts: 2000, deliveries: 5000, ledgerEntries: 5000, findings: 1000 };

/** What a credential becomes. */
export const REDACTED = '[redacted]';

/** Headers that carry credentials: their values never reach a trace. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-api-secret', 'accesstoken', 'cookie', 'set-cookie']);

/** One side of an exchange: headers (credentials redacted), the body as sent (cut to the journal's bound), its whole size. */
export interface TraceMessage {
  headers: Record<string, string>;
  body: string | null;
  body_size: number;
  /** The body is longer than what is kept (the per-entry bound). */
  body_truncated: boolean;
}

export interface TraceRequest {
  request_id: string;
  method: string;
  path: string;
  /** Path and query string, as asked. */
  url: string;
  status: number | null;
  rule: string | null;
  refused_transitions: RefusedTransition[];
  ref_id: string | null;
  error: RefusalError | null;
  auth_reason: string | null;
  latency_ms: number;
  /** Sandbox time (the merchant's clock) at arrival. */
  at: string;
  /** Real time the request ended. */
  real_at: string | null;
  request: TraceMessage;
  response: TraceMessage;
  /** The merchant's byte bound dropped this entry's bodies (its newer entries' were kept). */
  bodies_dropped: boolean;
}

export interface TraceStep {
  status: string;
  at: string;
  /** Real time of the change, when the journal saw it. */
  real_at?: string | null;
  bank_res_msg: string;
}

/** A payout as the control API's `GET /payouts/{ref_id}` shows it (its deliveries are the trace's `deliveries`). */
export interface TracePayout {
  ref_id: string;
  merchant_id: string;
  rule: string;
  version: string;
  debit_from: string;
  initialize_fault: unknown;
  reversed: boolean;
  refund: unknown;
  transaction: Record<string, unknown> & { status: string; payment_method: string; amount: number };
  timeline: { taken: TraceStep[]; scheduled: ScheduledStep[] };
}

export interface TraceAttempt {
  n: number;
  at: string;
  status: number | null;
  error: string | null;
  latency_ms: number;
  signature_valid: boolean;
  kind: string;
  timestamp?: number;
}

/** A webhook delivery as `GET /webhooks` shows it: its body and every attempt (each with its kind: genuine, forged, stale, replay, duplicate). */
export interface TraceDelivery {
  delivery_id: string;
  merchant_id: string;
  ref_id: string;
  event_status: string;
  version: string;
  target_url: string;
  state: string;
  kind: string;
  created_at: string;
  next_attempt_at: string | null;
  attempts: TraceAttempt[];
  body: Record<string, unknown>;
  [more: string]: unknown;
}

/** A run of the receiver probe (each check a request of kind `probe`); a trace lists them oldest first. */
export interface TraceProbe {
  at: string;
  url: string;
  ok: boolean;
  checks: Array<{ check: string; expected: string; got: string; passed: boolean; detail: string }>;
}

export interface TraceLedger {
  account_no: string;
  status: string;
  balance: number;
  ledger_sum: number;
  balanced: boolean;
  entries: Array<{ seq: number; at: string; type: string; amount: number; balance_after: number; ref: string | null; note: string }>;
  [more: string]: unknown;
}

/** Something a bound left out of the trace, and which bound. */
export interface TraceCut {
  part: 'requests' | 'bodies' | 'payouts' | 'deliveries' | 'ledger' | 'findings';
  kept: number;
  left_out: number;
  why: string;
}

export interface TraceClockMove {
  /** `sandbox`: the sandbox clock (the merchant followed it); `merchant`: its own. */
  clock: 'sandbox' | 'merchant';
  from: string;
  to: string;
  by_ms: number;
  real_at: string;
}

export interface TraceMerchant {
  merchant_id: string;
  name: string;
  email: string;
  webhook_url: string | null;
  webhook_version: string | null;
  tax_rate_percent: number;
  accounts: Array<{ account_no: string; status: string; balance: number }>;
  clock: { merchant_id: string; now: string; mode: string; speed: number; follows_sandbox_clock: boolean };
  [more: string]: unknown;
}

export interface Trace {
  format: typeof TRACE_FORMAT;
  version: number;
  /** Real time it was made. */
  generated_at: string;
  sandbox: { version: string; scenario: string; journal_size: number; body_limits: { per_entry: number; per_merchant: number } };
  merchant: TraceMerchant;
  /** Oldest first. */
  requests: TraceRequest[];
  /** Oldest first. */
  payouts: TracePayout[];
  /** Oldest first. */
  deliveries: TraceDelivery[];
  webhook_endpoint: Record<string, unknown> | null;
  probes: TraceProbe[];
  clock_moves: TraceClockMove[];
  ledger: TraceLedger[];
  coverage: CoverageReport;
  review: ReviewReport | null;
  /** What the bounds left out; empty when nothing was. */
  cut: TraceCut[];
  /** Set when the trace is narrowed to one payout (`?ref_id=`). */
  ref_id?: string;
}

/**
 * What a trace is made of: the merchant's records as the state holds them, the journal's entries
 * and notes, and the reports. (The sandbox layer gathers them: sandbox/traces.ts.)
 */
export interface TraceInput {
  realNow: number;
  sandbox: { version: string; scenario: string; journalSize: number; bodyLimits: { perEntry: number; perMerchant: number }; webhookUrl: string | null };
  merchant: Merchant;
  accounts: Account[];
  clock: { now: number; mode: string; speed: number; follows_sandbox_clock: boolean };
  /** The journal's entries of the merchant, oldest first. */
  entries: RecordedEntry[];
  /** How many of its entries the journal's bound pushed out. */
  pushedOut: number;
  /** Every payout id of the merchant, oldest first, and the lookup (only the payouts kept are read). */
  payoutIds: readonly string[];
  payout: (refId: string) => Payout | undefined;
  /** The merchant's scheduled items (a payout's next steps, a delivery's next attempt). */
  due: DueItem[];
  /** Its webhook deliveries, newest first. */
  deliveries: WebhookDelivery[];
  endpoint: WebhookEndpoint;
  clockMoves: ClockMove[];
  /** When a payout's status change happened in real time (the journal's note), if known. */
  changedAt: (refId: string, status: string, at: number) => number | undefined;
  coverage: CoverageReport;
  review: ReviewReport | null;
  /** Values that must never appear besides the merchant's own credentials: the admin token. */
  secrets: string[];
}

const header = (v: string | string[] | number | undefined): string => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));

/** Headers as strings, credentials redacted by name. */
function headersOf(h: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(h)) if (v !== undefined) out[name.toLowerCase()] = CREDENTIAL_HEADERS.has(name.toLowerCase()) ? REDACTED : header(v);
  return out;
}

function requestOf(e: RecordedEntry): TraceRequest {
  const x = e.x;
  const message = (headers: Record<string, string>, body: string | null, size: number): TraceMessage => ({
    headers,
    body,
    body_size: size,
    body_truncated: body !== null && size > Buffer.byteLength(body),
  });
  return {
    request_id: e.request_id,
    method: e.method,
    path: e.path,
    url: x?.search ? `${e.path}?${x.search}` : e.path,
    status: e.status,
    rule: e.rule,
    refused_transitions: e.refused_transitions,
    ref_id: e.ref_id,
    error: e.error,
    auth_reason: e.auth_reason,
    latency_ms: e.latency_ms,
    at: toIso(e.at),
    real_at: x ? toIso(x.real_at) : null,
    request: message(x ? headersOf(x.req_headers) : {}, x?.req_body ?? null, x?.req_body_size ?? 0),
    response: message(x ? headersOf(x.res_headers) : {}, x?.res_body ?? null, x?.res_body_size ?? 0),
    bodies_dropped: x ? !x.bodies_kept && x.req_body_size + x.res_body_size > 0 : false,
  };
}

/**
 * `value` with each secret in its strings replaced by REDACTED: objects and arrays are walked, and
 * copied only where something changed (a trace of 10,000 requests holds about a million strings).
 */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const list = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= 4))];
  if (list.length === 0) return value;
  const shortest = Math.min(...list.map((s) => s.length));
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v.length < shortest) return v;
      let out = v;
      for (const s of list) if (out.includes(s)) out = out.split(s).join(REDACTED);
      return out;
    }
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const x = walk(v[i]);
        if (x !== v[i]) (copy ??= [...v])[i] = x;
      }
      return copy ?? v;
    }
    let copy: Record<string, unknown> | null = null;
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const x = walk(o[k]);
      if (x !== o[k]) (copy ??= { ...o })[k] = x;
    }
    return copy ?? v;
  };
  return walk(value) as T;
}

/**
 * The values of query parameters that look like credentials, redacted (a webhook URL with a token
 * in it), and a password in the URL's user part (`user:password@`: refused when a URL is set, but
 * a data file from before may hold one).
 */
export function redactUrl(url: string): string {
  const withoutPassword = url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#]*@/i, `$1:${REDACTED}@`);
  const q = withoutPassword.indexOf('?');
  if (q < 0) return withoutPassword;
  return (
    withoutPassword.slice(0, q + 1) + withoutPassword.slice(q + 1).replace(/(^|&)([^=&]*(?:token|secret|key|pass|auth|sig)[^=&]*)=[^&]*/gi, `$1$2=${REDACTED}`)
  );
}

/** A payout as `GET /__sandbox/payouts/{ref_id}` shows it (without its deliveries), each change with its real time where known. */
function payoutOf(p: Payout, input: TraceInput, dueById: Map<string, DueItem>, firstRequest: Map<string, string>): TracePayout {
  const page = payoutDetail(p, p.next_step ? dueById.get(p.next_step) : undefined);
  return {
    ref_id: p.ref_id,
    ...page,
    transaction: page.transaction as unknown as TracePayout['transaction'],
    timeline: {
      // Each status with the real time it was taken, where the journal knows it.
      taken: p.history.map((h, i) => {
        const known = input.changedAt(p.ref_id, h.status, h.at);
        return {
          status: h.status,
          at: toIso(h.at),
          real_at: known !== undefined ? toIso(known) : i === 0 ? (firstRequest.get(p.ref_id) ?? null) : null,
          bank_res_msg: h.bank_res_msg,
        };
      }),
      scheduled: page.timeline.scheduled,
    },
  };
}

/** A delivery as `GET /__sandbox/webhooks` lists it, its target's secrets redacted. */
function deliveryOf(d: WebhookDelivery, dueById: Map<string, DueItem>): TraceDelivery {
  const next = d.next_attempt === null ? undefined : dueById.get(d.next_attempt);
  return { ...deliveryDetail(d, next ? next.due : null), target_url: redactUrl(d.target_url) } as TraceDelivery;
}

function ledgerOf(a: Account, cut: TraceCut[]): TraceLedger {
  const kept = a.ledger.length > TRACE_LIMITS.ledgerEntries ? a.ledger.slice(-TRACE_LIMITS.ledgerEntries) : a.ledger;
  if (kept.length < a.ledger.length) {
    cut.push({
      part: 'ledger',
      kept: kept.length,
      left_out: a.ledger.length - kept.length,
      why: `a trace keeps the newest ${TRACE_LIMITS.ledgerEntries} ledger entries of ${a.account_no} (its balance and ledger_sum are the whole ledger's)`,
    });
  }
  return ledgerDetail(a, kept);
}

/** The merchant without its credentials (no API key, secret, access token or webhook secret). */
function merchantOf(input: TraceInput): TraceMerchant {
  const m = input.merchant;
  return {
    merchant_id: m.merchant_id,
    name: m.name,
    email: m.email,
    webhook_url: m.webhook_url && redactUrl(m.webhook_url),
    webhook_version: m.webhook_version,
    fees: Object.fromEntries(Object.entries(m.fees).map(([k, v]) => [k, toRupees(v)])),
    tax_rate_percent: m.tax_rate_percent,
    per_transaction_limit: toRupees(m.per_transaction_limit),
    accounts: input.accounts.map((a) => ({ account_no: a.account_no, status: a.status, balance: toRupees(a.balance) })),
    clock: {
      merchant_id: m.merchant_id,
      now: toIso(input.clock.now),
      mode: input.clock.mode,
      speed: input.clock.speed,
      follows_sandbox_clock: input.clock.follows_sandbox_clock,
    },
  };
}

/** The trace of one merchant (see Trace), bounded by TRACE_LIMITS, saying in `cut` what the bounds left out. */
export function buildTrace(input: TraceInput): Trace {
  const cut: TraceCut[] = [];
  const limits = input.sandbox.bodyLimits;
  const requests = input.entries.map(requestOf);
  if (input.pushedOut > 0) {
    cut.push({
      part: 'requests',
      kept: requests.length,
      left_out: input.pushedOut,
      why: `the request journal keeps the last ${input.sandbox.journalSize} requests of the emulated API (all merchants together; --journal-size)`,
    });
  }
  const dropped = requests.filter((r) => r.bodies_dropped).length;
  const truncated = requests.filter((r) => r.request.body_truncated || r.response.body_truncated).length;
  if (dropped > 0) {
    cut.push({
      part: 'bodies',
      kept: requests.length - dropped,
      left_out: dropped,
      why: `the journal keeps ${limits.perMerchant} bytes of bodies per merchant: the bodies of its oldest requests were dropped`,
    });
  }
  if (truncated > 0)
    cut.push({ part: 'bodies', kept: requests.length, left_out: truncated, why: `bodies longer than ${limits.perEntry} bytes are cut to that length` });

  // The newest payouts, and every older one a kept request names.
  const named = new Set(requests.flatMap((r) => (r.ref_id ? [r.ref_id] : [])));
  const ids = input.payoutIds;
  const from = Math.max(0, ids.length - TRACE_LIMITS.payouts);
  const keptIds = [...ids.slice(0, from).filter((id) => named.has(id)), ...ids.slice(from)];
  if (keptIds.length < ids.length) {
    cut.push({
      part: 'payouts',
      kept: keptIds.length,
      left_out: ids.length - keptIds.length,
      why: `a trace keeps the newest ${TRACE_LIMITS.payouts} payouts (and those its requests name)`,
    });
  }
  const dueById = new Map(input.due.map((i) => [i.id, i]));
  const firstRequest = new Map<string, string>();
  for (const r of requests) if (r.ref_id && r.real_at && !firstRequest.has(r.ref_id)) firstRequest.set(r.ref_id, r.real_at);
  const payouts = keptIds.flatMap((id) => {
    const p = input.payout(id);
    return p ? [payoutOf(p, input, dueById, firstRequest)] : [];
  });

  const kept = input.deliveries.slice(0, TRACE_LIMITS.deliveries);
  if (input.deliveries.length > kept.length) {
    cut.push({
      part: 'deliveries',
      kept: kept.length,
      left_out: input.deliveries.length - kept.length,
      why: `a trace keeps the newest ${TRACE_LIMITS.deliveries} webhook deliveries`,
    });
  }
  const deliveries = kept.map((d) => deliveryOf(d, dueById)).reverse();
  let review = input.review;
  if (review && review.findings.length > TRACE_LIMITS.findings) {
    cut.push({
      part: 'findings',
      kept: TRACE_LIMITS.findings,
      left_out: review.findings.length - TRACE_LIMITS.findings,
      why: `a trace keeps the first ${TRACE_LIMITS.findings} review findings (the summary counts them all)`,
    });
    review = { ...review, findings: review.findings.slice(0, TRACE_LIMITS.findings) };
  }
  const e = input.endpoint;
  const trace: Trace = {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    generated_at: toIso(input.realNow),
    sandbox: {
      version: input.sandbox.version,
      scenario: input.sandbox.scenario,
      journal_size: input.sandbox.journalSize,
      body_limits: { per_entry: limits.perEntry, per_merchant: limits.perMerchant },
    },
    merchant: merchantOf(input),
    requests,
    payouts,
    deliveries,
    webhook_endpoint: {
      merchant_id: input.merchant.merchant_id,
      url: redactUrl(input.merchant.webhook_url ?? input.sandbox.webhookUrl ?? '') || null,
      state: e.state,
      failing_since: e.failing_since === null ? null : toIso(e.failing_since),
      disabled_at: e.disabled_at === null ? null : toIso(e.disabled_at),
      unacknowledged: input.deliveries.filter((d) => !d.replay_of && (d.state === 'pending' || d.state === 'failed' || d.state === 'undelivered')).length,
    },
    probes: e.probes.map((r) => ({ at: toIso(r.at), url: redactUrl(r.url), ok: r.ok, checks: r.checks })),
    clock_moves: input.clockMoves.map((m) => ({
      clock: m.merchant_id === null ? 'sandbox' : 'merchant',
      from: toIso(m.from),
      to: toIso(m.to),
      by_ms: m.to - m.from,
      real_at: toIso(m.real_at),
    })),
    ledger: input.accounts.map((a) => ledgerOf(a, cut)),
    coverage: input.coverage,
    review,
    cut,
  };
  const m = input.merchant;
  return redact(trace, [m.api_secret, m.access_token, m.webhook_secret ?? '', m.previous_webhook_secret?.secret ?? '', ...input.secrets]);
}

/**
 * The part of a trace about one payout: its requests (those that made or asked for it), the
 * payout, its deliveries, the clock's moves from its creation on, and the findings that name it
 * or one of its requests or deliveries. Null when the trace has no such payout.
 */
export function narrowTrace(trace: Trace, refId: string): Trace | null {
  const payout = trace.payouts.find((p) => p.ref_id === refId);
  if (!payout) return null;
  const requests = trace.requests.filter((r) => r.ref_id === refId);
  const deliveries = trace.deliveries.filter((d) => d.ref_id === refId);
  const ids = new Set<string>([refId, ...requests.map((r) => r.request_id), ...deliveries.map((d) => d.delivery_id)]);
  const created = Date.parse(payout.timeline.taken[0]?.at ?? trace.generated_at);
  const review = trace.review && {
    ...trace.review,
    findings: trace.review.findings.filter((f) => f.evidence.some((e) => ids.has(e.id))),
  };
  return {
    ...trace,
    requests,
    payouts: [payout],
    deliveries,
    probes: [],
    clock_moves: trace.clock_moves.filter((m) => Date.parse(m.to) > created),
    ledger: trace.ledger.map((l) => ({ ...l, entries: l.entries.filter((e) => e.ref === refId) })),
    review,
    ref_id: refId,
  };
}

/** The most a trace page may ask for (`last`). */
export const TRACE_LAST_MAX = 100_000;

/**
 * What a trace's reader asked for: only one payout's part (`ref_id`, null when the trace has no
 * such payout), then only the newest `last` of each list. The sandbox's trace route and
 * show-trace's viewer answer the same query the same way.
 */
export function viewOfTrace(trace: Trace, q: { ref_id?: string; last?: number }): Trace | null {
  const t = q.ref_id === undefined ? trace : narrowTrace(trace, q.ref_id);
  return t !== null && q.last !== undefined ? lastOfTrace(t, q.last) : t;
}

/**
 * The newest `n` of each list of a trace (requests, deliveries, clock moves, probes, each
 * account's ledger entries), with the payouts those name and the newest `n` payouts: a page the
 * dashboard's sequence draws without downloading the whole run. What it left out is in `cut`.
 */
export function lastOfTrace(trace: Trace, n: number): Trace {
  const cut: TraceCut[] = [];
  const tail = <T>(list: T[], part: TraceCut['part']): T[] => {
    if (list.length <= n) return list;
    cut.push({ part, kept: n, left_out: list.length - n, why: `the newest ${n} asked (last=${n})` });
    return list.slice(-n);
  };
  const requests = tail(trace.requests, 'requests');
  const deliveries = tail(trace.deliveries, 'deliveries');
  const named = new Set<string>([...requests.flatMap((r) => (r.ref_id ? [r.ref_id] : [])), ...deliveries.map((d) => d.ref_id)]);
  const newest = new Set(trace.payouts.slice(-n).map((p) => p.ref_id));
  const payouts = trace.payouts.filter((p) => named.has(p.ref_id) || newest.has(p.ref_id));
  if (payouts.length < trace.payouts.length) {
    cut.push({
      part: 'payouts',
      kept: payouts.length,
      left_out: trace.payouts.length - payouts.length,
      why: `the newest ${n} and those the kept events name (last=${n})`,
    });
  }
  return {
    ...trace,
    requests,
    payouts,
    deliveries,
    probes: trace.probes.slice(-n),
    clock_moves: trace.clock_moves.slice(-n),
    ledger: trace.ledger.map((l) => ({ ...l, entries: l.entries.slice(-n) })),
    cut: [...trace.cut, ...cut],
  };
}

/**
 * Why a file is not a trace this version reads, or null when it is one: the friendly cases first
 * (a HAR, another JSON file, a newer version), then the document against its schema
 * (trace-schema.ts), naming the first wrong field by its JSON path.
 */
export function traceProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a payout-sandbox trace (not a JSON object)';
  const v = value as Record<string, unknown>;
  if (v.log !== undefined && v.format === undefined)
    return 'a HAR file, not a payout-sandbox trace (show-trace opens the JSON trace: GET /__sandbox/merchants/{id}/trace without ?format=har)';
  if (v.format !== TRACE_FORMAT) return `not a payout-sandbox trace (its "format" is not "${TRACE_FORMAT}")`;
  if (typeof v.version !== 'number' || !Number.isInteger(v.version) || v.version < 1) return 'not a payout-sandbox trace (no whole-number "version")';
  if (v.version > TRACE_VERSION) {
    return `trace version ${v.version} is newer than this payout-sandbox reads (up to ${TRACE_VERSION}): open it with the payout-sandbox that wrote it (${String((v.sandbox as { version?: unknown } | undefined)?.version ?? 'a newer version')}) or upgrade`;
  }
  if (v.version === 1) upgradeV1(v);
  const wrong = traceSchemaProblem(value);
  return wrong === null ? null : `not a valid trace (damaged, or edited by hand?): ${wrong}`;
}

/**
 * A version 1 trace (before the review had verdicts and grouped findings) as version 2: each
 * finding one occurrence of its own, each rule failed when it has findings (else unknown: not
 * proven), the verdict from those. Whatever is not of the old shape is left for the schema to name.
 */
function upgradeV1(v: Record<string, unknown>): void {
  const r = v.review as Record<string, unknown> | null | undefined;
  if (r === null || typeof r !== 'object' || !Array.isArray(r.findings) || !Array.isArray(r.rules)) return;
  const findings = r.findings as Array<Record<string, unknown>>;
  for (const f of findings) if (f && typeof f === 'object') Object.assign(f, { payment: '', occurrences: 1, more_evidence: 0, first_at: f.at, ...f });
  const failing = new Set(findings.map((f) => f?.rule));
  const rules = (r.rules as Array<Record<string, unknown>>).map((x) => {
    if (!x || typeof x !== 'object') return x;
    const n = findings.filter((f) => f?.rule === x.rule).length;
    return { result: failing.has(x.rule) ? 'failed' : 'unproven', findings: n, occurrences: n, ...x };
  });
  r.rules = rules;
  r.findings_total ??= findings.length;
  const s = r.summary as Record<string, unknown> | undefined;
  if (s && typeof s === 'object') {
    const count = (result: string) => rules.filter((x) => (x as { result?: string })?.result === result).length;
    s.rules ??= { failed: count('failed'), passed: 0, unproven: count('unproven') };
    s.verdict ??= count('failed') > 0 ? 'not-ready' : 'unproven';
  }
}

/**
 * A trace file's text read back: the trace, or why it cannot be opened (not JSON, cut short, not
 * a trace, of a newer version, damaged: a field missing or of the wrong type).
 */
export function readTrace(text: string): { trace: Trace } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const trimmed = text.trim();
    if (trimmed === '') return { problem: 'empty: not a payout-sandbox trace' };
    if (trimmed.startsWith('{') && text.includes(`"${TRACE_FORMAT}"`)) {
      return { problem: `truncated: the trace's JSON ends early (${(err as Error).message}); was the file cut off while it was written or uploaded?` };
    }
    return { problem: `not a payout-sandbox trace (not JSON: ${(err as Error).message})` };
  }
  const problem = traceProblem(value);
  return problem ? { problem } : { trace: value as Trace };
}

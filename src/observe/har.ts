import { STATUS_CODES } from 'node:http';
import type { Trace, TraceMessage, TraceRequest } from './trace.js';

/**
 * A trace as HAR 1.2 (the format browsers' network panels, Charles, Fiddler and HTTP tools read):
 * one entry per request of the emulated API, then one per webhook attempt and per receiver-probe
 * request, marked `_webhook: true` with their `_kind` (genuine, forged, stale, replay, duplicate,
 * probe). Sandbox-only facts go in `_` fields, as HAR allows: `_sandbox_time`, `_rule`,
 * `_request_id`, `_ref_id`. Credentials are already redacted in the trace.
 */

interface NameValue {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: NameValue[];
    queryString: NameValue[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: NameValue[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  [custom: `_${string}`]: unknown;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment: string;
  };
}

const pairs = (h: Record<string, string>): NameValue[] => Object.entries(h).map(([name, value]) => ({ name, value }));

const isoOf = (ms: number) => new Date(ms).toISOString();

function queryOf(url: string): NameValue[] {
  const q = url.indexOf('?');
  return q < 0 ? [] : [...new URLSearchParams(url.slice(q + 1))].map(([name, value]) => ({ name, value }));
}

function content(m: TraceMessage) {
  const mimeType = m.headers['content-type'] ?? (m.body === null ? 'x-unknown' : 'application/json');
  return { size: m.body_size, mimeType, ...(m.body === null ? {} : { text: m.body }) };
}

function requestEntry(r: TraceRequest): HarEntry {
  const host = r.request.headers.host ?? '127.0.0.1';
  const ended = Date.parse(r.real_at ?? r.at);
  const answered = r.status !== null;
  return {
    startedDateTime: isoOf(ended - r.latency_ms),
    time: r.latency_ms,
    request: {
      method: r.method,
      url: `http://${host}${r.url}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(r.request.headers),
      queryString: queryOf(r.url),
      ...(r.request.body === null ? {} : { postData: { mimeType: r.request.headers['content-type'] ?? 'application/octet-stream', text: r.request.body } }),
      headersSize: -1,
      bodySize: r.request.body_size,
    },
    response: {
      status: r.status ?? 0,
      statusText: answered ? (STATUS_CODES[r.status as number] ?? '') : '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(r.response.headers),
      content: content(r.response),
      redirectURL: '',
      headersSize: -1,
      bodySize: answered ? r.response.body_size : -1,
    },
    cache: {},
    timings: { send: 0, wait: r.latency_ms, receive: 0 },
    ...(r.rule ? { comment: `rule ${r.rule}` } : {}),
    _request_id: r.request_id,
    _sandbox_time: r.at,
    _rule: r.rule,
    _ref_id: r.ref_id,
    _error: r.error,
    ...(answered ? {} : { _no_answer: 'the connection was closed with no answer' }),
    ...(r.refused_transitions.length > 0 ? { _refused_transitions: r.refused_transitions } : {}),
    ...(r.request.body_truncated || r.response.body_truncated ? { _bodies_truncated: true } : {}),
    ...(r.bodies_dropped ? { _bodies_dropped: true } : {}),
  };
}

/** A request the sandbox sent a receiver: a webhook attempt or a probe's. */
function webhookEntry(
  url: string,
  started: number,
  sent: { status: number | null; error: string | null; latency_ms: number },
  request: { headers: Record<string, string>; body: string | null },
  marks: Record<`_${string}`, unknown>,
): HarEntry {
  return {
    startedDateTime: isoOf(started),
    time: sent.latency_ms,
    request: {
      method: 'POST',
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(request.headers),
      queryString: queryOf(url),
      ...(request.body === null ? {} : { postData: { mimeType: 'application/json', text: request.body } }),
      headersSize: -1,
      bodySize: request.body === null ? -1 : Buffer.byteLength(request.body),
    },
    response: {
      status: sent.status ?? 0,
      statusText: sent.status === null ? '' : (STATUS_CODES[sent.status] ?? ''),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      // The receiver's answer body is not kept: only its status (or the error) and latency.
      content: { size: -1, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: sent.latency_ms, receive: 0 },
    ...(sent.error ? { comment: sent.error } : {}),
    _webhook: true,
    ...marks,
    ...(sent.error ? { _error: sent.error } : {}),
  };
}

/** Unix seconds of a fresh attempt's X-Sandbox-Timestamp: the real time it was sent (a stale or replayed one's says otherwise). */
const FRESH = new Set(['genuine', 'duplicate', 'forged']);

export function traceHar(trace: Trace): Har {
  const entries = trace.requests.map(requestEntry);
  // A delivery goes out after the status change it reports: no earlier than the change's real time.
  const changed = new Map<string, number>();
  for (const p of trace.payouts) for (const s of p.timeline.taken) if (s.real_at) changed.set(`${p.ref_id}/${s.status}`, Date.parse(s.real_at));
  for (const d of trace.deliveries) {
    const body = JSON.stringify(d.body);
    const after = changed.get(`${d.ref_id}/${d.event_status}`) ?? 0;
    for (const a of d.attempts) {
      const started = a.timestamp !== undefined && FRESH.has(a.kind) ? Math.max(a.timestamp * 1000, after) : Date.parse(a.at);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': `payout-sandbox/${trace.sandbox.version}`,
        'x-sandbox-delivery-id': d.delivery_id,
        'x-sandbox-attempt': String(a.n),
        ...(a.timestamp !== undefined ? { 'x-sandbox-timestamp': String(a.timestamp) } : {}),
      };
      entries.push(
        webhookEntry(
          d.target_url,
          started,
          a,
          { headers, body },
          {
            _kind: a.kind,
            _delivery_id: d.delivery_id,
            _attempt: a.n,
            _ref_id: d.ref_id,
            _event_status: d.event_status,
            _signature_valid: a.signature_valid,
            _sandbox_time: a.at,
          },
        ),
      );
    }
  }
  for (const p of trace.probes) {
    for (const c of p.checks) {
      const status = /^(\d{3})\b/.exec(c.got);
      const latency = /in (\d+) ms/.exec(c.got);
      const sent = { status: status ? Number(status[1]) : null, error: status ? null : c.detail, latency_ms: latency ? Number(latency[1]) : 0 };
      entries.push(
        webhookEntry(
          p.url,
          Date.parse(p.at),
          sent,
          { headers: { 'x-sandbox-probe': c.check }, body: null },
          {
            _kind: 'probe',
            _check: c.check,
            _passed: c.passed,
            _expected: c.expected,
            _sandbox_time: p.at,
          },
        ),
      );
    }
  }
  entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  return {
    log: {
      version: '1.2',
      creator: { name: 'payout-sandbox', version: trace.sandbox.version },
      entries,
      comment: `Trace of merchant ${trace.merchant.merchant_id}${trace.ref_id ? `, payout ${trace.ref_id}` : ''}, made ${trace.generated_at}; webhook attempts and probe requests are marked _webhook: true. Signatures and the receivers' answer bodies are not kept.${trace.cut.length > 0 ? ` Cut: ${trace.cut.map((c) => `${c.left_out} ${c.part} (${c.why})`).join('; ')}.` : ''}`,
    },
  };
}

import { OPERATIONS, type Operation } from '../contract/operations.js';

/**
 * The calls of this API in a HAR (the recorder's, the sandbox's own trace as HAR, a browser's or
 * mitmproxy's export): each entry matched to an operation of the reference by its method and
 * path, with what was asked and what was answered. What is not a call of this API (a webhook
 * attempt of a trace, another site's request) is counted and left out.
 */

interface NameValue {
  name: string;
  value: string;
}

/** What verify reads of a HAR entry (HAR 1.2). */
export interface HarEntryLike {
  startedDateTime: string;
  request: { method: string; url: string; headers?: NameValue[]; postData?: { mimeType?: string; text?: string } };
  response: { status: number; content?: { mimeType?: string; text?: string } };
  _webhook?: unknown;
  /** The sandbox's trace: the merchant's clock at the request (ISO). */
  _sandbox_time?: unknown;
  /** Why it got no answer (the recorder), or the refusal it got (a trace). */
  _error?: unknown;
}

export interface Call {
  /** Its index among the HAR's entries (0-based). */
  entry: number;
  operation: Operation;
  method: string;
  /** Path parameters by name (`verification_id`, `transaction_id`). */
  params: Record<string, string>;
  query: Record<string, string>;
  /** The JSON (or form) body, or null. */
  body: Record<string, unknown> | null;
  /** When it was asked: the sandbox time of a trace entry, else the real time it started (ms). */
  at: number;
  recorded: { status: number; body: unknown };
}

export interface Skipped {
  entry: number;
  reason: string;
}

export interface CallsOf {
  calls: Call[];
  skipped: Skipped[];
  /** Entries that are not calls of this API (webhook attempts, other requests). */
  notApi: number;
}

/** `/api/v1/public/verification/{verification_id}` as a matcher. */
const matchers = OPERATIONS.map((op) => {
  const names: string[] = [];
  const source = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { op, names, re: new RegExp(`^${source.replace(/\/$/, '')}/?$`) };
});

/** The operation a request is, and its path parameters, or null. */
export function operationOf(method: string, path: string): { operation: Operation; params: Record<string, string> } | null {
  for (const m of matchers) {
    if (m.op.method !== method.toLowerCase()) continue;
    const hit = m.re.exec(path);
    if (!hit) continue;
    return { operation: m.op, params: Object.fromEntries(m.names.map((n, i) => [n, decodeURIComponent(hit[i + 1] as string)])) };
  }
  return null;
}

function parseBody(text: string | undefined, mimeType: string | undefined): Record<string, unknown> | null {
  if (text === undefined || text === '') return null;
  if (/x-www-form-urlencoded/i.test(mimeType ?? '')) return Object.fromEntries(new URLSearchParams(text));
  try {
    const v = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The calls of this API among a HAR's entries, in order, each with what the real service answered. */
export function callsOf(entries: readonly HarEntryLike[]): CallsOf {
  const calls: Call[] = [];
  const skipped: Skipped[] = [];
  let notApi = 0;
  entries.forEach((e, entry) => {
    if (e._webhook) {
      notApi += 1;
      return;
    }
    let url: URL;
    try {
      url = new URL(e.request.url);
    } catch {
      notApi += 1;
      return;
    }
    const found = operationOf(e.request.method, url.pathname);
    if (found === null) {
      notApi += 1;
      return;
    }
    // No answer: status 0 (the recorder says why in `_error`; a trace's `_error` is a refusal, answered).
    if (e.response.status === 0) {
      skipped.push({ entry, reason: `the real service did not answer (${typeof e._error === 'string' ? e._error : 'no answer recorded'})` });
      return;
    }
    const body = parseJson(e.response.content?.text);
    if (body === null) {
      skipped.push({ entry, reason: 'no JSON answer was recorded' });
      return;
    }
    const sandboxTime = typeof e._sandbox_time === 'string' ? Date.parse(e._sandbox_time) : Number.NaN;
    calls.push({
      entry,
      operation: found.operation,
      method: e.request.method.toUpperCase(),
      params: found.params,
      query: Object.fromEntries(url.searchParams),
      body: parseBody(e.request.postData?.text, e.request.postData?.mimeType),
      at: Number.isFinite(sandboxTime) ? sandboxTime : Date.parse(e.startedDateTime),
      recorded: { status: e.response.status, body },
    });
  });
  return { calls, skipped, notApi };
}

import { OPERATIONS, type Operation } from '../contract/operations.js';
import { CREDENTIAL_HEADERS } from './scrub.js';

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
  request: { method: string; url: string; headers?: NameValue[]; postData?: { mimeType?: string; text?: string; params?: NameValue[] } };
  response: { status: number; content?: { mimeType?: string; text?: string; encoding?: string } };
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
  /** Whether the body was sent as a form (it is replayed as one). */
  form: boolean;
  /** The credential headers it was sent with, as recorded (scrubbed): a call the real service refused with 401 is replayed with them. */
  credentials: Record<string, string>;
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

/** The operation a request is, and its path parameters, or null. A path parameter that does not decode throws URIError. */
export function operationOf(method: string, path: string): { operation: Operation; params: Record<string, string> } | null {
  for (const m of matchers) {
    if (m.op.method !== method.toLowerCase()) continue;
    const hit = m.re.exec(path);
    if (!hit) continue;
    return { operation: m.op, params: Object.fromEntries(m.names.map((n, i) => [n, decodeURIComponent(hit[i + 1] as string)])) };
  }
  return null;
}

/** The path without the first of `prefixes` it starts with (an upstream mounted under a path: `https://uat.example.com/gw`). */
function unprefixed(path: string, prefixes: readonly string[]): string {
  for (const p of prefixes) if (p !== '' && p !== '/' && (path === p || path.startsWith(`${p}/`))) return path.slice(p.length) || '/';
  return path;
}

const FORM = 'application/x-www-form-urlencoded';
const isForm = (mimeType: string | undefined) => /x-www-form-urlencoded/i.test(mimeType ?? '');

function parseBody(text: string | undefined, mimeType: string | undefined): Record<string, unknown> | null {
  if (text === undefined || text === '') return null;
  if (isForm(mimeType)) return Object.fromEntries(new URLSearchParams(text));
  try {
    const v = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A request's body as text: `postData.text`, or a form's `params` (some tools write only those). */
function requestText(postData: HarEntryLike['request']['postData']): string | undefined {
  if (postData?.text !== undefined && postData.text !== '') return postData.text;
  if (Array.isArray(postData?.params) && postData.params.length > 0) {
    return new URLSearchParams(postData.params.map((p) => [String(p.name), String(p.value ?? '')])).toString();
  }
  return postData?.text;
}

/** An answer's JSON: its text, decoded first when HAR says it is base64. */
function parseJson(content: HarEntryLike['response']['content']): unknown {
  let text = content?.text;
  if (text === undefined || text === '') return null;
  if (content?.encoding === 'base64') text = Buffer.from(text, 'base64').toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const CREDENTIALS = new Set(CREDENTIAL_HEADERS.map((h) => h.toLowerCase()));

/**
 * The calls of this API among a HAR's entries, in the order they were made (by when each was
 * asked; the file's order among equals), each with what the real service answered. `prefixes`:
 * the path of an upstream mounted below its host's root, stripped before matching.
 */
export function callsOf(entries: readonly HarEntryLike[], prefixes: readonly string[] = []): CallsOf {
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
    let found: ReturnType<typeof operationOf>;
    try {
      found = operationOf(e.request.method, unprefixed(url.pathname, prefixes));
    } catch {
      skipped.push({ entry, reason: `its path does not decode (${url.pathname})` });
      return;
    }
    if (found === null) {
      notApi += 1;
      return;
    }
    // No answer: status 0 (the recorder says why in `_error`; a trace's `_error` is a refusal, answered).
    if (e.response.status === 0) {
      skipped.push({ entry, reason: `the real service did not answer (${typeof e._error === 'string' ? e._error : 'no answer recorded'})` });
      return;
    }
    const body = parseJson(e.response.content);
    if (body === null) {
      skipped.push({ entry, reason: 'no JSON answer was recorded' });
      return;
    }
    const sandboxTime = typeof e._sandbox_time === 'string' ? Date.parse(e._sandbox_time) : Number.NaN;
    const started = Date.parse(e.startedDateTime);
    // An entry with no readable time is taken as asked with the call before it.
    const at = Number.isFinite(sandboxTime) ? sandboxTime : Number.isFinite(started) ? started : (calls.at(-1)?.at ?? 0);
    calls.push({
      entry,
      operation: found.operation,
      method: e.request.method.toUpperCase(),
      params: found.params,
      query: Object.fromEntries(url.searchParams),
      body: parseBody(requestText(e.request.postData), e.request.postData?.mimeType ?? (e.request.postData?.params?.length ? FORM : undefined)),
      form: isForm(e.request.postData?.mimeType) || (e.request.postData?.text === undefined && (e.request.postData?.params?.length ?? 0) > 0),
      credentials: Object.fromEntries((e.request.headers ?? []).filter((h) => CREDENTIALS.has(h.name.toLowerCase())).map((h) => [h.name, h.value])),
      at,
      recorded: { status: e.response.status, body },
    });
  });
  // Array.prototype.sort is stable: entries asked at the same time keep the file's order.
  calls.sort((a, b) => a.at - b.at);
  return { calls, skipped, notApi };
}

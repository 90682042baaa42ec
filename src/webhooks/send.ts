import { performance } from 'node:perf_hooks';
import { describeError } from './signing.js';

/** What one POST came to: the receiver's status, or the error (refused, no answer in time …); how long it took. */
export interface Sent {
  status: number | null;
  error: string | null;
  latency_ms: number;
}

/**
 * One POST of `raw` to `url` with `headers`, answered within `timeoutMs` (real time) or failed
 * with `no answer within … ms`. Redirects are never followed (a 3xx is the answer). `controller`
 * lets the caller abort it (a stop); its reason is then the error.
 */
export async function post(url: string, raw: string, headers: Record<string, string>, timeoutMs: number, controller = new AbortController()): Promise<Sent> {
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const res = await fetch(url, { method: 'POST', body: raw, redirect: 'manual', signal: controller.signal, headers });
    status = res.status;
    await res.body?.cancel().catch(() => undefined);
  } catch (err) {
    error = describeError(controller.signal.aborted ? controller.signal.reason : err);
  } finally {
    clearTimeout(timer);
  }
  return { status, error, latency_ms: Math.round(performance.now() - started) };
}

export const is2xx = (status: number | null): boolean => status !== null && status >= 200 && status < 300;
export const is4xx = (status: number | null): boolean => status !== null && status >= 400 && status < 500;

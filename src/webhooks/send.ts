import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { describeError } from './signing.js';

/** What one POST came to: the receiver's status, or the error (refused, no answer in time …); how long it took. */
export interface Sent {
  status: number | null;
  error: string | null;
  latency_ms: number;
}

// One keep-alive pool per scheme for every delivery, probe and relay: a receiver's connection is
// reused from one attempt to the next. An idle socket is closed a second before the receiver's
// announced `Keep-Alive: timeout=` (node's agent reads it), so an attempt does not meet a socket
// the receiver has just closed; idle sockets do not keep the process alive.
const AGENTS = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/**
 * One POST of `raw` to `url` with `headers`, answered within `timeoutMs` (real time) or failed
 * with `no answer within … ms`. Redirects are never followed (a 3xx is the answer). `controller`
 * lets the caller abort it (a stop); its reason is then the error. The answer is the status line:
 * the receiver's body is read and dropped (within the same time, else its connection is closed).
 *
 * node:http rather than fetch: a delivery is one POST whose body is never used, and node's client
 * does that for a fraction of undici's CPU (which the fleet benchmark showed on every webhook).
 */
export function post(url: string, raw: string, headers: Record<string, string>, timeoutMs: number, controller = new AbortController()): Promise<Sent> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`not an http(s) URL: ${target.protocol}`);
    } catch (err) {
      resolve({ status: null, error: describeError(err), latency_ms: 0 });
      return;
    }
    const { signal } = controller;
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let settled = false;
    const settle = (sent: Omit<Sent, 'latency_ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...sent, latency_ms: latency() });
    };
    const fail = (err: unknown) => {
      clearTimeout(timer);
      settle({ status: null, error: describeError(signal.aborted ? signal.reason : err) });
    };
    if (signal.aborted) return fail(signal.reason);
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(target, {
      method: 'POST',
      agent: AGENTS[target.protocol],
      signal,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(raw)) },
    });
    req.on('error', fail);
    req.on('response', (res) => {
      settle({ status: res.statusCode ?? null, error: null });
      // The body is not wanted; drain it (so the connection can be reused) until the time is up.
      res.on('error', () => undefined);
      res.on('close', () => clearTimeout(timer));
      res.resume();
    });
    req.end(raw);
  });
}

export const is2xx = (status: number | null): boolean => status !== null && status >= 200 && status < 300;
export const is4xx = (status: number | null): boolean => status !== null && status >= 400 && status < 500;

import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { describeError } from './signing.js';
import { unsendable } from './targets.js';

/** What one POST came to: the receiver's status, or the error (refused, no answer in time …); how long it took. */
export interface Sent {
  status: number | null;
  error: string | null;
  latency_ms: number;
}

// One keep-alive pool per scheme for every delivery and probe: a receiver's connection is reused
// from one attempt to the next. An idle socket is closed after IDLE_MS, or a second before the
// receiver's announced `Keep-Alive: timeout=` when that is sooner (node's agent reads the hint
// only under its own `timeout`), so an attempt does not meet a socket the receiver has just
// closed (node's HTTP server closes idle ones after 5 s); idle sockets do not keep the process
// alive. The agent's `timeout` only ends idle sockets: an attempt's own time limit is below.
const IDLE_MS = 4000;
const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, timeout: IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: IDLE_MS }),
};

/**
 * One POST of `raw` to `url` with `headers`, answered within `timeoutMs` (real time) or failed
 * with `no answer within … ms`. Redirects are never followed (a 3xx is the answer). `controller`
 * lets the caller abort it (a stop); its reason is then the error. The answer is the status line:
 * the receiver's body is read and dropped (within the same time, else its connection is closed;
 * the caller's controller is not touched then).
 *
 * node:http rather than fetch: a delivery is one POST whose body is never used, and node's client
 * does that for less of the CPU than undici (which the fleet benchmark's profile showed on every
 * webhook). Unlike fetch it would connect to any port, take port 0 for the default one and send a
 * URL's credentials; the first two are refused here as fetch refused them, the last is too
 * (`unsendable`, which the places that set a URL check as well).
 */
export function post(url: string, raw: string, headers: Record<string, string>, timeoutMs: number, controller = new AbortController()): Promise<Sent> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
      const problem = unsendable(target);
      if (problem !== null) throw new Error(problem);
    } catch (err) {
      resolve({ status: null, error: describeError(err), latency_ms: 0 });
      return;
    }
    const { signal } = controller;
    let settled = false;
    // The time is up: with no answer yet, the attempt fails (the caller's controller says why);
    // after the answer, only the body still being read is cut off.
    const timer = setTimeout(() => {
      if (settled) return req.destroy();
      const reason = new Error(`no answer within ${timeoutMs} ms`);
      controller.abort(reason);
      settle({ status: null, error: describeError(reason) });
    }, timeoutMs);
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
    let req: http.ClientRequest;
    try {
      req = client.request(target, {
        method: 'POST',
        agent: target.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'],
        signal,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(raw)) },
      });
    } catch (err) {
      // A header node refuses (ERR_INVALID_CHAR …): an error, not a throw.
      return fail(err);
    }
    req.on('error', fail);
    // A 101 with Upgrade: node hands the socket over and emits neither 'response' nor 'error'.
    // It is an answer that is not a 2xx; the socket is not wanted.
    req.on('upgrade', (res, socket) => {
      clearTimeout(timer);
      socket.destroy();
      settle({ status: res.statusCode ?? null, error: null });
    });
    // Whatever else ends the request without an answer ends the attempt too.
    req.on('close', () => {
      if (!settled) fail(new Error('the connection was closed without an answer'));
    });
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

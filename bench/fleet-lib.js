// Shared by bench/fleet.js (the orchestrator), bench/fleet-shard.js (one CI shard) and
// test/bench-fleet.test.ts: the flow kinds, the V2 webhook signature check, the invariant checks
// (pure functions of what a shard created and what the sandbox lists), latency summaries, and
// /proc readings of a server process, the shards' HTTP client and their niceness. Kept light: a
// shard process imports it, so only node: built-ins, nothing of the sandbox's dist.
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

/** The fixed suite of a shard: flow n is of kind FLOW_KINDS[n % FLOW_KINDS.length]. */
export const FLOW_KINDS = [
  'v2-imps-success',
  'v1-neft-success',
  'v2-rtgs-success',
  'v1-imps-failed-refunded',
  'v2-neft-pending-30m',
  'v2-unknown-then-success',
  'v1-unknown-then-failed',
  'v2-success-then-reversal',
  'v1-new-pending-success',
  'v2-read-after-write-lag',
  'v2-poll-driven',
  'magic-rejections',
  'natural-errors',
  'fault-500-created',
  'fault-drop-created',
  'fault-injected-retry',
  'fault-held-answer',
  'beneficiary-activation',
  'verification',
  'rate-limit-429',
];

/** Operations whose latency is the server's own work (a held answer waits on purpose: reported, left out of the target). */
export const isHeldOp = (op) => op.endsWith('_held');

/** The payout statuses after which a status check need not be repeated (Success may still be reversed later). */
export const FINAL = new Set(['Success', 'Failed']);

// --- webhooks ---------------------------------------------------------------------------------

export const SIGNATURE_TOLERANCE_S = 300;

/**
 * Whether `X-Sandbox-Signature-V2` (`t=<s>,v1=<hex>[,v1=<hex>]`) verifies for the raw body and
 * secret (docs/webhooks.md "Verifying the signature"): one v1 equal, in constant time, to the hex
 * HMAC-SHA256 of "<t>." + raw body, and t within 300 s of our clock. V2 only.
 */
export function verifyV2(header, rawBody, secret, nowS = Math.floor(Date.now() / 1000)) {
  const parts = String(header ?? '')
    .split(',')
    .map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowS - t) > SIGNATURE_TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return parts.some(([k, v]) => {
    if (k !== 'v1' || !v || !/^[0-9a-f]+$/i.test(v)) return false;
    const given = Buffer.from(v, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A header value as the receiver signs one (for the test of verifyV2). */
export function signV2(rawBody, secret, t = Math.floor(Date.now() / 1000)) {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex')}`;
}

// --- invariants -------------------------------------------------------------------------------

/**
 * Everything that says one shard's world leaked into another's or lost something, checked
 * exhaustively from what the shard created and what the sandbox answers for its merchant:
 *
 * - `created`: `{ payouts: [{ client_ref_id, ref_id }], beneficiaries: [id], verifications: [id] }`
 *   (what the shard's own calls created, faulted initializes that were made included);
 * - `listed`: the control API's lists of the shard's merchant, every page: `{ payouts: [{ client_ref_id,
 *   ref_id }], beneficiaries: [id], verifications: [id], deliveries: [{ ref_id }] }`;
 * - `webhooks`: what the shard's receiver got: `[{ ref_id, client_ref_id, status, verified }]`;
 * - `probes`: other shards' ids asked with this shard's credentials: `[{ what, id, leaked, answer }]`
 *   (`leaked`: anything but the documented not-found answer).
 *
 * Returns `[{ kind, detail }]`, empty when the shard's world is exactly its own.
 */
export function isolationViolations({ created, listed, webhooks = [], probes = [] }) {
  const out = [];
  const add = (kind, detail) => out.push({ kind, detail });
  const mine = new Map(created.payouts.map((p) => [p.client_ref_id, String(p.ref_id)]));
  const myRefs = new Set(created.payouts.map((p) => String(p.ref_id)));
  const seen = new Map();
  for (const p of listed.payouts) {
    seen.set(p.client_ref_id, (seen.get(p.client_ref_id) ?? 0) + 1);
    if (!mine.has(p.client_ref_id)) add('payout-not-created-by-shard', `listed payout ${p.client_ref_id} (ref_id ${p.ref_id}) was not created by this shard`);
    else if (mine.get(p.client_ref_id) !== String(p.ref_id))
      add('payout-ref-mismatch', `listed payout ${p.client_ref_id} has ref_id ${p.ref_id}, the shard was answered ${mine.get(p.client_ref_id)}`);
  }
  for (const [cref, n] of seen) if (n > 1) add('payout-duplicated', `client_ref_id ${cref} listed ${n} times`);
  for (const cref of mine.keys()) if (!seen.has(cref)) add('payout-missing', `created payout ${cref} is not in the merchant's listing`);
  sameSet(created.beneficiaries, listed.beneficiaries, 'beneficiary', add);
  sameSet(created.verifications, listed.verifications, 'verification', add);
  for (const d of listed.deliveries ?? []) {
    if (!myRefs.has(String(d.ref_id)))
      add('delivery-not-for-shard', `a webhook delivery of the merchant is for ref_id ${d.ref_id}, not one of the shard's payouts`);
  }
  for (const w of webhooks) {
    if (!w.verified) add('webhook-unverified', `webhook ${w.delivery_id ?? ''} for ref_id ${w.ref_id} did not verify (V2 signature)`);
    if (!myRefs.has(String(w.ref_id)) || mine.get(w.client_ref_id) !== String(w.ref_id))
      add('webhook-not-for-shard', `the receiver got a webhook for ref_id ${w.ref_id} (${w.client_ref_id}), not one of the shard's payouts`);
  }
  for (const p of probes) if (p.leaked) add('foreign-id-visible', `another shard's ${p.what} ${p.id} answered ${p.answer}`);
  return out;
}

function sameSet(created, listed, what, add) {
  const a = new Set(created);
  const b = new Set(listed);
  if (b.size !== listed.length) add(`${what}-duplicated`, `a ${what} id is listed twice`);
  for (const id of b) if (!a.has(id)) add(`${what}-not-created-by-shard`, `listed ${what} ${id} was not created by this shard`);
  for (const id of a) if (!b.has(id)) add(`${what}-missing`, `created ${what} ${id} is not in the merchant's listing`);
}

/** Listed payouts in a final status without a verified webhook of that status: `[{ ref_id, client_ref_id, status }]`. */
export function missingWebhooks(listedPayouts, webhooks) {
  const got = new Set(webhooks.filter((w) => w.verified).map((w) => `${w.ref_id}|${w.status}`));
  return listedPayouts.filter((p) => FINAL.has(p.status) && !got.has(`${p.ref_id}|${p.status}`));
}

/**
 * The run's invariants from a results document (what fleet.js writes): every one must hold, or the
 * run exits 1. Returns `[{ name, passed, detail }]`.
 */
export function evaluateInvariants(results) {
  const out = [];
  for (const [mode, r] of Object.entries(results.modes)) {
    const redFlows = r.flows.red.slice(0, 5).map((f) => `shard ${f.shard} flow ${f.flow} ${f.kind}: ${f.reason}`);
    out.push({
      name: `${mode}: every flow green`,
      passed: r.flows.green === r.flows.total && r.flows.total === r.flows.expected,
      detail: `${r.flows.green}/${r.flows.total} green (${r.flows.expected} expected)${redFlows.length ? `; ${redFlows.join('; ')}` : ''}`,
    });
    out.push({
      name: `${mode}: every shard finished`,
      passed: r.shards.finished === r.shards.total,
      detail: `${r.shards.finished}/${r.shards.total}${r.shards.failures.length ? `; ${r.shards.failures.slice(0, 3).join('; ')}` : ''}`,
    });
    out.push({
      name: `${mode}: 0 cross-talk`,
      passed: r.cross_talk.count === 0 && r.cross_talk.checked_shards === r.shards.total,
      detail: `${r.cross_talk.count} violations over ${r.cross_talk.checked_shards} shards checked${r.cross_talk.violations.length ? `; ${r.cross_talk.violations.slice(0, 3).join('; ')}` : ''}`,
    });
    out.push({
      name: `${mode}: 0 unexpected 429`,
      passed: r.http_429.unexpected === 0,
      detail: `${r.http_429.unexpected} unexpected, ${r.http_429.expected} expected${r.http_429.examples.length ? `; ${r.http_429.examples.slice(0, 3).join('; ')}` : ''}`,
    });
    out.push({
      name: `${mode}: every final payout's webhook delivered and verified`,
      passed: r.webhooks.missing === 0 && r.webhooks.unverified === 0,
      detail: `${r.webhooks.final_payouts} final payouts, ${r.webhooks.missing} without a verified webhook; ${r.webhooks.received} received, ${r.webhooks.unverified} unverified`,
    });
    out.push({
      name: `${mode}: the server(s) stopped cleanly`,
      passed: r.server.clean_exits === r.server.processes,
      detail: `${r.server.clean_exits}/${r.server.processes} exited 0`,
    });
  }
  return out;
}

// --- latency ----------------------------------------------------------------------------------

/** Nearest-rank percentile of a sorted array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** `[ms…]` → `{ count, p50, p99, max }` (null percentiles when empty). */
function latencySummary(ms) {
  const s = ms.sort((a, b) => a - b);
  const r2 = (x) => (x === null || x === undefined ? null : Math.round(x * 100) / 100);
  return { count: s.length, p50: r2(percentile(s, 50)), p99: r2(percentile(s, 99)), max: r2(s[s.length - 1]) };
}

/** `{ op: [ms…] }` merged over shards → `{ op: { count, p50, p99, max } }`, ops sorted by name. */
export function summarizeLatencies(perShard) {
  const all = {};
  for (const samples of perShard) for (const [op, ms] of Object.entries(samples)) (all[op] ??= []).push(...ms);
  const out = {};
  for (const op of Object.keys(all).sort()) out[op] = latencySummary(all[op]);
  return out;
}

/** `{ op: [ms…] }` of every shard, every operation but those `leftOut` says, as one `{ count, p50, p99, max }`. */
export function pooledLatency(perShard, leftOut = () => false) {
  const all = [];
  for (const samples of perShard) for (const [op, ms] of Object.entries(samples)) if (!leftOut(op)) all.push(...ms);
  return latencySummary(all);
}

// --- /proc ------------------------------------------------------------------------------------

let clockTicks;
function ticksPerSecond() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** The machine a benchmark ran on: CPU model, cores, memory, Node, kernel. */
export function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {}
  return {
    cpu_model: cpu.trim(),
    cores: os.cpus().length,
    total_memory_bytes: os.totalmem(),
    node: process.version,
    kernel: os.release(),
    platform: `${process.platform}-${process.arch}`,
  };
}

/** A /proc/…/stat file read once: its field `n` (1-based, as proc(5) numbers them), past the command name (which may hold spaces). */
function statOf(path) {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (n) => Number(fields[n - 3]);
}

/** utime + stime in seconds from a process's or a thread's stat file (throws when it cannot be read). */
function statCpuSeconds(path) {
  const field = statOf(path);
  return (field(14) + field(15)) / ticksPerSecond(); // utime, stime
}

/** utime + stime of a process in seconds (/proc/<pid>/stat), or null when it cannot be read. */
export function cpuSeconds(pid) {
  try {
    return statCpuSeconds(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
}

/**
 * A process's main thread (the event loop's), from /proc/<pid>/task/<pid>: the seconds it ran on a
 * core and the seconds it could have run but waited for one (`schedstat`, nanoseconds), and how
 * many times it was taken off a core while it could have run (nonvoluntary context switches).
 * Where the kernel keeps no schedstat, the seconds on a core come from `stat` (clock ticks) and
 * the wait is null; `source` says which, so that two readings are compared only alike. Null when
 * the thread cannot be read.
 */
export function mainThread(pid) {
  const task = `/proc/${pid}/task/${pid}`;
  try {
    const preempted = Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(readFileSync(`${task}/status`, 'utf8'))?.[1]);
    const reading = { preempted: Number.isFinite(preempted) ? preempted : null };
    try {
      const [runNs, waitNs] = readFileSync(`${task}/schedstat`, 'utf8').trim().split(' ').map(Number);
      if (Number.isFinite(runNs) && Number.isFinite(waitNs)) return { source: 'schedstat', cpu_s: runNs / 1e9, waited_for_core_s: waitNs / 1e9, ...reading };
    } catch {}
    return { source: 'stat', cpu_s: statCpuSeconds(`${task}/stat`), waited_for_core_s: null, ...reading };
  } catch {
    return null;
  }
}

/** VmHWM (peak) and VmRSS of a process in KiB (/proc/<pid>/status), or nulls. */
export function memoryKiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { hwm: kib('VmHWM'), rss: kib('VmRSS') };
  } catch {
    return { hwm: null, rss: null };
  }
}

// A shard is the instrument, not what is measured, and makes no TLS connection: it runs without
// NODE_EXTRA_CA_CERTS. Node 20 reads and parses that bundle at every process start (on this
// machine, where it is set to the system's, `node -e 0` takes about 128 ms of CPU with it and 45 ms
// without), which for 64 shards is about 5 s of CPU spent before their first request. The sandboxes
// keep the environment as given: the shard hands the value on under SHARD_CA_KEY for its executable.
const SHARD_CA_KEY = 'PAYOUT_FLEET_NODE_EXTRA_CA_CERTS';

/** The environment for a shard process: ours without NODE_EXTRA_CA_CERTS (kept aside for its sandbox). */
export function shardEnv(env = process.env) {
  const { NODE_EXTRA_CA_CERTS: ca, ...rest } = env;
  return ca === undefined ? rest : { ...rest, [SHARD_CA_KEY]: ca };
}

/** The environment for a sandbox process: ours without SANDBOX_* variables, so only the command line configures it (and NODE_EXTRA_CA_CERTS as the orchestrator had it). */
export function sandboxEnv(env = process.env) {
  const out = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('SANDBOX_') && k !== SHARD_CA_KEY));
  if (env[SHARD_CA_KEY] !== undefined) out.NODE_EXTRA_CA_CERTS = env[SHARD_CA_KEY];
  return out;
}

/** Resolves with the API base URL from a starting sandbox's banner (stdout), or rejects when it exits or `ms` pass first. */
export function bannerUrl(child, ms = 30_000) {
  return new Promise((resolve, reject) => {
    let out = '';
    const done = (err, url) => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      child.stdout.resume();
      if (err) reject(err);
      else resolve(url);
    };
    const onData = (d) => {
      out += d;
      const m = /API base URL:\s+(\S+)/.exec(out);
      if (m) done(null, m[1]);
    };
    const onExit = (code) => done(new Error(`the sandbox exited (${code}) before it listened: ${out.slice(-500)}`));
    const timer = setTimeout(() => done(new Error(`the sandbox did not listen within ${ms} ms: ${out.slice(-500)}`)), ms);
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Stops a child with SIGTERM; SIGKILL after `ms`. Resolves with its exit code (null when killed). */
export function stopChild(child, ms = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/** Resolves once a process has used (almost) no CPU for `windowMs` (a sandbox compiles its request schemas after it listens), or after `maxMs`: the ms waited. */
export async function settled(pid, { windowMs = 200, maxMs = 10_000 } = {}) {
  const started = performance.now();
  let before = cpuSeconds(pid);
  while (performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = cpuSeconds(pid);
    if (now === null || now - before <= 0.01) break;
    before = now;
  }
  return Math.round(performance.now() - started);
}

/** CPU seconds the whole machine spent busy (every core; /proc/stat: all but idle and iowait), or null. */
export function machineBusySeconds() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = cpu;
    return (user + nice + system + irq + softirq + (steal || 0)) / ticksPerSecond();
  } catch {
    return null;
  }
}

// --- the shards' wire: HTTP/1.1 over node:net, kept alive -------------------------------------

const INTERIM = (status) => status >= 100 && status < 200 && status !== 101;

/**
 * Parses the response at the start of `buf` (a Buffer): null while it is not whole yet;
 * `{ status, headers, body, close, used }` when it is (`used`: its length in bytes, interim 1xx
 * answers before it included; `close`: the server will close the connection). The body is framed
 * by Content-Length or chunked transfer coding; with neither, it runs to the connection's end
 * (`eof`). Header names are lower case; a repeated header's values are joined with ", ". Throws
 * on what is not an HTTP response or not framed as one.
 */
export function parseResponse(buf, eof = false, from = 0) {
  const end = buf.indexOf('\r\n\r\n', from);
  if (end === -1) return null;
  const lines = buf.toString('latin1', from, end).split('\r\n');
  const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]);
  if (!m) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0].slice(0, 40))}`);
  const status = Number(m[2]);
  const start = end + 4;
  // 100 Continue, 103 Early Hints: the answer comes after them.
  if (INTERIM(status)) return parseResponse(buf, eof, start);
  const headers = Object.create(null);
  for (const line of lines.slice(1)) {
    const c = line.indexOf(':');
    if (c <= 0) throw new Error(`not a header line: ${JSON.stringify(line.slice(0, 40))}`);
    const k = line.slice(0, c).trim().toLowerCase();
    const v = line.slice(c + 1).trim();
    headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
  }
  const connection = headers.connection ?? '';
  const close = /\bclose\b/i.test(connection) || (m[1] === '0' && !/\bkeep-alive\b/i.test(connection));
  const answer = (body, used) => ({ status, headers, body, close, used });
  if (status === 204 || status === 304) return answer(buf.subarray(start, start), start);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const parts = [];
    let at = start;
    for (;;) {
      const nl = buf.indexOf('\r\n', at);
      if (nl === -1) return null;
      const sizeText = buf.toString('latin1', at, nl).split(';')[0].trim(); // a chunk extension is ignored
      if (!/^[0-9a-f]+$/i.test(sizeText)) throw new Error(`not a chunk size: ${JSON.stringify(sizeText.slice(0, 20))}`);
      const size = Number.parseInt(sizeText, 16);
      if (size === 0) {
        // The last chunk, then trailer lines (if any) and an empty line.
        const tail = buf.indexOf('\r\n', nl + 2) === nl + 2 ? nl + 2 : buf.indexOf('\r\n\r\n', nl + 2) + 2;
        return tail < nl + 2 ? null : answer(Buffer.concat(parts), tail + 2);
      }
      if (buf.length < nl + 2 + size + 2) return null;
      if (buf[nl + 2 + size] !== 13 || buf[nl + 3 + size] !== 10) throw new Error('a chunk not followed by CRLF');
      parts.push(buf.subarray(nl + 2, nl + 2 + size));
      at = nl + 2 + size + 2;
    }
  }
  if (headers['content-length'] !== undefined) {
    if (!/^\d+$/.test(headers['content-length'])) throw new Error(`not a Content-Length: ${JSON.stringify(headers['content-length'])}`);
    const n = Number(headers['content-length']);
    return buf.length < start + n ? null : answer(buf.subarray(start, start + n), start + n);
  }
  return eof ? { ...answer(buf.subarray(start), buf.length), close: true } : null;
}

// The errors after which a GET on a kept-alive connection is sent once more: the server closed it
// while it was idle (nothing of an answer came). A timeout is not one of them.
const CLOSED_IDLE = new Set(['ECONNRESET', 'EPIPE', 'EOF']);

/**
 * The shards' HTTP client. A shard is the instrument, and it shares the machine's cores with the
 * sandbox it measures: like autocannon, it writes its requests and reads the answers itself (a
 * request line and headers, a Content-Length or chunked body), over at most `maxSockets`
 * kept-alive connections. Every request is timed by operation (`samples`), a retried GET from
 * its first attempt; a 429 is counted as expected or not. The flows' requests are also filed by
 * the connection their answer came on (`byConnection`): a new one (its connect, and its wait to
 * be accepted, in the time) or one kept alive.
 */
export class Client {
  constructor(base, { label = '', timeoutMs = 30_000, maxSockets = 8, thinkMs = 0 } = {}) {
    const u = new URL(base);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.hostHeader = u.host;
    this.label = label;
    this.timeoutMs = timeoutMs;
    this.maxSockets = maxSockets;
    this.thinkMs = thinkMs;
    this.sockets = new Set();
    this.idle = [];
    this.queue = [];
    // Each request's time goes with the shard's phase: 'flows' (the CI suite, what the targets are
    // read on), 'warm-up' (before the start barrier) or 'audit' (the end-of-run checks).
    this.phase = 'flows';
    this.samples = {};
    this.warmUpSamples = {};
    this.auditSamples = {};
    this.byConnection = { new: {}, kept_alive: {} };
    this.http429 = { expected: 0, unexpected: 0, examples: [] };
    this.requests = 0;
  }

  /** A kept-alive connection (`reused`), a new one, or (at maxSockets) the next one released. */
  connection() {
    const s = this.idle.pop();
    if (s) return Promise.resolve({ s, reused: true });
    if (this.sockets.size < this.maxSockets) return Promise.resolve({ s: this.connect(), reused: false });
    return new Promise((resolve) => this.queue.push(resolve));
  }

  connect() {
    const s = net.connect(this.port, this.host);
    s.setNoDelay(true);
    this.sockets.add(s);
    s.on('error', () => {}); // reported by the exchange under way, if any; an idle one just closes
    s.once('close', () => {
      this.sockets.delete(s);
      const i = this.idle.indexOf(s);
      if (i !== -1) this.idle.splice(i, 1);
      if (this.queue.length > 0 && this.sockets.size < this.maxSockets) this.queue.shift()({ s: this.connect(), reused: false });
    });
    return s;
  }

  /** Back to the pool, or closed (the answer said so, or it was not read whole: what follows on it is not ours to read). */
  release(s, close) {
    if (close || s.destroyed) {
      s.destroy();
      return;
    }
    if (this.queue.length > 0) this.queue.shift()({ s, reused: true });
    else this.idle.push(s);
  }

  /** Writes one request on `s` and reads its answer: `{ status, headers, body }`, or `{ error, empty }` when none came. */
  exchange(s, data) {
    return new Promise((resolve) => {
      let buf = null;
      const done = (r) => {
        clearTimeout(timer);
        s.off('data', onData);
        s.off('end', onEnd);
        s.off('close', onEnd);
        s.off('error', onError);
        resolve(r);
      };
      const parsed = (eof) => {
        try {
          const r = parseResponse(buf, eof);
          if (r && r.used !== buf.length) r.close = true; // more than one answer: not ours to read on
          return r;
        } catch (err) {
          return { error: err.message, empty: false, close: true };
        }
      };
      const onData = (d) => {
        buf = buf === null ? d : Buffer.concat([buf, d]);
        const r = parsed(false);
        if (r) done(r);
      };
      const onEnd = () => done((buf && parsed(true)) || { error: buf === null ? 'EOF' : 'ECONNRESET', empty: buf === null, close: true });
      const onError = (err) => done({ error: err.code ?? err.message, empty: buf === null, close: true });
      const timer = setTimeout(() => done({ error: 'timeout', empty: buf === null, close: true }), this.timeoutMs);
      s.on('data', onData);
      s.once('end', onEnd);
      s.once('close', onEnd);
      s.on('error', onError);
      s.write(data);
    });
  }

  /** Resolves `{ status, headers, json, text, error, ms }`; `status` 0 when no answer came (`error` says why). */
  async request(op, method, path, { headers = {}, body, expect429 = false } = {}) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (!/^[A-Z]+$/.test(method) || !/^\/[\x21-\x7e]*$/.test(path)) throw new Error(`not a request line: ${method} ${JSON.stringify(path)}`);
    let head = `${method} ${path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\n`;
    for (const [k, v] of Object.entries(headers)) {
      if (/[\r\n]/.test(`${k}${v}`)) throw new Error(`header ${k}: a line break`);
      head += `${k}: ${v}\r\n`;
    }
    if (payload !== undefined) head += `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n`;
    head += '\r\n';
    const data = payload === undefined ? head : head + payload;
    // The phase the request is made in (not the one it ends in) decides where its time goes.
    const into = this.phase === 'audit' ? this.auditSamples : this.phase === 'warm-up' ? this.warmUpSamples : this.samples;
    // A test's own work between its calls (--think-ms): before the request, outside its timing.
    if (this.thinkMs > 0) await delay(this.thinkMs);
    const started = performance.now();
    let r;
    let onNew = false;
    for (let attempt = 1; ; attempt++) {
      const { s, reused } = await this.connection();
      onNew = !reused;
      r = await this.exchange(s, data);
      this.release(s, r.close);
      // A kept-alive connection the server closed while idle: a GET is safe to send once more.
      if (!(r.error && r.empty && reused && CLOSED_IDLE.has(r.error) && method === 'GET' && attempt === 1)) break;
    }
    const ms = performance.now() - started;
    this.requests += 1;
    const rounded = Math.round(ms * 100) / 100;
    (into[op] ??= []).push(rounded);
    if (into === this.samples) (this.byConnection[onNew ? 'new' : 'kept_alive'][op] ??= []).push(rounded);
    if (r.error) return { status: 0, error: r.error, ms };
    if (r.status === 429) {
      if (expect429) this.http429.expected += 1;
      else {
        this.http429.unexpected += 1;
        if (this.http429.examples.length < 5) this.http429.examples.push(`${this.label} ${op} ${method} ${path}`);
      }
    }
    const text = r.body.toString('utf8');
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: r.status, headers: r.headers, json, text, ms };
  }

  /** Closes every connection now; the next request opens a new one (after the warm-up: the flows' first request is timed with its connect, as a test client's is). */
  destroy() {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.idle = [];
  }
}

// --- niceness --------------------------------------------------------------------------------

/** The niceness of every thread of a process (Linux: /proc/<pid>/task/<tid>/stat), sorted and unique, or null. */
export function threadNiceness(pid = process.pid) {
  try {
    const values = readdirSync(`/proc/${pid}/task`).map((tid) => statOf(`/proc/${pid}/task/${tid}/stat`)(19)); // nice
    return [...new Set(values)].sort((a, b) => a - b);
  } catch {
    return null;
  }
}

/**
 * Lowers this process's priority to `nice` (never raises it): every thread's, since on Linux a
 * niceness belongs to a thread and V8's helper threads are already running. Threads made later
 * take their maker's. What a thread does not allow stays as it is; threadNiceness() says.
 */
export function yieldCpu(nice) {
  let tids = [0];
  try {
    tids = readdirSync('/proc/self/task').map(Number);
  } catch {}
  for (const tid of tids) {
    try {
      if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
    } catch {}
  }
}

import { lookup } from 'node:dns/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { formatDuration, parseDuration } from '../duration.js';
import { VERSION } from '../version.js';
import { plain, SelfAddresses } from '../webhooks/self.js';
import { HarAppender, type HarEntry, RECORDER_NAME, type RecordingInfo } from './har.js';
import { CREDENTIAL_HEADERS, Scrubber, scrubFields } from './scrub.js';

/**
 * `payout-sandbox record --upstream URL --out FILE.har …` (docs/fidelity.md): a recording proxy.
 * The merchant points its client's base URL at it; each request goes to the real service as it
 * came (no retries), the answer comes back as it came, and the exchange is appended to a HAR file,
 * scrubbed before any of it is written. Only for the merchant's own session on 127.0.0.1: it
 * calls the real service with real credentials, so it says so, and it refuses an upstream that
 * would be itself, or (unless told) this machine.
 */

export const DEFAULT_RECORD_PORT = 4011;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
/** How long a stop waits for exchanges in flight before it ends them as unanswered. */
export const STOP_GRACE_MS = 10_000;
/** The checkout API's one operation, which may live on a host of its own (--checkout-upstream). */
const CHECKOUT_PATH = /^\/api\/v1\/payment\/transaction\/[^/?#]+\/status(?:[?#]|$)/;
/** Headers of one connection, not of the message (RFC 9110 §7.6.1): neither forwarded nor relayed. */
const HOP_BY_HOP = /^(connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade)$/i;
/** The variable of the start's test pauses (src/signals.ts): `record-append-<n>:<marker>` tears the n-th append. */
const PAUSE_VARIABLE = 'PAYOUT_SANDBOX_TEST_PAUSE';

/** The recorder cannot start: the message, and the exit code of the verb. */
export class RecordError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const USAGE = 2;
const FAILED = 1;

export interface RecorderOptions {
  /** The real service's base URL (http or https; a path is kept as a prefix). */
  upstream: string;
  /** Where the checkout status operation goes; `upstream` when not given. */
  checkoutUpstream?: string;
  /** Port on 127.0.0.1: 4011 by default, 0 for a free one. */
  port?: number;
  /** The HAR file. */
  out: string;
  /** Field names whose values are scrubbed (comma-separated lists taken too). */
  scrub?: string[];
  /** Allow an upstream on this machine (a local sandbox, a tunnel): refused otherwise. */
  allowLoopbackUpstream?: boolean;
  /** How long an exchange may take before it counts as unanswered (30 s). */
  timeoutMs?: number;
  /** Replace an existing `out` file (refused otherwise: a recording of real calls cannot be made again). */
  force?: boolean;
  /** Each entry as written (scrubbed), with its number. */
  onEntry?: (entry: HarEntry, n: number) => void;
  /** An entry that could not be written. */
  onWriteError?: (err: Error, entry: HarEntry) => void;
  /** Tests only: see AppenderOptions.tearAt. */
  tearAt?: { entry: number; marker: string };
}

export interface Recorder {
  url: string;
  port: number;
  /** Entries written so far. */
  entries(): number;
  /** Entries that could not be written. */
  lost(): number;
  /** Whether `out` was there before (and replaced: --force). */
  replaced: boolean;
  upstream: string;
  checkoutUpstream: string;
  out: string;
  fields: string[];
  /** The reference's other names for the fields, scrubbed with them (`bank_account_number` for `account_number`). */
  aliases: string[];
  /** Stops taking requests, lets those in flight finish (STOP_GRACE_MS at most, then ends them as unanswered), closes the file. */
  close(): Promise<void>;
}

/** An upstream base URL, checked: http(s), no credentials, query or fragment in it. */
function upstreamOf(value: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RecordError(`${option} must be the service's base URL, e.g. https://uat.example.com (got ${JSON.stringify(value)}).`, USAGE);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RecordError(`${option} must be an http or https URL (got ${url.protocol.slice(0, -1)}).`, USAGE);
  if (url.username || url.password)
    throw new RecordError(
      `${option} must not carry credentials: they would be written to the recording unscrubbed. Give them to your client as headers.`,
      USAGE,
    );
  if (url.search || url.hash) throw new RecordError(`${option} must be a base URL, without a query or a fragment.`, USAGE);
  return url;
}

const baseOf = (url: URL) => `${url.origin}${url.pathname.replace(/\/+$/, '')}`;

const isLocal = (address: string) => {
  const a = plain(address);
  return a === '::1' || a === '::' || /^127\./.test(a) || /^0\./.test(a);
};

/** Why an upstream on this machine is refused, or null: loopback or unspecified, by address or by what its name resolves to. */
async function loopbackProblem(url: URL, option: string): Promise<string | null> {
  const host = plain(url.hostname);
  const because = (what: string) =>
    `${option} ${baseOf(url)} is ${what}: the recorder is for calls to the real service. Give --allow-loopback-upstream to record a service on this machine (a local sandbox, a tunnel).`;
  if (isIP(host)) return isLocal(host) ? because('a loopback or unspecified address') : null;
  if (host === 'localhost' || host.endsWith('.localhost')) return because('this machine (localhost)');
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true })).map((a) => a.address);
  } catch (err) {
    return `${option}: cannot resolve ${url.hostname} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check the URL.`;
  }
  const local = addresses.find(isLocal);
  return local === undefined ? null : because(`this machine (${url.hostname} resolves to ${local})`);
}

function listenOn(server: Server, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
}

const pairs = (raw: string[]) => {
  const out: Array<{ name: string; value: string }> = [];
  for (let i = 0; i < raw.length; i += 2) out.push({ name: raw[i] as string, value: raw[i + 1] as string });
  return out;
};

const headerOf = (raw: string[], name: string) => pairs(raw).find((h) => h.name.toLowerCase() === name)?.value;

/** Raw headers without the hop-by-hop ones, and without those the Connection header names. */
function endToEnd(raw: string[]): string[] {
  const named = new Set(
    (headerOf(raw, 'connection') ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  return pairs(raw)
    .filter((h) => !HOP_BY_HOP.test(h.name) && !named.has(h.name.toLowerCase()))
    .flatMap((h) => [h.name, h.value]);
}

/** What the upstream answered, whole. */
interface Answer {
  status: number;
  statusText: string;
  httpVersion: string;
  rawHeaders: string[];
  body: Buffer;
}

interface Outcome {
  started: number;
  timings: { send: number; wait: number; receive: number };
  answer: Answer | null;
  error: string | null;
}

const why = (err: Error) => {
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
};

/**
 * One exchange with the upstream: the request as it came (its headers less the hop-by-hop ones,
 * Host the upstream's), its answer read whole. One connection each (no agent): a reused
 * connection the upstream has closed would fail a call that was never made, and nothing is retried.
 */
function forward(
  target: URL,
  method: string,
  headers: string[],
  body: Buffer,
  timeoutMs: number,
  register: (abort: (reason: Error) => void) => void,
): Promise<Outcome> {
  const started = Date.now();
  const t0 = performance.now();
  let sent = t0;
  let answered = t0;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((settle) => {
    let done = false;
    const finish = (answer: Answer | null, error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const end = performance.now();
      const ms = (a: number, b: number) => Math.max(0, Math.round((b - a) * 1000) / 1000);
      const timings = answer
        ? { send: ms(t0, sent), wait: ms(sent, answered), receive: ms(answered, end) }
        : { send: ms(t0, sent), wait: ms(sent, end), receive: 0 };
      settle({ started, timings, answer, error });
    };
    const req = send(target, { method, headers, agent: false }, (res) => {
      answered = performance.now();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        finish(
          {
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            httpVersion: `HTTP/${res.httpVersion}`,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          },
          null,
        ),
      );
      const cut = (err?: Error) => finish(null, `the answer (HTTP ${res.statusCode}) was cut off before its end${err ? `: ${why(err)}` : ''}`);
      res.on('error', cut);
      res.on('close', () => {
        if (!res.complete) cut();
      });
    });
    const abort = (reason: Error) => {
      req.destroy(reason);
      finish(null, reason.message);
    };
    const timer = setTimeout(() => abort(new Error(`no answer within ${formatDuration(timeoutMs)}`)), timeoutMs);
    register(abort);
    req.on('finish', () => {
      sent = performance.now();
    });
    req.on('error', (err) => finish(null, why(err)));
    req.end(body.length > 0 ? body : undefined);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A body as text, or null when it is not UTF-8 (then it is not kept: what cannot be read cannot be scrubbed). */
function textOf(body: Buffer): string | null {
  try {
    return utf8.decode(body);
  } catch {
    return null;
  }
}

/** The answer's body as the client reads it: decoded when the upstream compressed it. */
function decoded(answer: Answer): Buffer | null {
  const encoding = (headerOf(answer.rawHeaders, 'content-encoding') ?? 'identity').trim().toLowerCase();
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(answer.body);
    if (encoding === 'deflate') return inflateSync(answer.body);
    if (encoding === 'br') return brotliDecompressSync(answer.body);
    return encoding === 'identity' ? answer.body : null;
  } catch {
    return null;
  }
}

const queryOf = (url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? [] : [...new URLSearchParams(url.slice(q + 1))].map(([name, value]) => ({ name, value }));
};

/** The exchange as a HAR entry, before scrubbing: never written as it is. */
function entryOf(url: string, method: string, headers: string[], body: Buffer, o: Outcome): HarEntry {
  const notes: Record<`_${string}`, unknown> = {};
  const requestText = body.length > 0 ? textOf(body) : null;
  if (body.length > 0 && requestText === null) notes._request_body = 'not UTF-8 text: not kept';
  const a = o.answer;
  let content: HarEntry['response']['content'] = { size: 0, mimeType: 'x-unknown' };
  if (a) {
    const plainBody = decoded(a);
    const text = plainBody === null ? null : textOf(plainBody);
    if (text === null && a.body.length > 0) notes._response_body = 'not UTF-8 text (or an encoding not read): not kept';
    content = { size: plainBody?.length ?? a.body.length, mimeType: headerOf(a.rawHeaders, 'content-type') ?? 'x-unknown', ...(text === null ? {} : { text }) };
  }
  const time = o.timings.send + o.timings.wait + o.timings.receive;
  return {
    startedDateTime: new Date(o.started).toISOString(),
    time: Math.round(time * 1000) / 1000,
    request: {
      method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(headers),
      queryString: queryOf(url),
      ...(requestText === null ? {} : { postData: { mimeType: headerOf(headers, 'content-type') ?? 'application/octet-stream', text: requestText } }),
      headersSize: -1,
      bodySize: body.length,
    },
    response: {
      status: a?.status ?? 0,
      statusText: a?.statusText ?? '',
      httpVersion: a?.httpVersion ?? '',
      cookies: [],
      headers: a ? pairs(a.rawHeaders) : [],
      content,
      redirectURL: (a && headerOf(a.rawHeaders, 'location')) ?? '',
      headersSize: -1,
      bodySize: a ? a.body.length : -1,
    },
    cache: {},
    timings: o.timings,
    ...(o.error === null ? {} : { _error: o.error }),
    ...notes,
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks)));
    req.on('error', fail);
    req.on('close', () => {
      if (!req.complete) fail(new Error('the client closed the connection before the end of its request'));
    });
  });
}

/** The client's answer when the upstream gave none: envelope A's shape, so a client reads it as a failure. */
function noAnswer(res: ServerResponse, upstream: string, error: string): void {
  const body = JSON.stringify({ success: false, http_code: 502, message: `payout-sandbox record: the upstream ${upstream} did not answer: ${error}` });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Starts the recorder on 127.0.0.1 (refusals reject with a RecordError naming the problem and its exit code). */
export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const upstream = upstreamOf(options.upstream, '--upstream');
  const checkout = options.checkoutUpstream === undefined ? upstream : upstreamOf(options.checkoutUpstream, '--checkout-upstream');
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const fields = scrubFields(options.scrub ?? []);
  const out = resolve(options.out);
  if (!options.allowLoopbackUpstream) {
    for (const [url, option] of [
      [upstream, '--upstream'],
      [checkout, '--checkout-upstream'],
    ] as const) {
      const problem = await loopbackProblem(url, option);
      if (problem) throw new RecordError(problem, USAGE);
    }
  }

  const scrubber = new Scrubber(fields);
  let appender: HarAppender | null = null;
  let opened!: () => void;
  const ready = new Promise<void>((r) => {
    opened = r;
  });
  const inFlight = new Map<Promise<void>, (reason: Error) => void>();
  let stopping = false;
  let lost = 0;

  /** One exchange; `stop` ends it early: before it is forwarded, nothing is sent; after, it counts as unanswered. */
  const exchange = async (req: IncomingMessage, res: ServerResponse, control: { stop: (reason: Error) => void }) => {
    let stopped: Error | null = null;
    control.stop = (reason) => {
      stopped = reason;
      req.destroy(reason);
    };
    const body = await readBody(req);
    await ready;
    if (stopped) return;
    const url = req.url ?? '/';
    // A client that writes the whole URL (as to a proxy) still means the path on the upstream.
    const asked = url.startsWith('/') ? url : `${new URL(url).pathname}${new URL(url).search}`;
    const base = CHECKOUT_PATH.test(asked) ? checkout : upstream;
    const target = new URL(`${baseOf(base)}${asked}`);
    const headers = endToEnd(req.rawHeaders);
    const host = headers.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'host');
    if (host >= 0) headers[host + 1] = target.host;
    else headers.push('Host', target.host);
    const method = req.method ?? 'GET';
    const outcome = await forward(target, method, headers, body, timeoutMs, (abort) => {
      control.stop = abort;
    });
    const entry = scrubber.entry(entryOf(target.href, method, headers, body, outcome));
    try {
      const n = await (appender as HarAppender).append(entry);
      options.onEntry?.(entry, n);
    } catch (err) {
      lost++;
      options.onWriteError?.(err as Error, entry);
    }
    if (outcome.answer === null) return noAnswer(res, baseOf(base), outcome.error ?? 'no answer');
    const a = outcome.answer;
    res.writeHead(a.status, a.statusText, endToEnd(a.rawHeaders));
    res.end(a.body);
  };

  const server = createServer((req, res) => {
    if (stopping) {
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ success: false, http_code: 503, message: 'payout-sandbox record is stopping: this request was not forwarded' }));
      return;
    }
    const control: { stop: (reason: Error) => void } = { stop: () => undefined };
    const run = exchange(req, res, control).catch((err: Error) => {
      if (!res.headersSent && !res.destroyed) noAnswer(res, baseOf(upstream), `the recorder failed: ${err.message}`);
    });
    inFlight.set(run, (reason) => control.stop(reason));
    void run.finally(() => inFlight.delete(run));
  });
  const asked = options.port ?? DEFAULT_RECORD_PORT;
  try {
    await listenOn(server, asked);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new RecordError(
      e.code === 'EADDRINUSE' ? `port ${asked} on 127.0.0.1 is in use: choose another with --port N (0 picks a free one).` : `cannot listen: ${e.message}`,
      FAILED,
    );
  }
  const port = (server.address() as AddressInfo).port;
  const refuse = async (error: RecordError): Promise<never> => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    throw error;
  };

  const self = new SelfAddresses();
  self.listening([{ address: '127.0.0.1', port }]);
  for (const [url, option] of [
    [upstream, '--upstream'],
    [checkout, '--checkout-upstream'],
  ] as const) {
    if (await self.problem(url.href))
      await refuse(new RecordError(`${option} ${baseOf(url)} is this recorder's own address and port: it would forward every request to itself.`, USAGE));
  }

  const info: RecordingInfo = {
    upstream: baseOf(upstream),
    checkout_upstream: baseOf(checkout),
    scrubbed: scrubber.scrubbed,
    started_at: new Date().toISOString(),
  };
  let replaced = false;
  try {
    const log = {
      version: '1.2' as const,
      creator: { name: RECORDER_NAME, version: VERSION },
      comment: `A session recorded through payout-sandbox record: every request went to ${info.upstream}. Credential headers and the fields ${fields.length > 0 ? [...fields, ...(info.scrubbed.aliases ?? [])].join(', ') : '(none named)'} are replaced by placeholders, the same value by the same placeholder.`,
      _payout_sandbox: info,
    };
    try {
      appender = await HarAppender.create(out, log, { tearAt: options.tearAt });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !options.force) throw err;
      replaced = true;
      appender = await HarAppender.create(out, log, { replace: true, tearAt: options.tearAt });
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    await refuse(
      new RecordError(
        e.code === 'EEXIST'
          ? `--out ${out} exists: a recording of real calls is not replaced unless you say so (--force), or choose another file.`
          : `--out ${out} cannot be written (${e.code === 'ENOENT' ? 'no such directory' : e.message}).`,
        USAGE,
      ),
    );
  }
  opened();

  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    entries: () => appender?.entries ?? 0,
    lost: () => lost,
    replaced,
    upstream: info.upstream,
    checkoutUpstream: info.checkout_upstream,
    out,
    fields,
    aliases: info.scrubbed.aliases ?? [],
    close() {
      closing ??= (async () => {
        stopping = true;
        server.close();
        server.closeIdleConnections();
        const grace = setTimeout(() => {
          for (const abort of inFlight.values())
            abort(new Error(`the recorder stopped before the upstream answered (${STOP_GRACE_MS / 1000} s after the stop)`));
        }, STOP_GRACE_MS);
        while (inFlight.size > 0) await Promise.allSettled([...inFlight.keys()]);
        clearTimeout(grace);
        server.closeAllConnections();
        await appender?.close();
      })();
      return closing;
    },
  };
}

function portArg(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('must be a whole number from 0 to 65535 (0 picks a free one).');
  return n;
}

function timeoutArg(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError('must be a duration above zero, such as 500ms, 30s or 2m.');
  return ms;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function program(): Command {
  return new Command('payout-sandbox record')
    .description(
      'A recording proxy on 127.0.0.1: every request is forwarded to the real service (--upstream) and each exchange is appended, scrubbed, to a HAR 1.2 file.',
    )
    .requiredOption('--upstream <url>', "the real service's base URL (e.g. the provider's UAT)")
    .option('--checkout-upstream <url>', 'where the checkout status operation goes (default: --upstream)')
    .requiredOption('--out <file>', 'the HAR file to write (refused when it exists, unless --force)')
    .addOption(
      new Option('--scrub <fields>', 'a field whose values are replaced by placeholders (repeatable, or comma-separated)')
        .argParser(collect)
        .default([], 'none'),
    )
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', portArg, DEFAULT_RECORD_PORT)
    .addOption(
      new Option('--timeout <duration>', 'how long an exchange may take before it counts as unanswered')
        .argParser(timeoutArg)
        .default(DEFAULT_UPSTREAM_TIMEOUT_MS, formatDuration(DEFAULT_UPSTREAM_TIMEOUT_MS)),
    )
    .option('--allow-loopback-upstream', 'allow an upstream on this machine (a local sandbox, a tunnel)')
    .option('--force', 'replace an existing --out file')
    .helpOption('-h, --help', 'this help')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run payout-sandbox record --help for the options)');
}

function banner(r: Recorder, timeoutMs: number): string {
  const fields =
    r.fields.length > 0
      ? `the fields ${r.fields.join(', ')}${r.aliases.length > 0 ? ` (and, by their other names, ${r.aliases.join(', ')})` : ''}`
      : 'no field (name some with --scrub, e.g. --scrub account_number,beneficiary_mobile)';
  return (
    `payout-sandbox ${VERSION}: record\n` +
    `Recording: every request to ${r.url} is forwarded to ${r.upstream} (the real service: real calls, real data)\n` +
    (r.checkoutUpstream === r.upstream ? '' : `  Checkout:  /api/v1/payment/transaction/<id>/status is forwarded to ${r.checkoutUpstream}\n`) +
    `  HAR:       ${r.out}${r.replaced ? ' (it existed: replaced, --force)' : ''}; each exchange is appended as it ends\n` +
    `  Scrubbed:  the headers ${CREDENTIAL_HEADERS.join(', ')}; ${fields}: the same value gets the same placeholder everywhere\n` +
    `  No retries: an upstream that does not answer within ${formatDuration(timeoutMs)} is a 502 to the client and an _error in the entry\n` +
    `  Point your client's base URL at ${r.url}. Ctrl+C stops it (exchanges in flight finish first, ${STOP_GRACE_MS / 1000} s at most).\n`
  );
}

/** `record-append-<n>:<marker>` in PAYOUT_SANDBOX_TEST_PAUSE: the n-th append is torn there (tests of a crash mid-write). */
function tearAtOf(env: NodeJS.ProcessEnv): RecorderOptions['tearAt'] {
  const m = /^record-append-(\d+):(.+)$/.exec(env[PAUSE_VARIABLE] ?? '');
  return m ? { entry: Number(m[1]), marker: m[2] as string } : undefined;
}

function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** Runs the verb (`args`: the words after `record`): a code to exit with, or null while it records (until SIGINT/SIGTERM). */
export async function record(args: string[]): Promise<number | null> {
  const cmd = program();
  try {
    cmd.parse(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.help' ? 0 : USAGE;
    throw err;
  }
  const o = cmd.opts<{
    upstream: string;
    checkoutUpstream?: string;
    out: string;
    scrub: string[];
    port: number;
    timeout: number;
    allowLoopbackUpstream?: boolean;
    force?: boolean;
  }>();
  let recorder: Recorder;
  try {
    recorder = await startRecorder({
      upstream: o.upstream,
      checkoutUpstream: o.checkoutUpstream,
      out: o.out,
      scrub: o.scrub,
      port: o.port,
      timeoutMs: o.timeout,
      allowLoopbackUpstream: o.allowLoopbackUpstream === true,
      force: o.force === true,
      tearAt: tearAtOf(process.env),
      onEntry: (e, n) => {
        const what = e.response.status === 0 ? `no answer: ${String(e._error)}` : String(e.response.status);
        process.stdout.write(`${String(n).padStart(4)}  ${e.startedDateTime}  ${e.request.method} ${e.request.url}  ${what}  ${Math.round(e.time)} ms\n`);
      },
      onWriteError: (err, e) =>
        process.stderr.write(
          `payout-sandbox record: could not write the exchange ${e.request.method} ${e.request.url} to ${o.out} (${err.message}): the recording lacks it\n`,
        ),
    });
  } catch (err) {
    if (err instanceof RecordError) {
      process.stderr.write(`payout-sandbox record: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
  process.stdout.write(banner(recorder, o.timeout));
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      process.stderr.write(`payout-sandbox record: ${signal} again: stopping now (the file holds every exchange written so far)\n`);
      exitAfterOutput(signal === 'SIGINT' ? 130 : 143);
      return;
    }
    void recorder.close().then(
      () => {
        const lost = recorder.lost();
        const n = recorder.entries();
        process.stdout.write(`Stopped: ${n} exchange${n === 1 ? '' : 's'} recorded in ${recorder.out}${lost > 0 ? `; ${lost} could not be written` : ''}\n`);
        exitAfterOutput(lost > 0 ? FAILED : 0);
      },
      (err: Error) => {
        process.stderr.write(`payout-sandbox record: could not close ${recorder.out} (${err.message})\n`);
        exitAfterOutput(FAILED);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return null;
}

/** The CLI's entry for `payout-sandbox record …` (argv as process.argv). */
export async function main(argv: string[]): Promise<void> {
  const code = await record(argv.slice(3));
  if (code !== null) exitAfterOutput(code);
}

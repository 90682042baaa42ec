import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { HTTP_URL_MESSAGE, isHttpUrl, unsendable } from '../webhooks/targets.js';

/**
 * What every client verb shares (docs/companion.md): `--url` and `--admin-token`, one small HTTP
 * client for the control API and the emulated API of a running sandbox, and how a verb ends: a
 * sandbox that cannot be reached is a clear message naming the URL and exit 1 within 5 s; a
 * refusal is its own message and exit 1; a bad option or an unknown name exit 2.
 */

export const DEFAULT_URL = 'http://127.0.0.1:4010';

/** Exit codes: as the server's (2 usage, 3 the coverage gate, 4 the review gate), 1 unreachable or refused. */
export const EXIT = { failed: 1, usage: 2, coverage: 3, review: 4 } as const;

/** How long the first request may take to get any answer before the sandbox counts as unreachable. */
export const REACH_TIMEOUT_MS = 4000;

/** The verb cannot go on: its message, and the exit code. */
export class VerbError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

export interface Connection {
  url: string;
  adminToken?: string;
}

/** The sandbox's base URL (a URL of its control API is taken too). */
export function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be the sandbox URL, e.g. http://127.0.0.1:4010.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('must be an http or https URL, e.g. http://127.0.0.1:4010.');
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/__sandbox(\/health)?$/, '')}`;
}

/**
 * A webhook receiver's URL given as an option (`listen --forward-to`, `probe-webhook --url`): an
 * http or https URL that can be sent to (`unsendable`: not port 0, no user or password), else a
 * bad option (exit 2), before anything is sent.
 */
export function receiverUrl(value: string): string {
  if (!isHttpUrl(value)) throw new InvalidArgumentError(HTTP_URL_MESSAGE);
  const unfit = unsendable(value);
  if (unfit !== null) throw new InvalidArgumentError(`cannot be sent to: ${unfit}.`);
  return value;
}

/** A verb's command: its description, --url and --admin-token, help, and errors that exit 2. */
export function verbCommand(name: string, description: string): Command {
  return new Command(`payout-sandbox ${name}`)
    .description(description)
    .addOption(new Option('--url <url>', 'the running sandbox').env('SANDBOX_URL').default(DEFAULT_URL).argParser(baseUrl))
    .addOption(new Option('--admin-token <token>', "the sandbox's --admin-token, if it has one").env('SANDBOX_ADMIN_TOKEN'))
    .helpOption('-h, --help', 'this help')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError(`(run payout-sandbox ${name} --help for the options)`);
}

/** Why a request failed, in a word (ECONNREFUSED, ENOTFOUND, a time-out …). */
export function reason(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  if (e?.name === 'TimeoutError') return `no answer within ${REACH_TIMEOUT_MS / 1000} s`;
  return e?.code ?? e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/** An answer as the verbs read it: what they used of fetch's `Response`, over `node:http`. */
export interface Answer {
  status: number;
  ok: boolean;
  statusText: string;
  headers: { get(name: string): string | null };
  /** The body, read once: as text, as JSON, or chunk by chunk (`body`, an event stream). */
  text(): Promise<string>;
  json(): Promise<unknown>;
  body: AsyncIterable<Uint8Array>;
}

/** A connection silent this long is given up (fetch's own limits in Node 20: 300 s for the headers, 300 s between body bytes). */
const IDLE_MS = 300_000;

/**
 * One request with `node:http` (or `https`), not `fetch`: a CLI verb is a short-lived process,
 * and a process's first `fetch` loads Node's fetch and web streams, about 0.27 s of CPU on this
 * project's machine (docs/performance.md, "Start-up"). Fails as fetch did where the verbs look:
 * a `signal` that aborts (a time-out) rejects with its reason (`name` TimeoutError), and an error
 * of the connection carries its `code` (ECONNREFUSED, ECONNRESET for a connection closed
 * without an answer). Redirects are not followed.
 */
export function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal; idleMs?: number } = {},
): Promise<Answer> {
  const { signal } = init;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const u = new URL(url);
    const headers = { ...init.headers, ...(init.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(init.body)) }) };
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: init.method ?? 'GET', headers }, (res) => {
      signal?.removeEventListener('abort', onAbort);
      // Once answered, an abort ends the body: a read under way (a stream's) fails with the
      // signal's reason; one not under way is not an error of the process (a listener stays).
      res.on('error', () => undefined);
      if (signal) signal.addEventListener('abort', () => res.destroy(signal.reason), { once: true });
      resolve(answerOf(res));
    });
    // As fetch gave up on a connection silent for 300 s (no answer, or a body that stopped): a
    // sandbox frozen or gone without a reset ends a verb, an MCP call or a stream with a reason.
    const idleMs = init.idleMs ?? IDLE_MS;
    req.setTimeout(idleMs, () => req.destroy(Object.assign(new Error(`no data for ${idleMs} ms`), { code: 'ETIMEDOUT' })));
    const onAbort = () => req.destroy(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? signal.reason : err);
    });
    req.end(init.body);
  });
}

function answerOf(res: IncomingMessage): Answer {
  let read: Promise<string> | null = null;
  const text = () => {
    read ??= (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    })();
    return read;
  };
  const status = res.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    statusText: res.statusMessage ?? '',
    headers: {
      get: (name) => {
        const v = res.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    },
    text,
    json: async () => JSON.parse(await text()) as unknown,
    body: res,
  };
}

/** An answer of the emulated API, as it came. */
export interface ApiAnswer {
  status: number;
  headers: Answer['headers'];
  text: string;
  json: unknown;
}

/** The running sandbox, over HTTP only: its control API (`/__sandbox`) and its emulated API. */
export class SandboxClient {
  readonly url: string;
  private reached: Promise<void> | null = null;

  constructor(private readonly conn: Connection) {
    this.url = conn.url.replace(/\/+$/, '');
  }

  get controlUrl(): string {
    return `${this.url}/__sandbox`;
  }

  private authHeaders(): Record<string, string> {
    return this.conn.adminToken ? { Authorization: `Bearer ${this.conn.adminToken}` } : {};
  }

  /** Whether anything answers at the URL (the health route needs no token): once, bounded by REACH_TIMEOUT_MS. */
  reach(): Promise<void> {
    this.reached ??= send(`${this.controlUrl}/health`, { signal: AbortSignal.timeout(REACH_TIMEOUT_MS) }).then(
      async (res) => {
        // The sandbox answers { ok, version } (a 503 while it cannot write: { ok: false, error }).
        const body = (await res.json().catch(() => null)) as { ok?: unknown } | null;
        if (typeof body?.ok !== 'boolean') {
          this.reached = null;
          throw new VerbError(
            `what answers at ${this.url} is not a payout-sandbox (GET /__sandbox/health answered HTTP ${res.status}). Give its URL with --url or SANDBOX_URL.`,
          );
        }
      },
      (err: unknown) => {
        // Not kept: a long-lived client (the MCP server) tries again on its next call.
        this.reached = null;
        throw new VerbError(`cannot reach the sandbox at ${this.url} (${reason(err)}). Is it running? Give its URL with --url or SANDBOX_URL.`);
      },
    );
    return this.reached;
  }

  /** A refusal of the control API as a VerbError: its `{ error }` message, and a hint for a missing token. */
  private async refusal(res: Answer, what: string): Promise<VerbError> {
    const text = await res.text();
    let message = text.trim();
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? message;
    } catch {
      // Not JSON: the text as it is.
    }
    const hint = res.status === 401 ? ' Give the admin token with --admin-token or SANDBOX_ADMIN_TOKEN.' : '';
    return new VerbError(`the sandbox refused ${what} (HTTP ${res.status}): ${message || res.statusText}${hint}`);
  }

  private async controlFetch(method: string, path: string, body?: unknown, signal?: AbortSignal, extra: Record<string, string> = {}): Promise<Answer> {
    await this.reach();
    const headers: Record<string, string> = { ...this.authHeaders(), Accept: 'application/json', ...extra };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    try {
      return await send(`${this.controlUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new VerbError(`lost the sandbox at ${this.url} (${reason(err)}) during ${method} /__sandbox${path}.`);
    }
  }

  /** A control-API call answered JSON; a refusal throws its message. */
  async control<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.controlFetch(method, path, body);
    if (!res.ok) throw await this.refusal(res, `${method} /__sandbox${path.split('?')[0]}`);
    return (await res.json()) as T;
  }

  /** A control-API call answered as text (a Markdown or JUnit report). */
  async controlText(path: string): Promise<string> {
    const res = await this.controlFetch('GET', path);
    if (!res.ok) throw await this.refusal(res, `GET /__sandbox${path.split('?')[0]}`);
    return res.text();
  }

  /** An open event stream of the control API (server-sent events); a refusal throws its message. */
  async stream(path: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await this.controlFetch('GET', path, undefined, signal, headers);
    if (!res.ok) throw await this.refusal(res, `GET /__sandbox${path.split('?')[0]}`);
    return res;
  }

  /** A call of the emulated API with a merchant's headers: whatever it answers (a refusal is an answer here). */
  async api(method: string, path: string, headers: Record<string, string>, body?: unknown, signal?: AbortSignal): Promise<ApiAnswer> {
    await this.reach();
    const res = await send(`${this.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), Accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON.
    }
    return { status: res.status, headers: res.headers, text, json };
  }
}

/** Server-sent events of a streamed answer, one `{ event, data }` at a time, until the stream ends. */
export async function* serverSentEvents(res: Answer): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}

/** The client of a parsed command's --url and --admin-token. */
export function clientOf(opts: { url: string; adminToken?: string }): SandboxClient {
  return new SandboxClient({ url: opts.url, adminToken: opts.adminToken });
}

/**
 * Runs a verb: parses its arguments (`argv` as process.argv; `words` how many make the verb's
 * name, e.g. 2 for `merchant create`), runs `action`, and exits with its code: 0 (or what it
 * answers), 2 for a bad option, a VerbError's code with its message.
 */
/** Parses a verb's words: null to go on, else the code to exit with (0 after --help; 2 on a usage error, which commander has printed). */
export function parseVerb(cmd: Command, args: string[]): number | null {
  try {
    cmd.parse(args, { from: 'user' });
    return null;
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.help' ? 0 : EXIT.usage;
    throw err;
  }
}

export async function runVerb(
  argv: string[],
  words: number,
  program: Command,
  action: (opts: Record<string, unknown>, args: string[]) => Promise<number | undefined>,
): Promise<never> {
  const name = program.name();
  const parsed = parseVerb(program, argv.slice(2 + words));
  if (parsed !== null) process.exit(parsed);
  try {
    return await exit((await action(program.opts(), program.args)) ?? 0);
  } catch (err) {
    if (err instanceof VerbError) {
      process.stderr.write(`${name}: ${err.message}\n`);
      return exit(err.exitCode);
    }
    throw err;
  }
}

/** Exits with `code` once what was written to stdout and stderr has gone out (a pipe may take writes asynchronously). */
export function exit(code: number): Promise<never> {
  return new Promise<never>(() => {
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  });
}

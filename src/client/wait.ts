import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DURATION_FORMS, formatDuration, parseDuration } from '../duration.js';
import { type Answer, baseUrl, EXIT, parseVerb, send } from './http.js';

/**
 * `payout-sandbox wait [--url URL] [--timeout 30s] [--pid PID] [--ready-file FILE]`: waits until
 * a sandbox answers its health check (`GET /__sandbox/health` → `{ ok: true, version, pid, v8_flags }`, no admin
 * token needed). Exit 0 as soon as it does, 1 after the timeout with what it saw meanwhile
 * (nothing listening, something that is not the sandbox, a sandbox that is not healthy), 2 for a
 * bad option. With `--pid`, 1 at once when that process has exited (a start that failed: the port
 * taken, a bad file); with `--ready-file`, only the sandbox that wrote that file (its `--ready-file`)
 * counts, at the URL it wrote: not another one on the same port. What a script, a CI step or a
 * container's HEALTHCHECK runs before it talks to the sandbox.
 */

/** Between two attempts. */
const INTERVAL_MS = 100;
/** At most, for one attempt's answer. */
const ATTEMPT_MS = 2000;

function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError(`must be above 0: ${DURATION_FORMS}.`);
  return ms;
}

function pidOf(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a process id (a whole number above 0).');
  return n;
}

/** Whether process `pid` still runs (one of another user's answers EPERM: it runs); a zombie (exited, not yet reaped by its parent) does not. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S …", the state after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return true; // No /proc (not Linux): the signal's answer stands.
  }
}

/**
 * Whether a health check's pid is another sandbox of this machine than the one --pid names: a
 * process that runs here. (In a container the sandbox is pid 1 of its own namespace, and on
 * another machine its pid is not one of ours: neither can be matched, so neither is refused.)
 */
function anotherHere(answered: number, wanted: number): boolean {
  return answered !== wanted && answered !== 1 && running(answered);
}

/** The ready file's `{ url, pid }` once written (by `pid`, when given), else null. */
function readyUrl(file: string, pid: number | undefined): string | null {
  let ready: { url?: unknown; pid?: unknown };
  try {
    ready = JSON.parse(readFileSync(file, 'utf8')) as typeof ready;
  } catch {
    return null;
  }
  if (typeof ready.url !== 'string') return null;
  // A file left by an earlier sandbox (killed with -9) names another pid: not this one's yet.
  if (pid !== undefined && ready.pid !== pid) return null;
  try {
    return baseUrl(ready.url);
  } catch {
    return null; // Not a sandbox's URL: not a ready file it wrote.
  }
}

/** The default: SANDBOX_URL (as the other verbs), else this machine on the sandbox's own SANDBOX_PORT (4010). */
function defaultUrl(): string {
  return process.env.SANDBOX_URL ? baseUrl(process.env.SANDBOX_URL) : `http://127.0.0.1:${process.env.SANDBOX_PORT || '4010'}`;
}

function program(): Command {
  return new Command('payout-sandbox wait')
    .description('Waits until the sandbox at URL answers its health check: exit 0 once it does, 1 after the timeout.')
    .addOption(new Option('--url <url>', 'the sandbox, its base URL (default: $SANDBOX_URL, else http://127.0.0.1:$SANDBOX_PORT, 4010)').argParser(baseUrl))
    .addOption(new Option('--timeout <duration>', 'how long to wait').argParser(duration).default(30_000, '30s'))
    .addOption(new Option('--pid <pid>', 'the sandbox started in the background ($!): give up at once when it has exited').argParser(pidOf))
    .addOption(new Option('--ready-file <file>', "the sandbox's --ready-file: healthy only once it is written (by --pid, when given), at the URL it names"))
    .helpOption('-h, --help', 'this help')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run payout-sandbox wait --help for the options)');
}

/** What one attempt saw. */
type Seen =
  | { kind: 'healthy'; version: string; pid: number | null }
  | { kind: 'unhealthy'; error: string }
  | { kind: 'other'; status: number; type: string }
  | { kind: 'unreachable'; reason: string; timedOut?: true }
  | { kind: 'not-ready'; file: string }
  | { kind: 'another'; pid: number };

/** Of an answer's body, at most this much is read (a health check's is a few hundred bytes). */
const BODY_MAX = 64 * 1024;

/**
 * An answer's body, up to BODY_MAX (then the connection is closed): what came when the time left
 * runs out or the connection is reset meanwhile, the answer judged by that.
 */
async function firstBytes(res: Answer): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      chunks.push((chunk as Buffer).subarray(0, BODY_MAX - size));
      size += chunk.length;
      if (size >= BODY_MAX) break;
    }
  } catch {
    // Cut short: what came is the answer.
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One GET (the companion's `send`: node:http, not fetch, whose loading costs `wait`, the image's HEALTHCHECK, about 0.27 s of CPU each). */
async function attempt(healthUrl: string, ms: number): Promise<Seen> {
  let res: Answer;
  try {
    res = await send(healthUrl, { signal: AbortSignal.timeout(ms), headers: { accept: 'application/json' } });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.name === 'TimeoutError') return { kind: 'unreachable', reason: `no answer within ${formatDuration(ms)}`, timedOut: true };
    return { kind: 'unreachable', reason: `nothing answered (${e.code ?? e.message})` };
  }
  const type = res.headers.get('content-type') ?? 'no content type';
  const text = await firstBytes(res);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const b = (typeof body === 'object' && body !== null ? body : {}) as { ok?: unknown; version?: unknown; error?: unknown; pid?: unknown };
  if (res.status === 200 && b.ok === true && typeof b.version === 'string')
    return { kind: 'healthy', version: b.version, pid: typeof b.pid === 'number' ? b.pid : null };
  if (b.ok === false) return { kind: 'unhealthy', error: typeof b.error === 'string' ? b.error : `HTTP ${res.status}` };
  return { kind: 'other', status: res.status, type: type.split(';')[0] };
}

function describe(seen: Seen | null, base: string): string {
  if (seen === null) return 'no attempt finished';
  switch (seen.kind) {
    case 'unreachable':
      return seen.reason;
    case 'unhealthy':
      return `the sandbox answers but is not healthy: ${seen.error}`;
    case 'not-ready':
      return `${seen.file} was not written (a sandbox's ready file, with its URL)`;
    case 'another':
      return `another sandbox answers there (pid ${seen.pid}), not the one of --pid: is the port taken?`;
    case 'other':
      return `something else answers there, not a payout-sandbox (GET ${base}/__sandbox/health: HTTP ${seen.status}, ${seen.type}): another program on this port? Give the sandbox's URL with --url`;
    default:
      return 'healthy';
  }
}

/** Runs the verb; `args` are the words after `wait`. Resolves to the exit code. */
export async function waitHealthy(args: string[]): Promise<number> {
  const cmd = program();
  const parsed = parseVerb(cmd, args);
  if (parsed !== null) return parsed;
  const o = cmd.opts<{ url?: string; timeout: number; pid?: number; readyFile?: string }>();
  let base: string;
  try {
    base = o.url ?? defaultUrl();
  } catch (err) {
    process.stderr.write(`payout-sandbox wait: SANDBOX_URL ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  const deadline = Date.now() + o.timeout;
  let last: Seen | null = null;
  let asked = base;
  for (;;) {
    if (o.pid !== undefined && !running(o.pid)) {
      process.stderr.write(`payout-sandbox wait: the sandbox (pid ${o.pid}) exited before it was healthy: its output says why.\n`);
      return 1;
    }
    const budget = Math.max(1, Math.min(ATTEMPT_MS, deadline - Date.now()));
    const written = o.readyFile === undefined ? base : readyUrl(o.readyFile, o.pid);
    const url = written === null ? null : o.url === undefined ? written : base;
    let seen: Seen = url === null ? { kind: 'not-ready', file: o.readyFile as string } : await attempt(`${url}/__sandbox/health`, budget);
    // With --pid, only that process's answer counts: not another sandbox on the same port.
    if (seen.kind === 'healthy' && o.pid !== undefined && seen.pid !== null && anotherHere(seen.pid, o.pid)) seen = { kind: 'another', pid: seen.pid };
    if (seen.kind === 'healthy' && (o.pid === undefined || running(o.pid))) {
      process.stdout.write(`payout-sandbox ${seen.version} is healthy at ${url}\n`);
      return 0;
    }
    if (url !== null) asked = url;
    // An attempt the deadline cut short (a few ms left on a busy machine) that got no answer in
    // time says less than what an attempt before it saw: the reason given stays that one's.
    if (!(seen.kind === 'unreachable' && seen.timedOut && budget < ATTEMPT_MS && last !== null)) last = seen;
    if (Date.now() + INTERVAL_MS >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
  const where = last?.kind === 'not-ready' ? `from ${o.readyFile}` : `at ${asked}`;
  process.stderr.write(`payout-sandbox wait: no healthy sandbox ${where} after ${formatDuration(o.timeout)}: ${describe(last, asked)}.\n`);
  return 1;
}

/** The CLI's entry for `payout-sandbox wait …` (argv as process.argv): exits with the code. */
export async function main(argv: string[]): Promise<void> {
  process.exit(await waitHealthy(argv.slice(3)));
}

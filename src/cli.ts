import { spawn } from 'node:child_process';
import { rmSync, unlinkSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DateTime } from 'luxon';
import { createApp, type SandboxApp } from './app.js';
import { banner } from './banner.js';
import { unknownVerb, VERBS } from './client/verbs.js';
import { acceptHandlesNotice, type Serving, serve } from './listen.js';
import {
  CLI_DEFAULTS,
  ConfigError,
  DEFAULT_FIXTURES,
  DEFAULTS,
  flagOf,
  isLoopback,
  LOG_LEVELS,
  percentProblem,
  type RANGES,
  rangeProblem,
  type SandboxOptions,
} from './sandbox/config.js';
import { FixturesError } from './sandbox/fixtures.js';
import { abandon } from './sandbox/open.js';
import { DEFAULT_SCENARIO, ScenarioError } from './scenario/scenario.js';
import { SIGNAL_EXIT, stopOnSignals, watchStart } from './signals.js';
import { fsProblem } from './store/file-errors.js';
import { StartStopped, StoreFileError, StoreWriteError } from './store/store.js';
import { writeProblem } from './store/writable.js';
import { tuneV8 } from './v8-tuning.js';
import { VERSION } from './version.js';

/** Exit code for a bad option or an invalid input file (SPEC 2). */
export const EXIT_USAGE = 2;

/** A whole-number option, checked against its range in RANGES (the one place ranges are written). */
function integer(name: string, option: keyof typeof RANGES) {
  return (value: string): number => {
    const n = Number(value);
    const problem = /^\d+$/.test(value.trim()) ? rangeProblem(option, n) : rangeProblem(option, NaN);
    if (problem) throw new InvalidArgumentError(`${name} ${problem}.`);
    return n;
  };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number above 0.');
  return n;
}

function instant(value: string): number {
  const t = DateTime.fromISO(value, { setZone: true });
  if (!t.isValid) throw new InvalidArgumentError('must be an ISO 8601 date and time, e.g. 2026-01-01T09:00:00+05:30.');
  return t.toMillis();
}

function percent(value: string): number {
  const n = value.trim() === '' ? NaN : Number(value);
  const problem = percentProblem(n);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return n;
}

function uncoveredAs(value: string): 'failed' | 'skipped' {
  if (value === 'skipped') return 'skipped';
  if (value === 'failure' || value === 'failed') return 'failed';
  throw new InvalidArgumentError('Allowed choices are failure, skipped.');
}

function hostList(value: string): string[] {
  return value
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
}

/** The caps and time-outs: each an option `--<flag of the key> <n>`, ranged by RANGES. */
const CAPS: Partial<Record<keyof typeof RANGES & keyof typeof DEFAULTS, string>> = {
  journalSize: 'requests the control API journal keeps (0: off)',
  maxMerchants: 'merchants the control API may create',
  maxRecordsPerMerchant: 'payouts, beneficiaries and verifications per merchant (each)',
  maxRecords: 'payouts, beneficiaries and verifications in the whole sandbox (together)',
  maxDeliveriesPerMerchant: 'webhook deliveries kept per merchant (the oldest finished go first)',
  maxSnapshots: 'snapshots kept',
  maxSnapshotBytes: 'total size of the snapshots kept (bytes of JSON)',
  maxConnections: 'open connections at once; more are refused',
  acceptHandles: 'listening handles beside the first on the port: a busy sandbox accepts up to N+1 new connections per turn of its event loop (0: one)',
  compactBytes: "compact the change log into the data file past this many bytes (and past the data file's size)",
  headersTimeout: 'ms a client has to send a request head',
  requestTimeout: 'ms a client has to send a whole request',
};

function env(option: Option, name: string): Option {
  return option.env(`SANDBOX_${name}`);
}

export function buildProgram(): Command {
  const program = new Command('payout-sandbox')
    .description('A local, stateful sandbox of the payout, beneficiary, verification and checkout-status API.')
    .version(VERSION, '-v, --version')
    .addOption(env(new Option('--port <n>', 'port; 0 picks a free one').argParser(integer('port', 'port')).default(DEFAULTS.port), 'PORT'))
    .addOption(env(new Option('--host <host>', 'listen address').default(DEFAULTS.host), 'HOST'))
    .addOption(
      env(new Option('--checkout-port <n>', 'a second listener for the checkout API').argParser(integer('checkout port', 'checkoutPort')), 'CHECKOUT_PORT'),
    )
    .addOption(env(new Option('--data <path|memory>', 'lowdb JSON file, or "memory"').default(DEFAULTS.data), 'DATA'))
    .addOption(
      env(new Option('--fixtures <file>', 'fixtures loaded into a new store').default(DEFAULT_FIXTURES, 'the shipped fixtures/default.json'), 'FIXTURES'),
    )
    .addOption(
      env(new Option('--scenario <file>', 'behaviour rules, JSON or YAML').default(DEFAULT_SCENARIO, 'the shipped scenarios/default.json'), 'SCENARIO'),
    )
    .addOption(env(new Option('--webhook-url <url>', 'webhook target for merchants that have none'), 'WEBHOOK_URL'))
    .addOption(env(new Option('--clock <mode>', 'real or manual').choices(['real', 'manual']).default(DEFAULTS.clock), 'CLOCK'))
    .addOption(env(new Option('--speed <x>', 'real clock sped up x times').argParser(positiveNumber).default(DEFAULTS.speed), 'SPEED'))
    .addOption(env(new Option('--clock-start <iso>', 'manual clock start (default 2026-01-01T09:00:00+05:30)').argParser(instant), 'CLOCK_START'))
    .addOption(env(new Option('--seed <n>', 'deterministic ids and generated data').argParser(integer('seed', 'seed')), 'SEED'))
    .addOption(env(new Option('--admin-token <token>', 'require Authorization: Bearer <token> on the control API (16 characters or more)'), 'ADMIN_TOKEN'))
    .addOption(
      env(
        new Option(
          '--allowed-host <host>',
          'a Host name the control API and dashboard answer to besides the bound address and localhost (repeatable, or comma-separated; *.example.com patterns)',
        ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), ...hostList(value)]),
        'ALLOWED_HOST',
      ),
    )
    .addOption(env(new Option('--no-rate-limits', "turn the reference's rate limits off"), 'NO_RATE_LIMITS'))
    .addOption(env(new Option('--no-fsync', 'do not fdatasync each change-log write (faster; a power loss may lose the last writes)'), 'NO_FSYNC'))
    .addOption(env(new Option('--log-level <level>', 'pino level').choices([...LOG_LEVELS]).default(DEFAULTS.logLevel), 'LOG_LEVEL'))
    .addOption(
      env(new Option('--coverage-report <file>', 'write the behaviour-coverage report on shutdown (.json, .md, or .xml for JUnit)'), 'COVERAGE_REPORT'),
    )
    .addOption(env(new Option('--coverage-min <percent>', 'exit 3 on shutdown when fewer behaviours are covered').argParser(percent), 'COVERAGE_MIN'))
    .addOption(
      env(
        new Option('--coverage-uncovered <how>', 'in a JUnit (.xml) coverage report, an uncovered behaviour is a failure or skipped')
          .argParser(uncoveredAs)
          .default('failed', 'failure'),
        'COVERAGE_UNCOVERED',
      ),
    )
    .addOption(
      env(
        new Option('--coverage-ignore <groups>', 'coverage groups left out of the report and gate, comma-separated (e.g. verification,checkout)').argParser(
          hostList,
        ),
        'COVERAGE_IGNORE',
      ),
    )
    .addOption(env(new Option('--review-report <file>', 'write the integration review on shutdown (.json, .md, or .xml for JUnit)'), 'REVIEW_REPORT'))
    .addOption(env(new Option('--trace-dir <dir>', 'write one trace per merchant that made a request on shutdown (<merchant_id>.trace.json)'), 'TRACE_DIR'))
    .addOption(
      env(
        new Option(
          '--review-fail-on <severity>',
          'exit 4 on shutdown when the review has a finding of this severity or above (unproven: a high finding, or a high rule not proven)',
        ).choices(['high', 'medium', 'low', 'unproven']),
        'REVIEW_FAIL_ON',
      ),
    )
    .addOption(env(new Option('--no-review', 'record no integration-review facts (to measure what they cost)'), 'NO_REVIEW'))
    .addOption(env(new Option('--v8-defaults', "leave V8's flags at node's defaults (the command turns allocation-site pretenuring off)"), 'V8_DEFAULTS'))
    .addOption(env(new Option('--demo', 'for a demo: a manual clock and memory data (unless given), and the dashboard opened at its stories'), 'DEMO'))
    .addOption(env(new Option('--ready-file <file>', 'write { url, port, pid, control_url } as JSON once listening (removed at exit)'), 'READY_FILE'))
    .addOption(env(new Option('--insecure-open-control', 'allow a non-loopback --host without --admin-token (warned at every start)'), 'INSECURE_OPEN_CONTROL'))
    .addOption(
      env(
        new Option('--webhook-allow <hosts>', 'hosts webhooks may go to, comma-separated (*.example.com patterns); default any').argParser(hostList),
        'WEBHOOK_ALLOW',
      ),
    );
  for (const [key, help] of Object.entries(CAPS) as Array<[keyof typeof CAPS, string]>) {
    const flag = flagOf(key);
    program.addOption(
      env(
        new Option(`--${flag} <n>`, help).argParser(integer(flag.replace(/-/g, ' '), key)).default(CLI_DEFAULTS[key] ?? DEFAULTS[key]),
        flag.toUpperCase().replace(/-/g, '_'),
      ),
    );
  }
  program
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run payout-sandbox --help for the options)');
  return program;
}

/**
 * The parsed command line as sandbox options: every option is named as its config key, so each
 * key takes the parsed value, or the default where the option was not given.
 */
export function optionsFromCli(o: Record<string, unknown>): SandboxOptions {
  const config = DEFAULTS as unknown as Record<string, unknown>;
  return Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, o[OPTION_OF[k] ?? k] ?? config[k]])) as SandboxOptions;
}

/** Config keys whose option is named otherwise (a repeatable option reads as one item: `--allowed-host`). */
const OPTION_OF: Record<string, string> = { allowedHosts: 'allowedHost' };

/** Parses the command line; help and version exit 0, a bad option exits 2. */
function parseArgs(argv: string[]): SandboxOptions {
  const program = buildProgram();
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
      process.exit(ok ? 0 : EXIT_USAGE);
    }
    throw err;
  }
  const options = optionsFromCli(program.opts());
  v8Defaults = program.opts().v8Defaults === true;
  if (program.opts().demo === true) {
    demo = true;
    // A story waits on nobody's wall clock, and a demo leaves no data file behind: unless asked otherwise.
    if (program.getOptionValueSource('clock') === 'default') options.clock = 'manual';
    if (program.getOptionValueSource('data') === 'default') options.data = 'memory';
  }
  return options;
}

/** `--demo`: the dashboard's stories opened in a browser once listening. */
let demo = false;

/** `--v8-defaults`: the command sets no V8 flag of its own (v8-tuning.ts). */
let v8Defaults = false;

/** Opens the stories in this machine's browser, when there is one to open (a terminal, not CI); a failure is only said. */
function openStories(url: string): void {
  if (!process.stdout.isTTY || process.env.CI) return;
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    spawn(opener, [url], { detached: true, stdio: 'ignore' })
      .on('error', () => process.stdout.write(`(no browser opened: open ${url})\n`))
      .unref();
  } catch {
    process.stdout.write(`(no browser opened: open ${url})\n`);
  }
}

/** Set in the container image (Dockerfile): a permission problem there is most often the uid the container runs as. */
const IMAGE_VARIABLE = 'PAYOUT_SANDBOX_IMAGE';

/** What to do about a permission problem, in the image: run the container as the owner of the mounted directory. */
function permissionHint(problem: string): string {
  if (process.env[IMAGE_VARIABLE] === undefined || !/\((EACCES|EPERM)\)/.test(problem)) return '';
  return ` (the sandbox runs as uid ${process.getuid?.() ?? '?'}: run the container as the owner of the mounted directory, e.g. podman run --user "$(id -u):$(id -g)" …, or give that uid the directory)`;
}

/** A SIGINT/SIGTERM before the sandbox served: said in one line, exit 130 / 143; nothing was written. */
function exitStopped(err: StartStopped): never {
  process.stderr.write(`payout-sandbox: ${err.message}; nothing written, the lock removed\n`);
  process.exit(SIGNAL_EXIT[err.signal] ?? 1);
}

/** Opens the sandbox; an invalid option or input file exits 2 with its message, a signal meanwhile 130 / 143. */
async function open(options: SandboxOptions): Promise<SandboxApp> {
  try {
    return await createApp(options);
  } catch (err) {
    if (err instanceof StartStopped) exitStopped(err);
    if (err instanceof ConfigError || err instanceof FixturesError || err instanceof ScenarioError || err instanceof StoreFileError) {
      process.stderr.write(`payout-sandbox: ${err.message}${permissionHint(err.message)}\n`);
      process.exit(EXIT_USAGE);
    }
    if (err instanceof StoreWriteError) {
      process.stderr.write(`payout-sandbox: cannot start: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** Every path the sandbox will write besides its data, checked before anything is opened: exit 2 naming the first that cannot be written. */
async function checkOutputPaths(options: SandboxOptions): Promise<void> {
  const paths: Array<[option: string, path: string | null | undefined, kind: 'file' | 'replaced' | 'directory']> = [
    ['--coverage-report', options.coverageReport, 'file'],
    ['--review-report', options.reviewReport, 'file'],
    ['--trace-dir', options.traceDir, 'directory'],
    ['--ready-file', options.readyFile, 'replaced'],
  ];
  for (const [option, path, kind] of paths) {
    if (typeof path !== 'string' || path === '') continue;
    const problem = await writeProblem(path, kind);
    if (problem === null) continue;
    process.stderr.write(`payout-sandbox: ${option} ${path}: cannot be written: ${problem}${permissionHint(problem)}\n`);
    process.exit(EXIT_USAGE);
  }
}

/** Why listening failed, and what to do about a port in use. */
function listenProblem(err: unknown, host: string): string {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e.code === 'EADDRINUSE') {
    return `port ${e.port ?? '?'} on ${host} is in use (another sandbox? see \`lsof -i :${e.port ?? ''}\`). Stop it, choose another with --port N, or --port 0 for a free one (the banner, the "listening" log line and --ready-file say which).`;
  }
  if (e.code === 'EACCES') return `port ${e.port ?? '?'} needs privileges (${e.message}): use a port from 1024 up`;
  return e.message;
}

/**
 * The ready file: `{ url, port, pid, control_url }` once the sandbox listens, written atomically
 * (a script waiting for it never reads half), and removed when it stops, with its temporary file
 * (an exit at any moment leaves neither).
 */
async function writeReadyFile(file: string, ready: Record<string, unknown>): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  process.once('exit', () => {
    for (const f of [temp, file]) {
      try {
        unlinkSync(f);
      } catch {
        // Already gone.
      }
    }
  });
  try {
    await mkdir(dirname(resolve(file)), { recursive: true });
    await writeFile(temp, `${JSON.stringify(ready)}\n`);
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** A start that failed once the runtime was built: its files let go of, no report written, one line said. */
async function abandonStart(app: SandboxApp, serving: Serving | null, err: unknown, what: string): Promise<never> {
  await serving?.close(0);
  await abandon(app.sandbox).catch((e: unknown) => process.stderr.write(`payout-sandbox: and could not let go of the data file: ${(e as Error).message}\n`));
  if (err instanceof StartStopped) exitStopped(err);
  // A mistake in the options seen only once listening (a --webhook-url that is the sandbox itself): exit 2.
  if (err instanceof ConfigError) {
    process.stderr.write(`payout-sandbox: ${err.message}\n`);
    process.exit(EXIT_USAGE);
  }
  process.stderr.write(`payout-sandbox: ${what}\n`);
  process.exit(1);
}

/** `payout-sandbox [options]`: parse, start, print the banner, stop cleanly on SIGINT/SIGTERM. */
export async function main(argv: string[]): Promise<void> {
  const verb = argv[2];
  if (verb !== undefined && Object.hasOwn(VERBS, verb)) return VERBS[verb].run(argv);
  const unknown = unknownVerb(verb);
  if (unknown) {
    process.stderr.write(`payout-sandbox: ${unknown}\n`);
    process.exit(EXIT_USAGE);
  }
  // From here a SIGINT/SIGTERM stops the start cleanly (signals.ts): never the default exit, which leaves the lock.
  const start = watchStart();
  const options = parseArgs(argv);
  // V8's flags for a long-running server (v8-tuning.ts), before the store and the servers are made.
  if (!v8Defaults) tuneV8();
  await checkOutputPaths(options);
  // A ready file left by an earlier run must not say "ready" before this one is.
  if (options.readyFile) rmSync(options.readyFile, { force: true });
  const app = await open({ ...options, storeHooks: { ...options.storeHooks, checkpoint: (point) => start.checkpoint(point) } });
  const { config } = app.sandbox;
  let serving: Serving | null = null;
  try {
    await start.checkpoint('listen');
    serving = await serve(app, config.host, config.port, config.checkoutPort, {
      ...config,
      onAcceptHandles: (added, asked) => {
        const { level, message } = acceptHandlesNotice(added, asked);
        app.sandbox.logger[level]({ handles: added + 1, asked: asked + 1 }, message);
      },
    });
    // A signal while the servers were being set up: the start is stopped, as before them.
    await start.checkpoint('listen');
  } catch (err) {
    return abandonStart(app, serving, err, `cannot listen: ${listenProblem(err, config.host)}`);
  }
  await start.pause('ready');
  const port = Number(new URL(serving.url).port);
  // The port in the lock is for the message a second sandbox gets: not worth failing a start for.
  await app.sandbox.store.announce(port).catch((e: unknown) => {
    process.stderr.write(`payout-sandbox: could not write the port into the lock file (${(e as Error).message})\n`);
  });
  app.sandbox.logger.info({ url: serving.url, port, pid: process.pid }, 'listening');
  if (config.readyFile !== null) {
    try {
      await writeReadyFile(config.readyFile, { url: serving.url, port, pid: process.pid, control_url: `${serving.url}/__sandbox` });
    } catch (err) {
      return abandonStart(app, serving, err, `cannot write --ready-file ${config.readyFile}: ${fsProblem(err)}`);
    }
  }
  // Listening, the lock and the ready file written: a signal from now on (or one that came meanwhile) is a stop.
  start.end();
  stopOnSignals(app, serving, start.signal);
  if (start.signal !== null) return;
  // The banner last: whoever waits for it can signal the process at once.
  if (config.insecureOpenControl && !isLoopback(config.host) && config.adminToken === null) {
    process.stderr.write(
      `payout-sandbox: WARNING: listening on ${config.host} with --insecure-open-control: anyone who can reach this machine can reset, credit, force statuses and read every merchant's data. Use --admin-token instead.\n`,
    );
  }
  process.stdout.write(banner(app, serving));
  if (demo) openStories(`${serving.url}/__sandbox/ui#/stories`);
}

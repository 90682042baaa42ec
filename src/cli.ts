import { rmSync, unlinkSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DateTime } from 'luxon';
import { createApp, type SandboxApp } from './app.js';
import { banner } from './banner.js';
import { unknownVerb, VERBS } from './client/verbs.js';
import { type Serving, serve } from './listen.js';
import {
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
import { DEFAULT_SCENARIO, ScenarioError } from './scenario/scenario.js';
import { stopOnSignals } from './signals.js';
import { StoreFileError, StoreWriteError } from './store/store.js';
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
    .addOption(env(new Option('--admin-token <token>', 'require Authorization: Bearer <token> on the control API'), 'ADMIN_TOKEN'))
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
        new Option('--review-fail-on <severity>', 'exit 4 on shutdown when the review has a finding of this severity or above').choices([
          'high',
          'medium',
          'low',
        ]),
        'REVIEW_FAIL_ON',
      ),
    )
    .addOption(env(new Option('--no-review', 'record no integration-review facts (to measure what they cost)'), 'NO_REVIEW'))
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
      env(new Option(`--${flag} <n>`, help).argParser(integer(flag.replace(/-/g, ' '), key)).default(DEFAULTS[key]), flag.toUpperCase().replace(/-/g, '_')),
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
  return Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, o[k] ?? config[k]])) as SandboxOptions;
}

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
  return optionsFromCli(program.opts());
}

/** Opens the sandbox; an invalid option or input file exits 2 with its message. */
async function open(options: SandboxOptions): Promise<SandboxApp> {
  try {
    return await createApp(options);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof FixturesError || err instanceof ScenarioError || err instanceof StoreFileError) {
      process.stderr.write(`payout-sandbox: ${err.message}\n`);
      process.exit(EXIT_USAGE);
    }
    if (err instanceof StoreWriteError) {
      process.stderr.write(`payout-sandbox: cannot start: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
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
 * (a script waiting for it never reads half), and removed when it stops.
 */
async function writeReadyFile(file: string, ready: Record<string, unknown>): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await mkdir(dirname(resolve(file)), { recursive: true });
  await writeFile(temp, `${JSON.stringify(ready)}\n`);
  await rename(temp, file);
  process.once('exit', () => {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  });
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
  const options = parseArgs(argv);
  // A ready file left by an earlier run must not say "ready" before this one is.
  if (options.readyFile) rmSync(options.readyFile, { force: true });
  const app = await open(options);
  const { config } = app.sandbox;
  let serving: Serving;
  try {
    serving = await serve(app, config.host, config.port, config.checkoutPort, config);
  } catch (err) {
    process.stderr.write(`payout-sandbox: cannot listen: ${listenProblem(err, config.host)}\n`);
    await app.sandbox.close().catch((e: unknown) => process.stderr.write(`payout-sandbox: and could not write everything: ${(e as Error).message}\n`));
    process.exit(1);
  }
  // The port in the lock is for the message a second sandbox gets: not worth failing a start for.
  await app.sandbox.store.announce(Number(new URL(serving.url).port)).catch((e: unknown) => {
    process.stderr.write(`payout-sandbox: could not write the port into the lock file (${(e as Error).message})\n`);
  });
  stopOnSignals(app, serving);
  const port = Number(new URL(serving.url).port);
  app.sandbox.logger.info({ url: serving.url, port, pid: process.pid }, 'listening');
  if (config.readyFile !== null) await writeReadyFile(config.readyFile, { url: serving.url, port, pid: process.pid, control_url: `${serving.url}/__sandbox` });
  // The banner last: whoever waits for it can signal the process at once.
  if (config.insecureOpenControl && !isLoopback(config.host) && config.adminToken === null) {
    process.stderr.write(
      `payout-sandbox: WARNING: listening on ${config.host} with --insecure-open-control: anyone who can reach this machine can reset, credit, force statuses and read every merchant's data. Use --admin-token instead.\n`,
    );
  }
  process.stdout.write(banner(app, serving));
}

import { resolve } from 'node:path';
import type { ClockMode } from '../clock.js';
import { COVERAGE_GROUPS, type CoverageGroup, coverageGroupOf } from '../observe/catalogue.js';
import { DEFAULT_SCENARIO } from '../scenario/scenario.js';
import type { ScenarioFile } from '../scenario/schema.js';
import type { StoreHooks } from '../store/store.js';
import { PACKAGE_ROOT } from '../version.js';
import { isHttpUrl, unsendable } from '../webhooks/targets.js';
import type { Fixtures } from './fixtures.js';
import { MIN_SECRET_LENGTH, SECRET_CHARACTERS, SECRET_RE } from './secrets.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything that shapes one sandbox (SPEC 2). The CLI and startSandbox() both end here. */
export interface SandboxConfig {
  port: number;
  host: string;
  checkoutPort: number | null;
  /** A lowdb JSON file, or `memory`. */
  data: string;
  /** A fixtures file, or the fixtures themselves (in-process use). */
  fixtures: string | Fixtures;
  /** A scenario file (JSON or YAML), or the scenario itself (in-process use). */
  scenario: string | ScenarioFile | ExtendingScenario;
  webhookUrl: string | null;
  clock: ClockMode;
  speed: number;
  /** Manual clock start, ms since the epoch (default: a fixed instant). */
  clockStart: number | null;
  seed: number | null;
  adminToken: string | null;
  /**
   * Host names (besides the bound address, localhost, 127.0.0.1 and [::1]) a request's Host header
   * may name: `sandbox` for a compose service, `*.internal.example` patterns. The control API and
   * the dashboard refuse any other Host (DNS rebinding); with names given on a non-loopback bind,
   * the emulated API does too.
   */
  allowedHosts: string[];
  rateLimits: boolean;
  logLevel: LogLevel;
  /** How many requests the control API's journal keeps (0: no journal, and no work per request for it). */
  journalSize: number;
  /** Listen on a non-loopback address without an admin token (warned about at every start). */
  insecureOpenControl: boolean;
  /** Hosts webhooks may be sent to (`*.example.com` patterns); null: any. */
  webhookAllow: string[] | null;
  /** Caps (see docs/operations.md "Running a shared sandbox"). */
  maxMerchants: number;
  maxRecordsPerMerchant: number;
  maxRecords: number;
  maxDeliveriesPerMerchant: number;
  maxSnapshots: number;
  maxSnapshotBytes: number;
  maxConnections: number;
  /**
   * Listening handles beside the first on the port (accept.ts): a busy sandbox accepts up to this
   * + 1 new connections a turn of its loop. 0 in a test's own process (startSandbox); the command,
   * the executable and the image start with 16 (CLI_DEFAULTS).
   */
  acceptHandles: number;
  /** Real ms: the whole request head must arrive within it; the whole request within requestTimeout. */
  headersTimeout: number;
  requestTimeout: number;
  /** fdatasync the change log after every batch (and the document at compaction). */
  fsync: boolean;
  /** The change log is compacted into the document when it is past this many bytes and past the document's size. */
  compactBytes: number;
  /** Where to write the behaviour-coverage report (all merchants) on shutdown: .json, .md or .xml (JUnit). */
  coverageReport: string | null;
  /** Below this percentage of behaviours covered, shutdown fails (CLI: exit code 3). */
  coverageMin: number | null;
  /** In a JUnit (.xml) coverage report, an uncovered behaviour is a failed test case, or a skipped one. */
  coverageUncovered: 'failed' | 'skipped';
  /** Catalogue groups left out of the coverage report and gate (`business-errors`, `webhooks`, …). */
  coverageIgnore: CoverageGroup[];
  /** Record the integration review's facts (on by default; off only to measure what they cost). */
  review: boolean;
  /** Where to write the integration review (all merchants) on shutdown: .json, .md or .xml (JUnit). */
  reviewReport: string | null;
  /** Where to write one trace per merchant that made a request, on shutdown (`<merchant_id>.trace.json`; docs/trace.md). */
  traceDir: string | null;
  /** With a finding of this severity or above, shutdown fails (CLI: exit code 4; `sb.stop()` rejects). */
  reviewFailOn: 'high' | 'medium' | 'low' | 'unproven' | null;
  /** CLI: a file that gets `{ url, port, pid, control_url }` once the sandbox listens. */
  readyFile: string | null;
  /** In-process only (no CLI option): the file layer's test hooks (a short write, a crash point). */
  storeHooks: StoreHooks | null;
}

/** A scenario given whole that extends another: only what it changes (see docs/scenarios.md). */
export type ExtendingScenario = Partial<ScenarioFile> & { extends: string; name: string };

export const DEFAULT_FIXTURES = resolve(PACKAGE_ROOT, 'fixtures/default.json');

export const DEFAULTS: SandboxConfig = {
  port: 4010,
  host: '127.0.0.1',
  checkoutPort: null,
  data: '.sandbox/db.json',
  fixtures: DEFAULT_FIXTURES,
  scenario: DEFAULT_SCENARIO,
  webhookUrl: null,
  clock: 'real',
  speed: 1,
  clockStart: null,
  seed: null,
  adminToken: null,
  allowedHosts: [],
  rateLimits: true,
  logLevel: 'info',
  journalSize: 1000,
  insecureOpenControl: false,
  webhookAllow: null,
  maxMerchants: 1000,
  maxRecordsPerMerchant: 100_000,
  maxRecords: 250_000,
  maxDeliveriesPerMerchant: 10_000,
  maxSnapshots: 50,
  maxSnapshotBytes: 256 * 1024 * 1024,
  maxConnections: 2000,
  acceptHandles: 0,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  coverageReport: null,
  coverageMin: null,
  coverageUncovered: 'failed',
  coverageIgnore: [],
  fsync: true,
  compactBytes: 64 * 1024 * 1024,
  readyFile: null,
  review: true,
  reviewReport: null,
  traceDir: null,
  reviewFailOn: null,
  storeHooks: null,
};

export type SandboxOptions = Partial<SandboxConfig>;

/** Where the command's default differs from a sandbox started in a test's own process: a server that may serve many clients at once. */
export const CLI_DEFAULTS: Partial<SandboxConfig> = { acceptHandles: 16 };

/** The whole-number options' ranges: the CLI's parsers and resolveConfig both read them. */
export const RANGES = {
  port: { min: 0, max: 65535 },
  checkoutPort: { min: 0, max: 65535 },
  seed: { min: 0, max: Number.MAX_SAFE_INTEGER },
  journalSize: { min: 0, max: 100_000 },
  maxMerchants: { min: 0, max: 1_000_000 },
  maxRecordsPerMerchant: { min: 1, max: 10_000_000 },
  maxRecords: { min: 1, max: 100_000_000 },
  maxDeliveriesPerMerchant: { min: 1, max: 10_000_000 },
  maxSnapshots: { min: 0, max: 10_000 },
  maxSnapshotBytes: { min: 0, max: 64 * 1024 ** 3 },
  maxConnections: { min: 1, max: 1_000_000 },
  acceptHandles: { min: 0, max: 64 },
  headersTimeout: { min: 100, max: 600_000 },
  requestTimeout: { min: 100, max: 3_600_000 },
  compactBytes: { min: 0, max: 64 * 1024 ** 3 },
} as const;

type Ranged = keyof typeof RANGES;

/** The rule a whole-number option breaks, or null when `n` is in its range. */
export function rangeProblem(option: Ranged, n: number): string | null {
  const { min, max } = RANGES[option];
  return Number.isSafeInteger(n) && n >= min && n <= max ? null : `must be a whole number from ${min} to ${max}`;
}

export class ConfigError extends Error {}

/** An option's command-line flag, from its config key: `maxRecordsPerMerchant` → `max-records-per-merchant`. */
export function flagOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The rule a percentage breaks, or null. */
export function percentProblem(n: number): string | null {
  return Number.isFinite(n) && n >= 0 && n <= 100 ? null : 'must be a percentage from 0 to 100';
}

const HOST_PATTERN = /^(\*\.)?[A-Za-z0-9.:_-]+$/;

/**
 * A wildcard of --allowed-host names at least two labels (*.internal.example), never a whole
 * top-level domain (*.com). No list of public suffixes is kept: *.co.uk passes (the docs say to
 * name a domain of one's own).
 */
const ALLOWED_HOST_WILDCARD = /^\*\.[A-Za-z0-9_-]+\.[A-Za-z0-9._-]*[A-Za-z0-9_-]$/;

/** How to make a secret, for every refusal of one. */
export const MAKE_SECRET = `e.g. openssl rand -hex 24, or node -e "console.log(require('node:crypto').randomBytes(24).toString('hex'))"`;

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Fills defaults and checks every value; a bad one is a ConfigError naming the option and rule. */
export function resolveConfig(options: SandboxOptions = {}): SandboxConfig {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const c: SandboxConfig = { ...DEFAULTS, ...defined };
  const fail = (option: string, rule: string): never => {
    throw new ConfigError(`--${option}: ${rule}`);
  };
  for (const key of Object.keys(RANGES) as Ranged[]) {
    const problem = c[key] === null ? null : rangeProblem(key, c[key]);
    if (problem) fail(flagOf(key), problem);
  }
  if (typeof c.host !== 'string' || c.host === '') fail('host', 'must be a host name or address');
  if (typeof c.data !== 'string' || c.data === '') fail('data', 'must be a file path or "memory"');
  if (c.clock !== 'real' && c.clock !== 'manual') fail('clock', 'must be "real" or "manual"');
  if (!(typeof c.speed === 'number' && Number.isFinite(c.speed) && c.speed > 0)) fail('speed', 'must be a number above 0');
  if (c.clockStart !== null && !Number.isFinite(c.clockStart)) fail('clock-start', 'must be a date and time');
  const short = c.coverageMin === null ? null : percentProblem(c.coverageMin);
  if (short) fail('coverage-min', short);
  if (c.coverageReport !== null && (typeof c.coverageReport !== 'string' || c.coverageReport === '')) fail('coverage-report', 'must be a file path');
  if (c.reviewReport !== null && (typeof c.reviewReport !== 'string' || c.reviewReport === '')) fail('review-report', 'must be a file path');
  if (c.traceDir !== null && (typeof c.traceDir !== 'string' || c.traceDir === '')) fail('trace-dir', 'must be a directory path');
  if (c.reviewFailOn !== null && !['high', 'medium', 'low', 'unproven'].includes(c.reviewFailOn))
    fail('review-fail-on', 'must be one of high, medium, low, unproven');
  if (c.coverageUncovered !== 'failed' && c.coverageUncovered !== 'skipped') fail('coverage-uncovered', 'must be failure (or failed) or skipped');
  if (!Array.isArray(c.coverageIgnore) || c.coverageIgnore.some((g) => coverageGroupOf(g) === null)) {
    fail('coverage-ignore', `must be groups of the coverage catalogue, comma-separated: ${COVERAGE_GROUPS.map((g) => g.replace(/ /g, '-')).join(', ')}`);
  }
  c.coverageIgnore = c.coverageIgnore.map((g) => coverageGroupOf(g) as CoverageGroup);
  if (c.webhookAllow !== null && !(Array.isArray(c.webhookAllow) && c.webhookAllow.every((h) => HOST_PATTERN.test(h)))) {
    fail('webhook-allow', 'must be a list of host names or addresses, each optionally starting with *. (e.g. 127.0.0.1,*.internal.example)');
  }
  if (c.adminToken !== null && (typeof c.adminToken !== 'string' || c.adminToken.length < MIN_SECRET_LENGTH || !SECRET_RE.test(c.adminToken))) {
    const given =
      typeof c.adminToken === 'string' && c.adminToken === ''
        ? 'is empty (an empty SANDBOX_ADMIN_TOKEN is refused, not read as "no token")'
        : `must be at least ${MIN_SECRET_LENGTH} ${SECRET_CHARACTERS}`;
    fail('admin-token', `${given}: make one, ${MAKE_SECRET}; or give no --admin-token (and leave SANDBOX_ADMIN_TOKEN unset) on a loopback --host`);
  }
  if (!Array.isArray(c.allowedHosts) || c.allowedHosts.some((h) => typeof h !== 'string' || !HOST_PATTERN.test(h))) {
    fail('allowed-host', 'must be host names or addresses, each optionally starting with *. (e.g. sandbox, or *.internal.example)');
  }
  const tooWide = c.allowedHosts.find((h) => h.startsWith('*.') && !ALLOWED_HOST_WILDCARD.test(h));
  if (tooWide !== undefined) {
    fail(
      'allowed-host',
      `${tooWide} is too wide: a wildcard names at least two labels (e.g. *.internal.example), else any page under a public domain could reach the control API by DNS rebinding`,
    );
  }
  if (!isLoopback(c.host) && c.adminToken === null && !c.insecureOpenControl) {
    fail(
      'host',
      `${c.host} is not a loopback address, so the control API (reset, credit, force statuses, every merchant's data) would be open to the network. ` +
        'Set --admin-token <token> or the variable SANDBOX_ADMIN_TOKEN (the control API then needs Authorization: Bearer <token>), ' +
        'or pass --insecure-open-control or set SANDBOX_INSECURE_OPEN_CONTROL=1 to open it anyway',
    );
  }
  if (!LOG_LEVELS.includes(c.logLevel)) fail('log-level', `must be one of ${LOG_LEVELS.join(', ')}`);
  if (c.webhookUrl !== null) {
    if (!isHttpUrl(c.webhookUrl)) fail('webhook-url', 'must be an http or https URL');
    const unfit = unsendable(c.webhookUrl);
    if (unfit !== null) fail('webhook-url', `cannot be sent to: ${unfit}`);
  }
  return c;
}

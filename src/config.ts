import { resolve } from 'node:path';
import type { ClockMode } from './clock.js';
import type { Fixtures } from './fixtures.js';
import { DEFAULT_SCENARIO } from './scenario/scenario.js';
import type { ScenarioFile } from './scenario/schema.js';
import { PACKAGE_ROOT } from './version.js';

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
  scenario: string | ScenarioFile;
  webhookUrl: string | null;
  clock: ClockMode;
  speed: number;
  /** Manual clock start, ms since the epoch (default: a fixed instant). */
  clockStart: number | null;
  seed: number | null;
  adminToken: string | null;
  rateLimits: boolean;
  logLevel: LogLevel;
  /** How many requests the control API's journal keeps. */
  journalSize: number;
}

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
  rateLimits: true,
  logLevel: 'info',
  journalSize: 1000,
};

export type SandboxOptions = Partial<SandboxConfig>;

export class ConfigError extends Error {}

/** Fills defaults and checks every value; a bad one is a ConfigError naming the option and rule. */
export function resolveConfig(options: SandboxOptions = {}): SandboxConfig {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const c: SandboxConfig = { ...DEFAULTS, ...defined };
  const fail = (option: string, rule: string): never => {
    throw new ConfigError(`--${option}: ${rule}`);
  };
  const isPort = (n: number) => Number.isInteger(n) && n >= 0 && n <= 65535;
  if (!isPort(c.port)) fail('port', 'must be a whole number from 0 to 65535');
  if (c.checkoutPort !== null && !isPort(c.checkoutPort)) fail('checkout-port', 'must be a whole number from 0 to 65535');
  if (typeof c.host !== 'string' || c.host === '') fail('host', 'must be a host name or address');
  if (typeof c.data !== 'string' || c.data === '') fail('data', 'must be a file path or "memory"');
  if (c.clock !== 'real' && c.clock !== 'manual') fail('clock', 'must be "real" or "manual"');
  if (!(typeof c.speed === 'number' && Number.isFinite(c.speed) && c.speed > 0)) fail('speed', 'must be a number above 0');
  if (c.seed !== null && !(Number.isSafeInteger(c.seed) && c.seed >= 0)) fail('seed', 'must be a whole number of 0 or more');
  if (c.clockStart !== null && !Number.isFinite(c.clockStart)) fail('clock-start', 'must be a date and time');
  if (!(Number.isInteger(c.journalSize) && c.journalSize >= 1 && c.journalSize <= 100_000)) fail('journal-size', 'must be a whole number from 1 to 100000');
  if (!LOG_LEVELS.includes(c.logLevel)) fail('log-level', `must be one of ${LOG_LEVELS.join(', ')}`);
  if (c.webhookUrl !== null && !/^https?:\/\/\S+$/.test(c.webhookUrl)) fail('webhook-url', 'must be an http or https URL');
  return c;
}

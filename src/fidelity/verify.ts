import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { ConfigError, type SandboxOptions } from '../sandbox/config.js';
import { resolveExtends } from '../scenario/extends.js';
import { ScenarioError } from '../scenario/types.js';
import { fileExists } from '../shipped.js';
import { fsProblem } from '../store/file-errors.js';
import { writeProblem } from '../store/writable.js';
import { PACKAGE_ROOT } from '../version.js';
import { type CallsOf, callsOf, type HarEntryLike } from './calls.js';
import type { DifferenceKind } from './compare.js';
import { readHarText } from './har.js';
import { type Driver, httpDriver, inProcessDriver, type ReplayResult, replay } from './replay.js';
import { openDifferences, type Suggestion, suggestScenario } from './suggest.js';

/**
 * `payout-sandbox verify FILE.har`: a recorded session (the recorder's HAR, the sandbox's own trace
 * as HAR, or another tool's) replayed against a fresh merchant of a sandbox (in-process by
 * default, or a running one at --url), every behavioural difference reported: docs/fidelity.md
 * "Check the sandbox against the real service". In-process: `verifySession(har, options)`.
 */

export interface VerifyOptions {
  /** The scenario of the in-process sandbox (a file, or the scenario itself); default: the shipped default. */
  scenario?: SandboxOptions['scenario'];
  /** A running sandbox to verify against instead (its base URL), and its admin token. */
  url?: string;
  adminToken?: string;
  /** Paths of answers not compared (dotted: `data.transaction.purpose`), nor anything under them. */
  ignore?: string[];
}

export interface VerifyDifference {
  entry: number;
  operation: string;
  kind: DifferenceKind;
  path: string;
  recorded: unknown;
  sandbox: unknown;
}

export interface VerifyReport {
  /** The share of compared entries answered alike (1: no difference). */
  score: number;
  compared: number;
  differences: VerifyDifference[];
  skipped: Array<{ entry: number; reason: string }>;
  /** Entries that are not calls of this API (webhook attempts of a trace, other requests). */
  not_api: number;
  /** With a suggested scenario: what a scenario cannot close. */
  needs_sandbox_change?: Suggestion['needsSandboxChange'];
  /** With a suggested scenario, in-process: the score of a verify with it (what it closes, measured). */
  suggested_score?: number;
}

/** A HAR that holds nothing to verify, or is no HAR: verify exits 2 with this. */
export class HarProblem extends Error {}

/**
 * The paths the recorder's upstreams were mounted under (`https://uat.example.com/gw` → `/gw`),
 * from `log._payout_sandbox`: stripped from each entry's path before it is matched to the API.
 */
function upstreamPrefixes(value: unknown): string[] {
  const info = (value as { log?: { _payout_sandbox?: Record<string, unknown> } } | null)?.log?._payout_sandbox;
  const out: string[] = [];
  for (const u of [info?.upstream, info?.checkout_upstream]) {
    if (typeof u !== 'string') continue;
    try {
      const path = new URL(u).pathname.replace(/\/+$/, '');
      if (path !== '' && !out.includes(path)) out.push(path);
    } catch {
      // Not a URL: nothing to strip.
    }
  }
  return out;
}

/** The entries of a parsed HAR, checked (HAR 1.2, every entry with a request and a response). */
export function harEntries(value: unknown): HarEntryLike[] {
  const log = (value as { log?: { version?: unknown; entries?: unknown } } | null)?.log;
  if (typeof log !== 'object' || log === null) throw new HarProblem('not a HAR file (no "log")');
  if (log.version !== '1.2') throw new HarProblem(`HAR version ${JSON.stringify(log.version)}: only 1.2 is read`);
  if (!Array.isArray(log.entries)) throw new HarProblem('not a HAR file (no "log.entries" list)');
  log.entries.forEach((e: unknown, i: number) => {
    const x = e as HarEntryLike | null;
    if (typeof x?.request?.url !== 'string' || typeof x.request.method !== 'string') throw new HarProblem(`entry ${i}: no request (method and url)`);
    if (typeof x.response?.status !== 'number') throw new HarProblem(`entry ${i}: no response status`);
  });
  return log.entries as HarEntryLike[];
}

/** A session's calls, or why there is nothing to verify. */
function usable(har: unknown): CallsOf {
  const entries = harEntries(har);
  const found = callsOf(entries, upstreamPrefixes(har));
  if (found.calls.length === 0) {
    throw new HarProblem(
      `no entry to verify: ${entries.length} entries, ${found.notApi} not calls of this API${found.skipped.length ? `, ${found.skipped.length} without a usable answer` : ''}`,
    );
  }
  return found;
}

interface Verified {
  report: VerifyReport;
  result: ReplayResult;
  driver: string;
}

async function run(har: unknown, options: VerifyOptions): Promise<Verified> {
  const { calls, skipped, notApi } = usable(har);
  const driver: Driver = options.url ? httpDriver(options.url, options.adminToken) : await inProcessDriver({ scenario: options.scenario });
  try {
    const result = await replay(calls, driver, { ignore: options.ignore });
    const differences = result.replayed.flatMap((r) =>
      r.differences.map((d) => ({ entry: r.call.entry, operation: r.call.operation.id, kind: d.kind, path: d.path, recorded: d.recorded, sandbox: d.sandbox })),
    );
    const compared = result.replayed.length;
    const alike = result.replayed.filter((r) => r.differences.length === 0).length;
    return {
      report: {
        score: compared === 0 ? 0 : Number((alike / compared).toFixed(4)),
        compared,
        differences,
        skipped: [...skipped, ...result.skipped].sort((a, b) => a.entry - b.entry),
        not_api: notApi,
      },
      result,
      driver: await driver.scenario(),
    };
  } finally {
    await driver.close();
  }
}

/** Replays a recorded session (a parsed HAR) against a sandbox and reports every difference of behaviour. */
export async function verifySession(har: unknown, options: VerifyOptions = {}): Promise<VerifyReport> {
  return (await run(har, options)).report;
}

/** A shipped scenario's name (`extends` takes it), or null. */
function shippedName(name: string): string | null {
  return /^[A-Za-z0-9_-]+$/.test(name) && fileExists(resolve(PACKAGE_ROOT, 'scenarios', `${name}.json`)) ? name : null;
}

/**
 * What the suggestion extends: the --scenario file verified against, or the shipped scenario the
 * sandbox runs (by its file or, for a running one, its name); a running sandbox's own scenario,
 * which a file cannot name, is replaced by `default` and said so in `note`.
 */
function suggestionBase(options: VerifyOptions, driver: string): { base: string; note: string | null } {
  if (typeof options.scenario === 'string') return { base: resolve(options.scenario), note: null };
  const shipped = /(?:^|[\\/])scenarios[\\/]([A-Za-z0-9_-]+)\.json$/.exec(driver)?.[1] ?? driver;
  if (shippedName(shipped) !== null) return { base: shipped, note: null };
  return {
    base: 'default',
    note: `the sandbox at --url runs the scenario "${driver}", which is not shipped: the suggestion extends default (point its extends at your scenario's file)`,
  };
}

/**
 * As verifySession, with the scenario that closes what a scenario can close of the differences.
 * In-process, the session is verified again with it: what remains is what needs a change to the
 * sandbox, and `suggested_score` what the suggestion reaches.
 */
export async function verifyAndSuggest(
  har: unknown,
  options: VerifyOptions = {},
): Promise<{ report: VerifyReport; suggestion: Suggestion; note: string | null }> {
  const { report, result, driver } = await run(har, options);
  const { base, note } = suggestionBase(options, driver);
  const suggestion = suggestScenario(result, base);
  if (options.url !== undefined) return { report: { ...report, needs_sandbox_change: suggestion.needsSandboxChange }, suggestion, note };
  const scenario = (await resolveExtends(suggestion.scenario, null)) as SandboxOptions['scenario'];
  const again = await run(har, { ...options, scenario });
  suggestion.needsSandboxChange = openDifferences(again.result);
  return { report: { ...report, needs_sandbox_change: suggestion.needsSandboxChange, suggested_score: again.report.score }, suggestion, note };
}

const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
const cell = (v: unknown) => show(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Markdown: the score, a table of differences per operation, what was skipped and why. */
export function verifyMarkdown(r: VerifyReport): string {
  const lines = [
    `### Fidelity: ${r.differences.length === 0 ? 'no difference' : `${r.differences.length} difference${r.differences.length === 1 ? '' : 's'}`} (score ${r.score}, ${r.compared} entries compared)`,
    '',
  ];
  const byOp = new Map<string, VerifyDifference[]>();
  for (const d of r.differences) byOp.set(d.operation, [...(byOp.get(d.operation) ?? []), d]);
  for (const [op, list] of byOp) {
    lines.push(`#### ${op}`, '', '| entry | kind | path | real service | sandbox |', '|---|---|---|---|---|');
    for (const d of list) lines.push(`| ${d.entry} | ${d.kind} | \`${d.path || '(answer)'}\` | ${cell(d.recorded)} | ${cell(d.sandbox)} |`);
    lines.push('');
  }
  if (r.skipped.length > 0) {
    lines.push('**Not replayed:**', '');
    for (const s of r.skipped) lines.push(`- entry ${s.entry}: ${s.reason}`);
    lines.push('');
  }
  if (r.needs_sandbox_change && r.needs_sandbox_change.length > 0) {
    lines.push(
      '**Needs a change to the sandbox** (a scenario cannot close these):',
      '',
      '| operation | kind | path | real service | sandbox | entries |',
      '|---|---|---|---|---|---|',
    );
    for (const n of r.needs_sandbox_change)
      lines.push(`| ${n.operation} | ${n.kind} | \`${n.path || '(answer)'}\` | ${cell(n.recorded)} | ${cell(n.sandbox)} | ${n.entries.join(', ')} |`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit: one test case per compared entry, a failure listing its differences. */
export function verifyJunit(r: VerifyReport, entries: Array<{ entry: number; operation: string }>): string {
  const cases = entries.map(({ entry, operation }) => {
    const mine = r.differences.filter((d) => d.entry === entry);
    const open = `    <testcase classname="payout-sandbox.fidelity.${xml(operation)}" name="entry ${entry}: ${xml(operation)}">`;
    if (mine.length === 0) return `${open}</testcase>`;
    const message = mine.map((d) => `${d.kind} ${d.path || '(answer)'}`).join('; ');
    const body = mine.map((d) => `${d.kind} at ${d.path || '(answer)'}: real service ${show(d.recorded)}, sandbox ${show(d.sandbox)}`).join('\n');
    return `${open}<failure message="${xml(message)}" type="${xml(mine[0]?.kind ?? '')}">${xml(body)}</failure></testcase>`;
  });
  const failures = cases.filter((c) => c.includes('<failure')).length;
  const counts = `tests="${cases.length}" failures="${failures}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="payout-sandbox fidelity (score ${r.score})" ${counts}>`,
    `  <testsuite name="fidelity" ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Exit codes: 0 no difference, 5 a difference, 2 a usage error or nothing to verify, 1 the sandbox failed. */
export const EXIT = { alike: 0, failed: 1, usage: 2, differences: 5 } as const;

function program(): Command {
  return new Command('payout-sandbox verify')
    .description('Replays a recorded session (HAR) against a fresh merchant of a sandbox and reports every behavioural difference (docs/fidelity.md).')
    .argument('<file>', 'a HAR 1.2 file: payout-sandbox record, a trace as HAR, or another tool')
    .option('--scenario <file>', 'the scenario of the in-process sandbox (default: the shipped default)')
    .option('--url <url>', 'verify against a running sandbox instead (its base URL)')
    .addOption(new Option('--admin-token <token>', "the running sandbox's admin token").env('SANDBOX_ADMIN_TOKEN'))
    .option('--report <file>', 'write the report: .json, .md (Markdown) or .xml (JUnit)')
    .option(
      '--ignore <path>',
      'an answer path not compared, nor anything under it (dotted, e.g. data.transaction.purpose; repeatable, or comma-separated)',
      (v: string, all: string[]) => [
        ...all,
        ...v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ],
      [] as string[],
    )
    .option('--suggest-scenario <file>', 'write the scenario that closes what a scenario can close')
    .option('--json', 'print the report as JSON')
    .helpOption('-h, --help', 'this help')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run payout-sandbox verify --help for the options)');
}

async function write(file: string, text: string): Promise<void> {
  await mkdir(dirname(resolve(file)), { recursive: true });
  await writeFile(file, text);
}

/** `payout-sandbox verify …`: the exit code. */
export async function verifyCommand(args: string[]): Promise<number> {
  const cmd = program();
  try {
    cmd.parse(args, { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    return code === 'commander.helpDisplayed' || code === 'commander.help' || code === 'commander.version' ? 0 : EXIT.usage;
  }
  const o = cmd.opts<{ scenario?: string; url?: string; adminToken?: string; report?: string; ignore?: string[]; suggestScenario?: string; json?: boolean }>();
  const file = cmd.args[0] as string;
  const say = (m: string) => process.stderr.write(`payout-sandbox verify: ${m}\n`);
  if (o.url !== undefined && o.scenario !== undefined) {
    say("--scenario and --url do not go together: --scenario sets the in-process sandbox's scenario; a running sandbox (--url) runs its own");
    return EXIT.usage;
  }
  if (o.url !== undefined && !/^https?:\/\/[^/]/i.test(o.url)) {
    say(`--url ${o.url}: not an http(s) URL`);
    return EXIT.usage;
  }
  if (o.scenario !== undefined) {
    const problem = await stat(o.scenario).then(
      (s) => (s.isFile() ? null : 'it is not a file'),
      (err: unknown) => fsProblem(err),
    );
    if (problem !== null) {
      say(`--scenario ${o.scenario}: ${problem}`);
      return EXIT.usage;
    }
  }
  // What will be written is checked before anything runs: a replay is not lost to a path that cannot take its report.
  for (const [option, path] of [
    ['--report', o.report],
    ['--suggest-scenario', o.suggestScenario],
  ] as const) {
    const problem = path === undefined ? null : await writeProblem(resolve(path), 'file');
    if (problem !== null) {
      say(`${option} ${path}: cannot be written (${problem})`);
      return EXIT.usage;
    }
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    say(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    return EXIT.usage;
  }
  const read = readHarText(text);
  if ('problem' in read) {
    say(`${file}: ${read.problem}`);
    return EXIT.usage;
  }
  if (read.repaired) say(`${file}: cut short (a recorder stopped mid-session?): verifying every whole entry`);
  const options: VerifyOptions = { scenario: o.scenario, url: o.url, adminToken: o.adminToken, ignore: o.ignore };
  let report: VerifyReport;
  let entries: Array<{ entry: number; operation: string }>;
  try {
    if (o.suggestScenario) {
      const { report: r, suggestion, note } = await verifyAndSuggest(read.har, options);
      report = r;
      if (note !== null) say(note);
      await write(o.suggestScenario, `${JSON.stringify(suggestion.scenario, null, 2)}\n`);
      say(`suggested scenario written to ${o.suggestScenario} (${basename(o.suggestScenario)}: verify again with --scenario ${o.suggestScenario})`);
    } else report = await verifySession(read.har, options);
    entries = usable(read.har).calls.map((c) => ({ entry: c.entry, operation: c.operation.id }));
  } catch (err) {
    if (err instanceof HarProblem) {
      say(`${file}: ${err.message}`);
      return EXIT.usage;
    }
    if (err instanceof ScenarioError || err instanceof ConfigError) {
      say(err.message);
      return EXIT.usage;
    }
    say(`could not verify: ${(err as Error).message}`);
    return EXIT.failed;
  }
  const compared = entries.filter((e) => !report.skipped.some((s) => s.entry === e.entry));
  if (o.report) {
    const out = /\.xml$/i.test(o.report)
      ? verifyJunit(report, compared)
      : /\.md$/i.test(o.report)
        ? verifyMarkdown(report)
        : `${JSON.stringify(report, null, 2)}\n`;
    await write(o.report, out);
  }
  process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : verifyMarkdown(report));
  return report.differences.length === 0 ? EXIT.alike : EXIT.differences;
}

/** The CLI's entry for `payout-sandbox verify …` (argv as process.argv). */
export async function main(argv: string[]): Promise<void> {
  process.exit(await verifyCommand(argv.slice(3)));
}

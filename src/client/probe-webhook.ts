import { Command, InvalidArgumentError, Option } from 'commander';
import { DURATION_FORMS, parseDuration } from '../duration.js';
import type { ProbeCheck } from '../store/state.js';
import { type ProbeResult, probeBody, probeReceiver, syntheticPayout } from '../webhooks/probe.js';
import { parseVerb, receiverUrl } from './http.js';

/**
 * `payout-sandbox probe-webhook --url URL --secret S [--version v1|v2] [--timeout 5s] [--json]`:
 * the receiver probe on its own, with no sandbox running. Exit 0 when every check passed, 1
 * when one failed, 2 for a bad option.
 */

function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError(`must be above 0: ${DURATION_FORMS}.`);
  return ms;
}

function program(): Command {
  return new Command('payout-sandbox probe-webhook')
    .description("Probes a webhook receiver with the sandbox's fixed battery of signed payout deliveries (no sandbox needed).")
    .requiredOption('--url <url>', 'the receiver to probe', receiverUrl)
    .requiredOption('--secret <secret>', 'the webhook secret it verifies with (the API secret until rotated)')
    .addOption(new Option('--version <version>', 'the body: V1 { transaction } or V2 (the status-check envelope)').choices(['v1', 'v2']).default('v2'))
    .addOption(new Option('--timeout <duration>', 'how long each answer may take (the webhook timeout)').argParser(duration).default(5000, '5s'))
    .option('--json', 'print the result as JSON ({ ok, url, checks })')
    .helpOption('-h, --help', 'this help')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run payout-sandbox probe-webhook --help for the options)');
}

/** The result as a table: one row per check, then a verdict. */
export function probeTable(result: ProbeResult): string {
  const cols: Array<[string, (c: ProbeCheck) => string]> = [
    ['check', (c) => c.check],
    ['result', (c) => (c.passed ? 'pass' : 'FAIL')],
    ['expected', (c) => c.expected],
    ['got', (c) => c.got],
    ['detail', (c) => c.detail],
  ];
  const widths = cols.map(([h, f]) => Math.max(h.length, ...result.checks.map((c) => f(c).length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
  const passed = result.checks.filter((c) => c.passed).length;
  return [
    `Probe of ${result.url}`,
    '',
    line(cols.map(([h]) => h)),
    line(widths.map((w) => '-'.repeat(w))),
    ...result.checks.map((c) => line(cols.map(([, f]) => f(c)))),
    '',
    `${result.ok ? 'OK' : 'FAILED'}: ${passed} of ${result.checks.length} checks passed.`,
    '',
  ].join('\n');
}

/** Runs the verb; `args` are the words after `probe-webhook`. Resolves to the exit code. */
export async function probeWebhook(args: string[]): Promise<number> {
  const cmd = program();
  const parsed = parseVerb(cmd, args);
  if (parsed !== null) return parsed;
  const o = cmd.opts<{ url: string; secret: string; version: 'v1' | 'v2'; timeout: number; json?: boolean }>();
  const now = Date.now();
  const result = await probeReceiver({
    url: o.url,
    keys: { v1: o.secret, v2: [o.secret] },
    body: probeBody(syntheticPayout('SBXPROBE0001', 'PROBEVAN000000000001', now), o.version),
    timeoutMs: o.timeout,
  });
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : probeTable(result));
  return result.ok ? 0 : 1;
}

/** The CLI's entry for `payout-sandbox probe-webhook …` (argv as process.argv): exits with the code. */
export async function main(argv: string[]): Promise<void> {
  // Exits at once: the receiver's kept-alive connections must not hold the process open.
  process.exit(await probeWebhook(argv.slice(3)));
}

import { InvalidArgumentError, Option } from 'commander';
import { DURATION_FORMS, parseDuration } from '../duration.js';
import { clientOf, EXIT, runVerb, type SandboxClient, verbCommand } from './http.js';

/**
 * The control API's everyday calls as verbs (docs/companion.md): `advance`, `redeliver`,
 * `coverage` (exit 3 below --min) and `review` (exit 4 at or above --fail-on), with the shutdown
 * gates' exit codes.
 */

type Conn = { url: string; adminToken?: string };

function duration(value: string): string {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError(`must be above 0: ${DURATION_FORMS}.`);
  return value;
}

function percent(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError('must be a percentage from 0 to 100.');
  return n;
}

const merchantPath = (id: string | undefined) => (id === undefined ? '' : `/merchants/${encodeURIComponent(id)}`);

/** `advance <duration> [--merchant ID] [--settle] [--json]`: the manual clock (the sandbox's, or one merchant's own) moved on. */
export function advance(argv: string[]): Promise<never> {
  const program = verbCommand('advance', "Moves the sandbox's manual clock (or one merchant's) on, running everything due in order.")
    .argument('<duration>', 'how far: 500ms, 5s, 30m, 24h, 1d, 1h30m or PT1H30M', duration)
    .option('--merchant <id>', "move only this merchant's clock")
    .option('--settle', 'then wait for the webhook attempts it started (POST /__sandbox/webhooks/settle)')
    .option('--json', 'print the clock as JSON');
  return runVerb(argv, 1, program, async (o, args) => {
    const client = clientOf(o as Conn);
    const merchant = o.merchant as string | undefined;
    const clock = await client.control<{ now: string }>('POST', `${merchantPath(merchant)}/clock/advance`, { by: args[0] });
    if (o.settle) await client.control('POST', '/webhooks/settle');
    process.stdout.write(
      o.json ? `${JSON.stringify(clock, null, 2)}\n` : `${merchant ? `${merchant}'s clock` : 'clock'} advanced ${args[0]}: now ${clock.now}\n`,
    );
    return 0;
  });
}

/** `redeliver <delivery-id> [--json]`: a webhook delivery sent again now. */
export function redeliver(argv: string[]): Promise<never> {
  const program = verbCommand('redeliver', 'Sends a webhook delivery again now, whatever its state (to a listener, while one is attached).')
    .argument('<delivery-id>', 'whd_…')
    .option('--json', 'print the delivery as JSON');
  return runVerb(argv, 1, program, async (o, args) => {
    const client = clientOf(o as Conn);
    const d = await client.control<{ delivery_id: string; target_url: string; ref_id: string; event_status: string }>(
      'POST',
      `/webhooks/${encodeURIComponent(args[0])}/redeliver`,
    );
    process.stdout.write(
      o.json ? `${JSON.stringify(d, null, 2)}\n` : `${d.delivery_id} (payout ${d.ref_id}, ${d.event_status}) is being sent again to ${d.target_url}\n`,
    );
    return 0;
  });
}

interface CoverageReport {
  merchant_id: string | null;
  summary: { covered: number; total: number; percent: number };
  items: Array<{ id: string; group: string; description: string; hits: number; how: string }>;
}

function coverageText(r: CoverageReport): string {
  const uncovered = r.items.filter((i) => i.hits === 0);
  const width = Math.max(0, ...uncovered.map((i) => i.id.length));
  return [
    `Behaviour coverage${r.merchant_id ? ` of ${r.merchant_id}` : ''}: ${r.summary.covered} of ${r.summary.total} (${r.summary.percent} %)`,
    ...(uncovered.length > 0 ? ['', 'Not yet shown (and how to show it):', ...uncovered.map((i) => `  ${i.id.padEnd(width)}  ${i.how}`)] : []),
    '',
  ].join('\n');
}

/** `coverage [--merchant ID] [--format text|json|markdown|junit] [--min N] [--ignore groups]`: exit 3 below --min. */
export function coverage(argv: string[]): Promise<never> {
  const program = verbCommand('coverage', 'Prints behaviour coverage (docs/coverage.md); exits 3 below --min.')
    .option('--merchant <id>', "one merchant's (default: every merchant added up)")
    .addOption(new Option('--format <format>', 'how to print it').choices(['text', 'json', 'markdown', 'junit']).default('text'))
    .addOption(new Option('--min <percent>', 'exit 3 when fewer behaviours are covered').argParser(percent))
    .option('--ignore <groups>', 'coverage groups left out of the report and the gate, comma-separated');
  return runVerb(argv, 1, program, async (o) => {
    const client = clientOf(o as Conn);
    const base = `${merchantPath(o.merchant as string | undefined)}/coverage`;
    const ignore = o.ignore ? `&ignore=${encodeURIComponent(String(o.ignore))}` : '';
    const report = await client.control<CoverageReport>('GET', `${base}?format=json${ignore}`);
    const format = o.format as string;
    if (format === 'json') process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (format === 'text') process.stdout.write(coverageText(report));
    else process.stdout.write(await client.controlText(`${base}?format=${format}${ignore}`));
    const min = o.min as number | undefined;
    if (min !== undefined && report.summary.percent < min) {
      process.stderr.write(`payout-sandbox coverage: ${report.summary.percent} % is below --min ${min} %\n`);
      return EXIT.coverage;
    }
    return 0;
  });
}

const SEVERITIES = ['high', 'medium', 'low'] as const;

/** The review as the control API answers it (docs/review.md): only what the verb prints and gates on. */
interface ReviewReport {
  merchant_id: string | null;
  summary: Record<(typeof SEVERITIES)[number], number> & { verdict: string; rules: { failed: number; passed: number; unproven: number } };
  findings: Array<{
    rule: string;
    severity: string;
    title: string;
    payment: string;
    occurrences: number;
    detail: string;
    advice: string;
    merchant_id?: string;
  }>;
  findings_total: number;
  rules: Array<{ rule: string; severity: string; result: string; findings: number; how_to_exercise?: string }>;
}

function reviewText(r: ReviewReport): string {
  const s = r.summary;
  const lines = [
    `Integration review${r.merchant_id ? ` of ${r.merchant_id}` : ''}: ${s.verdict} (${s.rules.failed} rules failed, ${s.rules.passed} passed, ${s.rules.unproven} not proven; findings: ${s.high} high, ${s.medium} medium, ${s.low} low)`,
  ];
  for (const f of r.findings) {
    lines.push(
      '',
      `[${f.severity}] ${f.rule}${f.merchant_id ? ` (${f.merchant_id})` : ''}: ${f.payment} (${f.occurrences}×)`,
      `  ${f.detail}`,
      `  fix: ${f.advice}`,
    );
  }
  if (r.findings.length < r.findings_total)
    lines.push('', `(${r.findings.length} of ${r.findings_total} findings shown: --format json with the control API's ?offset= pages them)`);
  const unproven = r.rules.filter((x) => x.result === 'unproven');
  if (unproven.length > 0) {
    lines.push('', 'Not proven (never arose in this run):');
    for (const x of unproven) lines.push(`  [${x.severity}] ${x.rule}: ${x.how_to_exercise ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Why a --fail-on gate fails, or null: findings at or above the severity (`unproven`: a high finding, or a high rule not proven). */
function reviewGate(r: ReviewReport, failOn: (typeof SEVERITIES)[number] | 'unproven'): string | null {
  const threshold = failOn === 'unproven' ? 'high' : failOn;
  const counted = SEVERITIES.slice(0, SEVERITIES.indexOf(threshold) + 1).reduce((n, s) => n + r.summary[s], 0);
  const unproven = failOn === 'unproven' ? r.rules.filter((x) => x.result === 'unproven' && x.severity === 'high').map((x) => x.rule) : [];
  const parts = [
    counted > 0 ? `${counted} finding${counted === 1 ? '' : 's'} of severity ${threshold} or above` : '',
    unproven.length > 0 ? `${unproven.length} high rule${unproven.length === 1 ? '' : 's'} not proven (${unproven.join(', ')})` : '',
  ].filter(Boolean);
  return parts.length === 0 ? null : parts.join('; ');
}

/** `review [--merchant ID] [--fail-on high|medium|low|unproven] [--format text|json|markdown|junit]`: exit 4 at or above --fail-on. */
export function review(argv: string[]): Promise<never> {
  const program = verbCommand('review', 'Prints the integration review (docs/review.md); exits 4 with a finding at or above --fail-on.')
    .option('--merchant <id>', "one merchant's (default: every merchant's findings)")
    .addOption(new Option('--format <format>', 'how to print it').choices(['text', 'json', 'markdown', 'junit']).default('text'))
    .addOption(
      new Option('--fail-on <severity>', 'exit 4 when a finding of this severity or above exists (unproven: or a high rule is not proven)').choices([
        ...SEVERITIES,
        'unproven',
      ]),
    );
  return runVerb(argv, 1, program, async (o) => {
    const client: SandboxClient = clientOf(o as Conn);
    const base = merchantPath(o.merchant as string | undefined) ? `${merchantPath(o.merchant as string)}/review` : '/review';
    const report = await client.control<ReviewReport>('GET', base);
    const format = o.format as string;
    if (format === 'json') process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (format === 'text') process.stdout.write(reviewText(report));
    else process.stdout.write(await client.controlText(`${base}?format=${format}`));
    const failOn = o.failOn as (typeof SEVERITIES)[number] | 'unproven' | undefined;
    if (failOn === undefined) return 0;
    const failed = reviewGate(report, failOn);
    if (failed === null) return 0;
    process.stderr.write(`payout-sandbox review: ${failed}\n`);
    return EXIT.review;
  });
}

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { toIso } from '../../time.js';
import { type Evidence, type ReviewInput, RULES, SEVERITIES, type Severity } from './rules.js';

export interface Finding {
  rule: string;
  severity: Severity;
  title: string;
  detail: string;
  advice: string;
  evidence: Evidence[];
  at: string;
  /** Whose integration it is (the all-merchants review). */
  merchant_id?: string;
}

export interface ReviewReport {
  merchant_id: string | null;
  summary: Record<Severity, number>;
  findings: Finding[];
  rules: Array<{ rule: string; severity: Severity; title: string }>;
}

export const RULE_LIST = RULES.map(({ rule, severity, title }) => ({ rule, severity, title }));

/** One merchant's findings, rule by rule. */
export function findingsOf(input: ReviewInput, merchantId?: string): Finding[] {
  return RULES.flatMap((r) =>
    r.check(input).map((h) => ({
      rule: r.rule,
      severity: r.severity,
      title: r.title,
      detail: h.detail,
      advice: r.advice,
      evidence: h.evidence,
      at: toIso(h.at),
      ...(merchantId === undefined ? {} : { merchant_id: merchantId }),
    })),
  );
}

export function reviewReport(merchantId: string | null, findings: Finding[]): ReviewReport {
  const summary = { high: 0, medium: 0, low: 0 };
  for (const f of findings) summary[f.severity] += 1;
  return { merchant_id: merchantId, summary, findings, rules: RULE_LIST };
}

const RANK: Record<Severity, number> = { high: 0, medium: 1, low: 2 };

/** The failure of a --review-fail-on gate: the findings at or above the severity, or null when there are none. */
export function reviewShortfall(r: ReviewReport, failOn: Severity | null): string | null {
  if (failOn === null) return null;
  const over = r.findings.filter((f) => RANK[f.severity] <= RANK[failOn]);
  if (over.length === 0) return null;
  const rules = [...new Set(over.map((f) => f.rule))].join(', ');
  return `integration review: ${over.length} finding${over.length > 1 ? 's' : ''} of severity ${failOn} or above (${rules}); see the review report`;
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const evidenceText = (e: Evidence[]) => e.map((x) => `${x.kind} \`${x.id}\``).join(', ');

/** A Markdown report, fit for a CI job summary. */
export function reviewMarkdown(r: ReviewReport): string {
  const head = `### Integration review${r.merchant_id ? ` — ${r.merchant_id}` : ''}: ${r.summary.high} high, ${r.summary.medium} medium, ${r.summary.low} low\n\n`;
  if (r.findings.length === 0) return `${head}No finding: every rule passed.\n`;
  const rows = r.findings.map(
    (f) =>
      `| ${f.severity} | \`${f.rule}\`${f.merchant_id ? ` (${f.merchant_id})` : ''} | ${mdCell(f.detail)} | ${mdCell(f.advice)} | ${mdCell(evidenceText(f.evidence))} |`,
  );
  return `${head}| severity | rule | what happened | what a correct client does | evidence |\n|---|---|---|---|---|\n${rows.join('\n')}\n`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: one test case per rule; each of its findings a `<failure>` naming the evidence. */
export function reviewJunit(r: ReviewReport): string {
  const failing = new Set(r.findings.map((f) => f.rule));
  const cases = r.rules.map((rule) => {
    const open = `    <testcase classname="payout-sandbox.review.${rule.severity}" name="${xml(rule.rule)}: ${xml(rule.title)}">`;
    const failures = r.findings
      .filter((f) => f.rule === rule.rule)
      .map((f) => `<failure message="${xml(f.detail)}" type="${f.severity}">${xml(`${f.advice}\nEvidence: ${evidenceText(f.evidence)}`)}</failure>`);
    return `${open}${failures.join('')}</testcase>`;
  });
  const counts = `tests="${r.rules.length}" failures="${failing.size}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="payout-sandbox integration review" ${counts}>`,
    `  <testsuite name="integration review${r.merchant_id ? ` ${xml(r.merchant_id)}` : ''}" ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes the review to `file`: JUnit for .xml, Markdown for .md, JSON otherwise. */
export async function writeReviewReport(file: string, r: ReviewReport): Promise<void> {
  const text = /\.xml$/i.test(file) ? reviewJunit(r) : /\.md$/i.test(file) ? reviewMarkdown(r) : `${JSON.stringify(r, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

export { SEVERITIES, type Severity };

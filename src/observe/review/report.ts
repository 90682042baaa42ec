import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { toIso } from '../../time.js';
import { Derived, type Evidence, type Occurrence, type ReviewInput, RULES, type Rule, SEVERITIES, type Severity } from './rules.js';

/**
 * The review's findings, grouped and bounded, and its verdict: one place above the rules (which
 * stay pure), so every report (JSON, Markdown, JUnit, the dashboard, the gate) reads the same.
 */

/** Evidence ids a finding lists at most (the first occurrence's, the last's, then others). */
export const MAX_EVIDENCE = 20;
/** Findings a JSON review answers by default, and at most (`?limit=`). */
export const FINDINGS_PAGE = { default: 1000, max: 10_000 };

export type RuleResult = 'failed' | 'passed' | 'unproven';
export type Verdict = 'ready' | 'not-ready' | 'unproven';

export interface Finding {
  rule: string;
  severity: Severity;
  title: string;
  /** What it is about: a payment, a kind of delivery, an operation. */
  payment: string;
  /** How many times it happened for this payment (or subject). */
  occurrences: number;
  /** The first occurrence, and (when there were more) the last. */
  detail: string;
  advice: string;
  evidence: Evidence[];
  /** Evidence left out past MAX_EVIDENCE. */
  more_evidence: number;
  /** When the first and the last occurrence happened. */
  first_at: string;
  at: string;
  /** Whose integration it is (the all-merchants review). */
  merchant_id?: string;
}

export interface RuleOutcome {
  rule: string;
  severity: Severity;
  title: string;
  result: RuleResult;
  findings: number;
  occurrences: number;
  /** For a rule left unproven: how to make its situation arise. */
  how_to_exercise?: string;
}

export interface ReviewReport {
  merchant_id: string | null;
  summary: Record<Severity, number> & { verdict: Verdict; rules: Record<RuleResult, number> };
  findings: Finding[];
  /** All the findings, when `findings` is a page of them. */
  findings_total: number;
  rules: RuleOutcome[];
  /** The all-merchants review: each merchant judged (those that made a request), its verdict and rule outcomes. */
  merchants?: MerchantOutcome[];
}

export interface MerchantOutcome {
  merchant_id: string;
  verdict: Verdict;
  rules: RuleOutcome[];
}

/** One merchant's judgement: its findings (all of them) and each rule's outcome. */
export interface Judgement {
  findings: Finding[];
  rules: RuleOutcome[];
}

/** The evidence of a group: the first occurrence's, the last's, then the others', without repeats, at most MAX_EVIDENCE. */
function evidenceOf(list: Occurrence[]): { evidence: Evidence[]; more: number } {
  const seen = new Set<string>();
  const all: Evidence[] = [];
  const add = (e: Evidence) => {
    const key = keyOf(e);
    if (seen.has(key)) return;
    seen.add(key);
    all.push(e);
  };
  const first = list[0] as Occurrence;
  const last = list[list.length - 1] as Occurrence;
  for (const e of first.evidence) add(e);
  for (const e of last.evidence) add(e);
  for (const o of list) {
    if (all.length > MAX_EVIDENCE) break;
    for (const e of o.evidence) add(e);
  }
  return { evidence: all.slice(0, MAX_EVIDENCE), more: Math.max(0, all.length - MAX_EVIDENCE) + uncounted(list, seen) };
}

/** Evidence of occurrences never looked at (past the bound): counted without building it. */
function uncounted(list: Occurrence[], seen: Set<string>): number {
  if (seen.size <= MAX_EVIDENCE) return 0;
  let n = 0;
  const counted = new Set(seen);
  for (const o of list) {
    for (const e of o.evidence) {
      const key = keyOf(e);
      if (counted.has(key)) continue;
      counted.add(key);
      n += 1;
    }
  }
  return n;
}

/** What makes two pieces of evidence the same: a delivery once, whichever of its attempts. */
const keyOf = (e: Evidence) => `${e.kind}\u0000${e.id}\u0000${e.outbox_id ?? ''}`;

/** Occurrences of one rule grouped by subject (in the order each subject first happened), as findings. */
function group(rule: Rule, occurrences: Occurrence[], merchantId: string | undefined): Finding[] {
  const bySubject = new Map<string, Occurrence[]>();
  for (const o of occurrences) {
    const list = bySubject.get(o.subject);
    if (list) list.push(o);
    else bySubject.set(o.subject, [o]);
  }
  return [...bySubject.values()].map((list) => {
    const first = list[0] as Occurrence;
    const last = list[list.length - 1] as Occurrence;
    const { evidence, more } = evidenceOf(list);
    const detail = list.length === 1 ? first.detail : `${first.detail} It happened ${list.length} times for ${first.subject}; the last: ${last.detail}`;
    return {
      rule: rule.rule,
      severity: rule.severity,
      title: rule.title,
      payment: first.subject,
      occurrences: list.length,
      detail,
      advice: rule.advice,
      evidence,
      more_evidence: more,
      first_at: toIso(first.at),
      at: toIso(last.at),
      ...(merchantId === undefined ? {} : { merchant_id: merchantId }),
    };
  });
}

/** One merchant's judgement: every rule run over its input, its findings grouped by subject. */
export function judge(input: ReviewInput, merchantId?: string): Judgement {
  const d = new Derived(input);
  const findings: Finding[] = [];
  const rules = RULES.map((r): RuleOutcome => {
    const occurrences = r.check(d);
    const mine = occurrences.length === 0 ? [] : group(r, occurrences, merchantId);
    findings.push(...mine);
    const result: RuleResult = mine.length > 0 ? 'failed' : r.arose(d) ? 'passed' : 'unproven';
    const outcome: RuleOutcome = { rule: r.rule, severity: r.severity, title: r.title, result, findings: mine.length, occurrences: occurrences.length };
    if (result === 'unproven') outcome.how_to_exercise = r.exercise;
    return outcome;
  });
  return { findings, rules };
}

const WORST: Record<RuleResult, number> = { failed: 0, passed: 1, unproven: 2 };

/** Several merchants' outcomes of each rule as one: the worst result, the counts added up. */
function combine(all: RuleOutcome[][]): RuleOutcome[] {
  return RULES.map((r, i) => {
    const each = all.map((rules) => rules[i] as RuleOutcome);
    const result = each.reduce<RuleResult>((w, o) => (WORST[o.result] < WORST[w] ? o.result : w), 'unproven');
    const outcome: RuleOutcome = {
      rule: r.rule,
      severity: r.severity,
      title: r.title,
      result,
      findings: each.reduce((n, o) => n + o.findings, 0),
      occurrences: each.reduce((n, o) => n + o.occurrences, 0),
    };
    if (result === 'unproven') outcome.how_to_exercise = r.exercise;
    return outcome;
  });
}

/** The verdict of a set of rule outcomes: not-ready on any failure, unproven when a high rule is, else ready. */
export function verdictOf(rules: RuleOutcome[]): Verdict {
  if (rules.some((r) => r.result === 'failed')) return 'not-ready';
  if (rules.some((r) => r.result === 'unproven' && r.severity === 'high')) return 'unproven';
  return 'ready';
}

export interface Page {
  limit?: number;
  offset?: number;
}

/**
 * A review report of one merchant's judgement, or (merchantId null) several merchants' together:
 * `judgements` by merchant id. `page` cuts the findings listed (the summary counts them all).
 */
export function reviewReport(merchantId: string | null, judgements: Map<string, Judgement>, page: Page = {}): ReviewReport {
  const all = [...judgements.values()];
  const findings = all.flatMap((j) => j.findings);
  const rules = all.length === 1 && merchantId !== null ? (all[0] as Judgement).rules : combine(all.map((j) => j.rules));
  const summary = { high: 0, medium: 0, low: 0, verdict: verdictOf(rules), rules: { failed: 0, passed: 0, unproven: 0 } };
  for (const f of findings) summary[f.severity] += 1;
  for (const r of rules) summary.rules[r.result] += 1;
  const offset = page.offset ?? 0;
  const limit = page.limit ?? FINDINGS_PAGE.default;
  const report: ReviewReport = {
    merchant_id: merchantId,
    summary,
    findings: findings.slice(offset, offset + limit),
    findings_total: findings.length,
    rules,
  };
  if (merchantId === null) report.merchants = [...judgements].map(([id, j]) => ({ merchant_id: id, verdict: verdictOf(j.rules), rules: j.rules }));
  return report;
}

export const RULE_LIST = RULES.map(({ rule, severity, title }) => ({ rule, severity, title }));

const RANK: Record<Severity, number> = { high: 0, medium: 1, low: 2 };

export type FailOn = Severity | 'unproven';

/**
 * The failure of a --review-fail-on gate, or null when it holds: findings at or above the
 * severity (`unproven`: a high finding, or a high rule left unproven).
 */
export function reviewShortfall(r: ReviewReport, failOn: FailOn | null): string | null {
  if (failOn === null) return null;
  const threshold: Severity = failOn === 'unproven' ? 'high' : failOn;
  const over = r.rules.filter((x) => x.result === 'failed' && RANK[x.severity] <= RANK[threshold]);
  const unproven = failOn === 'unproven' ? r.rules.filter((x) => x.result === 'unproven' && x.severity === 'high') : [];
  const parts: string[] = [];
  if (over.length > 0) {
    const n = over.reduce((s, x) => s + x.findings, 0);
    parts.push(`${n} finding${n > 1 ? 's' : ''} of severity ${threshold} or above (${over.map((x) => x.rule).join(', ')})`);
  }
  if (unproven.length > 0) parts.push(`${unproven.length} high rule${unproven.length > 1 ? 's' : ''} not proven (${unproven.map((x) => x.rule).join(', ')})`);
  return parts.length === 0 ? null : `integration review: ${parts.join('; ')}; see the review report`;
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const evidenceMd = (f: Finding) =>
  f.evidence.map((e) => (e.url ? `[${e.kind} \`${e.id}\`](${e.url})` : `${e.kind} \`${e.id}\``)).join(', ') +
  (f.more_evidence > 0 ? ` and ${f.more_evidence} more` : '');

/** A Markdown report, fit for a CI job summary: the verdict, the findings, what was not proven and how to prove it. */
export function reviewMarkdown(r: ReviewReport): string {
  const { summary: s } = r;
  const lines = [
    `### Integration review${r.merchant_id ? ` — ${r.merchant_id}` : ''}: **${s.verdict}**`,
    '',
    `${s.rules.failed} rule${s.rules.failed === 1 ? '' : 's'} failed, ${s.rules.passed} passed, ${s.rules.unproven} not proven; findings: ${s.high} high, ${s.medium} medium, ${s.low} low.`,
    '',
  ];
  if (r.findings_total === 0) lines.push('No finding.', '');
  else {
    lines.push('| severity | rule | payment | times | what happened | what a correct client does | evidence |', '|---|---|---|---|---|---|---|');
    for (const f of r.findings) {
      lines.push(
        `| ${f.severity} | \`${f.rule}\`${f.merchant_id ? ` (${f.merchant_id})` : ''} | ${mdCell(f.payment)} | ${f.occurrences} | ${mdCell(f.detail)} | ${mdCell(f.advice)} | ${mdCell(evidenceMd(f))} |`,
      );
    }
    if (r.findings.length < r.findings_total) lines.push('', `(${r.findings.length} of ${r.findings_total} findings shown.)`);
    lines.push('');
  }
  const unproven = r.rules.filter((x) => x.result === 'unproven');
  if (unproven.length > 0) {
    lines.push('**Not proven** (the situation never arose in this run):', '', '| severity | rule | how to exercise it |', '|---|---|---|');
    for (const x of unproven) lines.push(`| ${x.severity} | \`${x.rule}\` | ${mdCell(x.how_to_exercise ?? '')} |`);
    lines.push('');
  }
  const passed = r.rules.filter((x) => x.result === 'passed').map((x) => `\`${x.rule}\``);
  if (passed.length > 0) lines.push(`**Passed**: ${passed.join(', ')}.`, '');
  return `${lines.join('\n')}`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const evidenceText = (e: Evidence[]) => e.map((x) => `${x.kind} ${x.id}`).join(', ');

/**
 * JUnit XML: one test case per merchant and rule. A failed rule has one `<failure>` (its message:
 * the merchant, the count, the first finding; its body: every finding), an unproven one is
 * `<skipped>` with how to exercise it; the totals count those test cases.
 */
export function reviewJunit(r: ReviewReport): string {
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  const each = r.merchants ?? (r.merchant_id === null ? [] : [{ merchant_id: r.merchant_id, rules: r.rules }]);
  const suites = each.map(({ merchant_id: merchant, rules }) => {
    const cases = rules.map((rule) => {
      tests += 1;
      const open = `    <testcase classname="payout-sandbox.review.${xml(merchant)}" name="${xml(rule.rule)} (${rule.severity}): ${xml(rule.title)}">`;
      if (rule.result === 'unproven') {
        skipped += 1;
        return `${open}<skipped message="${xml(`not proven: ${rule.how_to_exercise ?? ''}`)}"/></testcase>`;
      }
      if (rule.result === 'passed') return `${open}</testcase>`;
      failures += 1;
      const mine = r.findings.filter((f) => f.rule === rule.rule && (f.merchant_id === undefined || f.merchant_id === merchant));
      const first = mine[0] as Finding;
      const message = `${merchant}: ${mine.length} finding${mine.length > 1 ? 's' : ''}, ${rule.occurrences} occurrence${rule.occurrences > 1 ? 's' : ''}; first: ${first.detail}`;
      const body = mine
        .map(
          (f) =>
            `- ${f.payment} (${f.occurrences}×): ${f.detail}\n  Evidence: ${evidenceText(f.evidence)}${f.more_evidence ? ` and ${f.more_evidence} more` : ''}`,
        )
        .join('\n');
      return `${open}<failure message="${xml(message)}" type="${rule.severity}">${xml(`${rule.title}\n${body}\nWhat a correct client does: ${first.advice}`)}</failure></testcase>`;
    });
    return { merchant, cases };
  });
  const counts = (t: number, f: number, s: number) => `tests="${t}" failures="${f}" skipped="${s}"`;
  const name = `payout-sandbox integration review${r.merchant_id ? ` ${xml(r.merchant_id)}` : ''}: ${r.summary.verdict}`;
  const body = suites.flatMap(({ merchant, cases }) => {
    const f = cases.filter((c) => c.includes('<failure')).length;
    const s = cases.filter((c) => c.includes('<skipped')).length;
    return [`  <testsuite name="integration review ${xml(merchant)}" ${counts(cases.length, f, s)}>`, ...cases, '  </testsuite>'];
  });
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${name}" ${counts(tests, failures, skipped)}>`, ...body, '</testsuites>', ''].join('\n');
}

/** Writes the review to `file`: JUnit for .xml, Markdown for .md, JSON otherwise. */
export async function writeReviewReport(file: string, r: ReviewReport): Promise<void> {
  const text = /\.xml$/i.test(file) ? reviewJunit(r) : /\.md$/i.test(file) ? reviewMarkdown(r) : `${JSON.stringify(r, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

export { SEVERITIES, type Severity };

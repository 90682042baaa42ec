import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BehaviourId } from '../behaviours.js';
import type { Scenario } from '../scenario/scenario.js';
import type { Store } from '../store/store.js';
import { type CoverageGroup, catalogue } from './catalogue.js';

export interface CoverageReport {
  merchant_id: string | null;
  summary: { covered: number; total: number; percent: number };
  /** The groups left out (absent when none is). */
  ignored?: CoverageGroup[];
  items: Array<{ id: string; group: string; description: string; hits: number; how: string }>;
}

/**
 * Behaviour coverage: how often each catalogue item was shown to each merchant, kept in the state
 * (so it is written with the store, survives a restart, and goes with a reset or restore).
 */
export class Coverage {
  constructor(
    private readonly store: Store,
    private readonly scenario: () => Scenario,
  ) {}

  private counts(): Record<string, Record<string, number>> {
    return (this.store.state.coverage ??= {});
  }

  hit(merchantId: string, id: BehaviourId): void {
    const all = this.counts();
    const mine = (all[merchantId] ??= {});
    mine[id] = (mine[id] ?? 0) + 1;
    this.store.changed('coverage', merchantId);
  }

  /**
   * One merchant's report, or (null) every merchant's hits added up; the groups in `ignore` (a
   * merchant that never verifies documents, say) are left out, of the items and the total.
   */
  report(merchantId: string | null, ignore: readonly CoverageGroup[] = []): CoverageReport {
    const all = this.counts();
    const hitsOf = (id: string) => (merchantId !== null ? (all[merchantId]?.[id] ?? 0) : Object.values(all).reduce((n, m) => n + (m[id] ?? 0), 0));
    const items = catalogue(this.scenario())
      .filter((i) => !ignore.includes(i.group))
      .map((i) => ({ id: i.id, group: i.group, description: i.description, hits: hitsOf(i.id), how: i.how }));
    const covered = items.filter((i) => i.hits > 0).length;
    const percent = items.length === 0 ? 100 : Math.floor((covered * 1000) / items.length) / 10;
    return { merchant_id: merchantId, summary: { covered, total: items.length, percent }, ...(ignore.length > 0 ? { ignored: [...ignore] } : {}), items };
  }
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown table, fit for a CI job summary. */
export function coverageMarkdown(r: CoverageReport): string {
  const ignored = r.ignored ? ` (not counted: ${r.ignored.join(', ')})` : '';
  const head = `### Behaviour coverage${r.merchant_id ? ` — ${r.merchant_id}` : ''}: ${r.summary.covered} of ${r.summary.total} (${r.summary.percent} %)${ignored}\n\n`;
  const rows = r.items.map(
    (i) => `| ${i.hits > 0 ? '✅' : '❌'} | ${mdCell(i.group)} | \`${i.id}\` | ${mdCell(i.description)} | ${i.hits} | ${i.hits > 0 ? '' : mdCell(i.how)} |`,
  );
  return `${head}| | group | behaviour | description | hits | how to trigger |\n|---|---|---|---|---|---|\n${rows.join('\n')}\n`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: one test case per behaviour; an uncovered one fails (or is skipped). */
export function coverageJunit(r: CoverageReport, uncovered: 'failed' | 'skipped'): string {
  const missing = r.summary.total - r.summary.covered;
  const cases = r.items.map((i) => {
    const open = `    <testcase classname="payout-sandbox.${xml(i.group)}" name="${xml(i.id)}: ${xml(i.description)}">`;
    if (i.hits > 0) return `${open}</testcase>`;
    const body =
      uncovered === 'failed'
        ? `<failure message="not exercised">${xml(`How: ${i.how}`)}</failure>`
        : `<skipped message="${xml(`not exercised. How: ${i.how}`)}"/>`;
    return `${open}${body}</testcase>`;
  });
  const counts = uncovered === 'failed' ? `failures="${missing}" skipped="0"` : `failures="0" skipped="${missing}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="payout-sandbox behaviour coverage" tests="${r.summary.total}" ${counts}>`,
    `  <testsuite name="behaviour coverage${r.merchant_id ? ` ${xml(r.merchant_id)}` : ''}" tests="${r.summary.total}" ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes every merchant's report to `file`: JUnit for .xml (an uncovered behaviour `failed` or `skipped`), Markdown for .md, JSON otherwise. */
export async function writeCoverageReport(file: string, r: CoverageReport, uncovered: 'failed' | 'skipped' = 'failed'): Promise<void> {
  const text = /\.xml$/i.test(file) ? coverageJunit(r, uncovered) : /\.md$/i.test(file) ? coverageMarkdown(r) : `${JSON.stringify(r, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** The failure of a --coverage-min gate, or null when it holds (or there is none). */
export function coverageShortfall(r: CoverageReport, min: number | null, gate = '--coverage-min'): string | null {
  if (min === null || r.summary.percent >= min) return null;
  return `behaviour coverage ${r.summary.percent} % (${r.summary.covered} of ${r.summary.total}) is below ${gate} ${min} %`;
}

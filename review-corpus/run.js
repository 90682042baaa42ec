// `npm run review:corpus [-- --only a,b] [-- --markdown] [-- --write-docs]`: runs every client of the
// corpus and prints, per rule, true positives, false positives and misses (docs/review.md). Exits 1
// when a client failed to run, a rule flagged what it should not, or missed what it should.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { corpusMarkdown, scoreCorpus } from './harness.js';

const { values } = parseArgs({ options: { only: { type: 'string' }, markdown: { type: 'boolean' }, 'write-docs': { type: 'boolean' } } });
const only = values.only ? values.only.split(',') : null;

const result = await scoreCorpus({
  only,
  log: (r) => {
    const mark = r.error ? 'ERROR' : r.falsePositives.length + r.misses.length === 0 ? 'ok' : 'WRONG';
    const extra = [
      r.falsePositives.length ? `false positives: ${r.falsePositives.join(', ')}` : '',
      r.misses.length ? `misses: ${r.misses.join(', ')}` : '',
      r.wantsReady && r.verdict !== 'ready' ? `verdict ${r.verdict} (expected ready; unproven high: ${r.unprovenHigh.join(', ') || 'none'})` : '',
      r.error ? r.error.split('\n').slice(0, 3).join(' | ') : '',
    ].filter(Boolean);
    process.stdout.write(
      `${mark.padEnd(5)} ${r.client.padEnd(34)} ${String(r.ms).padStart(5)} ms  flagged: ${r.flagged.join(', ') || 'nothing'}${extra.length ? `  — ${extra.join('; ')}` : ''}\n`,
    );
  },
});

process.stdout.write('\nrule                                       clients  TP  FP  misses\n');
for (const r of result.rules)
  process.stdout.write(
    `${r.rule.padEnd(42)} ${String(r.clients).padStart(7)} ${String(r.tp).padStart(3)} ${String(r.fp).padStart(3)} ${String(r.misses).padStart(7)}\n`,
  );

const date = new Date().toISOString().slice(0, 10);
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const markdown = corpusMarkdown(result, { date, commit });
if (values.markdown) process.stdout.write(`\n${markdown}`);
if (values['write-docs']) {
  const file = new URL('../docs/review.md', import.meta.url);
  const doc = readFileSync(file, 'utf8');
  writeFileSync(file, doc.replace(/(<!-- corpus-table:start -->\n)[\s\S]*?(<!-- corpus-table:end -->)/, `$1${markdown}$2`));
  process.stdout.write('docs/review.md: the corpus table written\n');
}
const bad = result.runs.filter((r) => r.error || r.falsePositives.length || r.misses.length || (r.wantsReady && r.verdict !== 'ready'));
process.exit(bad.length === 0 ? 0 : 1);

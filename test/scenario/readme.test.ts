import { readFileSync } from 'node:fs';

// The magic-value table is printed twice: in the README (the doorway) and in docs/scenarios.md
// (with the rest of the scenario format). Both must be the default scenario's table.
const PAGES = ['README.md', 'docs/scenarios.md'];

function tableOf(page: string): string[][] {
  const text = readFileSync(page, 'utf8');
  const table = /<!-- magic-table:start -->([\s\S]*?)<!-- magic-table:end -->/.exec(text)?.[1] ?? '';
  return table
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| amount') && !l.startsWith('|---'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

test.each(PAGES)("the magic-value table of %s is the default scenario's table", (page) => {
  const scenario = JSON.parse(readFileSync('scenarios/default.json', 'utf8'));
  const expected = scenario.payouts.rules.map((r: { match: { amount: number }; description: string }) => [r.match.amount.toFixed(2), r.description]);
  const steps = scenario.payouts.default_timeline.map((s: { after: string; status: string }) => `${s.status} after ${s.after.replace(/(\d)([a-z])/, '$1 $2')}`);
  expected.push(['any other', `${scenario.payouts.initial_status} → ${steps.join(' → ')}`]);
  expect(tableOf(page)).toEqual(expected);
});

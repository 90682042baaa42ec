import { readFileSync } from 'node:fs';

test("the README's magic-value table is the default scenario's table", () => {
  const readme = readFileSync('README.md', 'utf8');
  const table = /<!-- magic-table:start -->([\s\S]*?)<!-- magic-table:end -->/.exec(readme)?.[1] ?? '';
  const rows = table
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| amount') && !l.startsWith('|---'))
    .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
  const scenario = JSON.parse(readFileSync('scenarios/default.json', 'utf8'));
  const expected = scenario.payouts.rules.map((r: { match: { amount: number }; description: string }) => [
    r.match.amount.toFixed(2),
    r.description,
  ]);
  const steps = scenario.payouts.default_timeline.map((s: { after: string; status: string }) => `${s.status} after ${s.after.replace(/(\d)([a-z])/, '$1 $2')}`);
  expected.push(['any other', `${scenario.payouts.initial_status} → ${steps.join(' → ')}`]);
  expect(rows).toEqual(expected);
});

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Crash safety on the real process (scripts/crash-loop.js, `npm run crash-loop` runs 20 rounds):
 * the CLI on a data file, concurrent initializes, SIGKILL mid-load, a restart on the same file
 * with no manual step; every acknowledged payout is there with its status, and the balance is the
 * opening minus the whole debits of exactly the payouts stored (nothing half-applied).
 */
const SCRIPT = fileURLToPath(new URL('../scripts/crash-loop.js', import.meta.url));

interface Round {
  round: number;
  acknowledged: number;
  sent: number;
  lost: number;
  stored: number;
  balanceOk: boolean;
  ledgerEntries: number;
}

test('SIGKILL mid-load, three rounds on one data file: no acknowledged payout lost, nothing half-applied', () => {
  const run = spawnSync(process.execPath, [SCRIPT, '--rounds', '3', '--json'], { encoding: 'utf8', timeout: 90_000 });
  expect(run.stderr).toBe('');
  const report = JSON.parse(run.stdout) as { rounds: Round[]; lost: number; bad: number };
  expect(report.rounds).toHaveLength(3);
  let acknowledged = 0;
  for (const r of report.rounds) {
    acknowledged += r.acknowledged;
    expect(r.acknowledged).toBeGreaterThan(30);
    // Some requests were cut off by the kill.
    expect(r.sent).toBeGreaterThanOrEqual(r.acknowledged);
    expect(r.lost).toBe(0);
    expect(r.balanceOk).toBe(true);
    // Every stored payout kept, across rounds; at most the cut-off ones beyond the acknowledged.
    expect(r.stored).toBeGreaterThanOrEqual(acknowledged);
    // Opening credit + payout, fee, tax per stored payout: nothing half-applied.
    expect(r.ledgerEntries).toBe(1 + 3 * r.stored);
  }
  expect(report.lost).toBe(0);
  expect(run.status).toBe(0);
}, 120_000);

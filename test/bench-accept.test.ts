import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * bench/accept-per-turn.js shows what docs/performance.md ("Why new connections wait") says of
 * this machine's Node: connections that arrive together at a busy server are accepted one per
 * turn of its event loop. If a Node release accepts them all at once, this fails and that page
 * is out of date.
 */

const SCRIPT = fileURLToPath(new URL('../bench/accept-per-turn.js', import.meta.url));

function run(...args: string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 20_000 });
}

test('five connections opened at once, each turn busy 10 ms: accepted one per turn, never two in one', () => {
  const r = run('--json', '--connections', '5', '--turn-ms', '10');
  expect(r.status).toBe(0);
  const out = JSON.parse(r.stdout) as { connections: number; turn_ms: number; gaps_ms: number[]; turns: number; libuv: string };
  expect(out).toMatchObject({ connections: 5, turn_ms: 10, libuv: process.versions.uv });
  expect(out.gaps_ms).toHaveLength(4);
  // Two accepted in one turn would leave a gap of well under a turn between them.
  for (const gap of out.gaps_ms) expect(gap).toBeGreaterThanOrEqual(9);
  expect(out.turns).toBeGreaterThanOrEqual(5);
});

test('with 4 more listening handles (src/accept.ts, as the command has 16): ten connections accepted at most five a turn, in two or three turns', () => {
  const r = run('--json', '--connections', '10', '--turn-ms', '10', '--handles', '4');
  expect(r.status).toBe(0);
  const out = JSON.parse(r.stdout) as { gaps_ms: number[]; handles: number; turns: number };
  expect(out.handles).toBe(4);
  expect(out.gaps_ms).toHaveLength(9);
  // The accepts of one turn: the runs of gaps well under a turn between the gaps of a turn or more.
  const perTurn = [1];
  for (const gap of out.gaps_ms) {
    if (gap >= 9) perTurn.push(1);
    else perTurn[perTurn.length - 1] = (perTurn.at(-1) as number) + 1;
  }
  expect(Math.max(...perTurn)).toBeLessThanOrEqual(5);
  expect(perTurn.length).toBeGreaterThanOrEqual(2);
  expect(perTurn.length).toBeLessThanOrEqual(3);
});

test('the options are checked: a bad value exits 2 with the usage; --help prints it', () => {
  for (const args of [['--connections', '0'], ['--turn-ms', 'x'], ['--handles', '65'], ['--nope']]) {
    const r = run(...args);
    expect({ args, status: r.status }).toEqual({ args, status: 2 });
    expect(r.stderr).toContain('usage: node bench/accept-per-turn.js');
  }
  const help = run('--help');
  expect([help.status, help.stdout]).toEqual([0, expect.stringContaining('usage:')]);
});

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTempDir } from './helpers.js';

/**
 * bench/young-gc.js (docs/performance.md, "V8's allocation-site pretenuring") at its smallest: one
 * round of 1 s runs against the built CLI, both ways (as the command runs, and with V8's default
 * given to node). The benchmark itself checks that each sandbox's health names the flags it set,
 * and that V8 weighed no allocation site once the command's sandbox served;
 * here, that it ran to the end and that its JSON holds what the notes are written from: collections
 * read off node's --trace-gc while initialize was measured, every figure finite. No threshold: the
 * figures belong to the machine.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = useTempDir();

const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);

test('node bench/young-gc.js --rounds 1 --seconds 1 --warm-up 1: both ways run, their collections counted, every figure finite', async () => {
  const out = join(dir(), 'young-gc.json');
  const args = ['bench/young-gc.js', '--rounds', '1', '--seconds', '1', '--warm-up', '1', '--json', out];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  // A benchmark that hangs is stopped (its own stop then ends its sandbox), and the test fails on its exit.
  const timer = setTimeout(() => child.kill('SIGTERM'), 100_000);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
  expect(output).toContain('| 1 | as the command runs |');

  const r = JSON.parse(readFileSync(out, 'utf8'));
  expect(r.command).toBe(`node ${args.join(' ')}`);
  expect(Object.keys(r.machine)).toEqual(expect.arrayContaining(['cpu_model', 'cores', 'node', 'kernel', 'commit']));
  expect(r.rounds).toHaveLength(1);
  const [round] = r.rounds;
  expect(Object.keys(round)).toEqual(['as the command runs', "V8's default (--allocation-site-pretenuring)"]);
  expect(round['as the command runs'].v8_flags).toEqual(['--no-allocation-site-pretenuring']);
  expect(round["V8's default (--allocation-site-pretenuring)"].v8_flags).toEqual([]);
  // V8's own word: with the command's flag it weighed no allocation site; with its default it did.
  expect(round['as the command runs'].pretenuring_lines).toBe(0);
  expect(round["V8's default (--allocation-site-pretenuring)"].pretenuring_lines).toBeGreaterThan(0);
  for (const run of Object.values(round) as Array<{ initialize: Record<string, number>; young: Record<string, number>; full: Record<string, number> }>) {
    expect(run.initialize.rps).toBeGreaterThan(0);
    for (const k of ['p50_ms', 'p99_ms']) expect(finite(run.initialize[k])).toBe(true);
    // Read from /proc: null where there is none.
    expect(run.initialize.cpu_ms_per_1k === null || finite(run.initialize.cpu_ms_per_1k)).toBe(true);
    // A second of initializes makes young collections; each was read off the log with its pause.
    expect(run.young.count).toBeGreaterThan(0);
    for (const k of ['total_ms', 'p90_ms', 'max_ms']) expect(finite(run.young[k])).toBe(true);
    expect(run.young.max_ms).toBeGreaterThanOrEqual(run.young.p90_ms);
    expect(finite(run.full.count)).toBe(true);
  }
}, 120_000);

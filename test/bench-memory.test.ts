import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTempDir } from './helpers.js';

/**
 * bench/memory.js (issue 37) at a small size: it runs to the end against the built CLI, both
 * stores, and its JSON has the shape the performance notes are written from, every number a
 * finite one. No memory or time threshold: the figures belong to the machine.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = useTempDir();

const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);

type Row = Record<string, unknown>;
interface StoreReport {
  merchants: { created: number; points: Row[]; per_merchant: Row };
  payouts: { steps: Row[]; per_10000: Row; first_step_per_10000: Row };
  long_run: { windows: Row[]; growth: Record<string, Row> };
  file_at_stop?: Row;
}

test('node bench/memory.js --payouts 2000 --merchants 50: a report for both stores, every figure finite', async () => {
  const out = join(dir(), 'memory.json');
  const args = ['bench/memory.js', '--payouts', '2000', '--merchants', '50', '--requests', '1000', '--settle', '100', '--json', out];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
  expect(output).toContain('1. Per merchant');
  expect(output).toContain('Bounds (defaults, from src/)');

  const r = JSON.parse(readFileSync(out, 'utf8'));
  expect(Object.keys(r.machine)).toEqual(expect.arrayContaining(['cpu_model', 'cores', 'total_memory_bytes', 'node', 'kernel', 'commit']));
  expect(r.command).toBe(`node ${args.join(' ')}`);
  expect(Object.keys(r.stores).sort()).toEqual(['file', 'memory']);
  for (const [store, s] of Object.entries<StoreReport>(r.stores)) {
    expect(s.merchants.created).toBe(50);
    expect(s.merchants.points.map((p) => p.merchants)).toEqual([20, 45, 70]);
    for (const p of [...s.merchants.points, ...s.payouts.steps, ...s.long_run.windows]) {
      for (const k of ['rss_settled', 'rss_peak', 'rss_gc', 'heap_gc'])
        expect({ store, k, ok: finite(p[k]) && (p[k] as number) > 0 }).toEqual({ store, k, ok: true });
    }
    for (const v of [...Object.values(s.merchants.per_merchant), ...Object.values(s.payouts.per_10000), ...Object.values(s.payouts.first_step_per_10000)]) {
      expect(finite(v)).toBe(true);
    }
    expect(s.payouts.steps.map((p) => p.payouts)).toEqual([200, 400, 800, 2000]);
    expect(s.long_run.windows.map((w) => w.kind)).toEqual([
      'start',
      'mixed',
      'mixed',
      'mixed',
      'reads',
      'reads',
      'reads',
      'first-status',
      'quiet-merchants',
      'reads',
      'redeliver',
      'redeliver',
    ]);
    expect(s.long_run.windows.at(-1)!.requests).toBe(9 * 100 + 2 * 50);
    expect(s.long_run.windows.every((w) => w.journal === 1000)).toBe(true);
    expect(Object.keys(s.long_run.growth).sort()).toEqual(['first-status', 'mixed', 'quiet-merchants', 'reads', 'redeliver']);
    for (const [kind, g] of Object.entries(s.long_run.growth)) {
      const key = kind === 'quiet-merchants' ? 'heap_left_beyond_merchants_per_request' : 'heap_per_10000_requests';
      expect({ kind, ok: finite(g[key]) }).toEqual({ kind, ok: true });
    }
  }
  const atStop = r.stores.file.file_at_stop;
  expect(atStop.payouts).toBe(r.stores.file.long_run.windows.at(-1).payouts);
  expect(atStop.deliveries).toBeGreaterThan(0);
  expect(atStop.delivery_attempts).toBeGreaterThanOrEqual(atStop.deliveries);
  expect(r.stores.memory.file_at_stop).toBeUndefined();
  expect(r.bounds.map((b: { name: string }) => b.name)).toEqual(
    expect.arrayContaining(['--journal-size', 'FACTS_PER_MERCHANT', '--max-deliveries-per-merchant']),
  );
}, 120_000);

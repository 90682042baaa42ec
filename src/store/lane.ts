import TinyQueue from 'tinyqueue';
import type { Clock } from '../clock.js';
import type { DueItem } from './state.js';

/** One clock's share of the queue: its items in time order, its timer, its waiters, its passes one at a time. */
export class Lane {
  heap = heapOf([]);
  timer: NodeJS.Timeout | null = null;
  waiterTimer: NodeJS.Timeout | null = null;
  readonly waiters: Array<{ deadline: number; resolve: () => void }> = [];
  running: Promise<void> = Promise.resolve();

  constructor(readonly clock: Clock) {}

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.waiterTimer) clearTimeout(this.waiterTimer);
    this.timer = this.waiterTimer = null;
  }
}

export function heapOf(items: DueItem[]): TinyQueue<DueItem> {
  return new TinyQueue<DueItem>(items, (a, b) => a.due - b.due || a.seq - b.seq);
}

/** Waits for `work`, but no longer than `ms` (real time); the work goes on either way. */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  if (ms <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

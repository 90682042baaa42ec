import TinyQueue from 'tinyqueue';
import type { Clock } from '../clock.js';
import type { DueItem } from '../store/state.js';

/** setTimeout's longest delay; a later item re-arms when this fires. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** One clock's share of the queue: its items in time order, its timer, its waiters, its passes one at a time. */
export class Lane {
  heap = heapOf([]);
  timer: NodeJS.Timeout | null = null;
  waiterTimer: NodeJS.Timeout | null = null;
  /** Responses held until this lane's clock reaches `deadline`, each for `merchantId`'s request. */
  readonly waiters: Array<{ deadline: number; resolve: () => void; merchantId: string }> = [];
  running: Promise<void> = Promise.resolve();

  /** `key`: the lane's clock, a merchant's id or SANDBOX_LANE (an item is this lane's while its merchant's clock is it). */
  constructor(
    readonly clock: Clock,
    readonly key: string,
  ) {}

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.waiterTimer) clearTimeout(this.waiterTimer);
    this.timer = this.waiterTimer = null;
  }

  /** Lets go the responses held until a time this lane's clock has reached. */
  releaseWaiters(): void {
    const now = this.clock.now();
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].deadline <= now) this.waiters.splice(i, 1)[0].resolve();
    }
  }

  /** On a real clock: a timer for the next held response's time (none once `stopped`). */
  armWaiters(stopped: boolean): void {
    if (this.clock.mode === 'manual' || stopped) return;
    if (this.waiterTimer) clearTimeout(this.waiterTimer);
    this.waiterTimer = null;
    if (this.waiters.length === 0) return;
    const next = Math.min(...this.waiters.map((w) => w.deadline));
    this.waiterTimer = setTimeout(
      () => {
        this.waiterTimer = null;
        this.releaseWaiters();
        this.armWaiters(stopped);
      },
      Math.min(this.clock.realDelayUntil(next), MAX_TIMER_MS),
    );
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

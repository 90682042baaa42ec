import TinyQueue from 'tinyqueue';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { DueItem, DueKind, State } from './store/state.js';

/** A handler may start async work (a webhook attempt) and return its promise. */
type Handler = (item: DueItem) => void | Promise<void>;

/** setTimeout's longest delay; a later item re-arms when this fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How long (real time, in all) one manual advance waits for the async work its items start
 * (webhook attempts) before moving on without it. Receivers that answer within it keep exact
 * ordering (a retry falls due within the same advance); a slow or hanging one is left to finish
 * in the background, and the advance answers without waiting for its time-out.
 */
export const ADVANCE_SETTLE_MS = 250;

/**
 * The one queue of everything the sandbox does later (settlement steps, beneficiary activation,
 * checkout outcomes, webhook attempts), keyed on the sandbox clock. Items live in the state, so
 * they survive a restart; an in-memory heap orders them. Handlers are synchronous and may
 * schedule further items, which run in the same pass when they fall due inside it.
 */
export class Scheduler {
  private heap = Scheduler.heapOf([]);
  private readonly handlers = new Map<DueKind, Handler>();
  private readonly waiters: Array<{ deadline: number; resolve: () => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private waiterTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly clock: Clock,
    private readonly getState: () => State,
    private readonly persist: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  private static heapOf(items: DueItem[]): TinyQueue<DueItem> {
    return new TinyQueue<DueItem>(items, (a, b) => a.due - b.due || a.seq - b.seq);
  }

  on(kind: DueKind, handler: Handler): void {
    this.handlers.set(kind, handler);
  }

  /** Rebuilds the heap from the stored items (at start, and after the state was replaced). */
  reload(): void {
    this.heap = Scheduler.heapOf(Object.values(this.getState().scheduler.items));
    this.arm();
  }

  /** Adds a due item (the caller persists, with the change that scheduled it). */
  schedule(kind: DueKind, due: number, payload: Record<string, unknown>): DueItem {
    const s = this.getState().scheduler;
    s.seq += 1;
    const item: DueItem = { id: `due_${s.seq}`, seq: s.seq, due, kind, payload };
    s.items[item.id] = item;
    this.heap.push(item);
    this.arm();
    return item;
  }

  cancel(id: string | null | undefined): void {
    if (id) delete this.getState().scheduler.items[id];
  }

  pending(): DueItem[] {
    return Object.values(this.getState().scheduler.items).sort((a, b) => a.due - b.due || a.seq - b.seq);
  }

  /** Manual clock: moves time forward by `ms`, running every item that falls due, in time order. */
  advance(ms: number): Promise<void> {
    if (this.clock.mode !== 'manual') return Promise.reject(new Error('only the manual clock can be advanced'));
    if (!(ms >= 0)) return Promise.reject(new Error('advance needs a duration of 0 or more'));
    return this.exclusive(async () => {
      const target = this.clock.now() + ms;
      await this.runUntil(target, performance.now() + ADVANCE_SETTLE_MS);
      this.clock.set(target);
      this.getState().clock.now = target;
      this.releaseWaiters();
      await this.persist();
    });
  }

  /** Runs whatever is due now (at start-up, and when the real clock's timer fires). */
  runDue(): Promise<void> {
    return this.exclusive(async () => {
      const n = await this.runUntil(this.clock.now(), null);
      if (n > 0) await this.persist();
      this.arm();
    });
  }

  /** Resolves when the sandbox clock reaches now + ms (not stored: for a response held open). */
  wait(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const deadline = this.clock.now() + ms;
    return new Promise((resolve) => {
      this.waiters.push({ deadline, resolve });
      this.armWaiters();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.waiterTimer) clearTimeout(this.waiterTimer);
    this.timer = this.waiterTimer = null;
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  /** One pass at a time: an advance and a timer never run items side by side. */
  private exclusive(fn: () => Promise<void>): Promise<void> {
    const next = this.running.then(fn, fn);
    this.running = next.catch(() => undefined);
    return next;
  }

  /**
   * Runs the items due up to `target`, one instant at a time. With a `settleBy` deadline (real
   * time; a manual advance), the async work started at an instant may finish before time moves
   * on, until the deadline passes, so what it schedules (a retry) runs in order within the same
   * advance; past the deadline, and on the real clock, it runs on its own.
   */
  private async runUntil(target: number, settleBy: number | null): Promise<number> {
    const items = this.getState().scheduler.items;
    let n = 0;
    for (let top = this.heap.peek(); top && top.due <= target; top = this.heap.peek()) {
      const instant = top.due;
      const started: Promise<void>[] = [];
      for (; top && top.due === instant; top = this.heap.peek()) {
        this.heap.pop();
        if (items[top.id] !== top) continue; // cancelled, or replaced by a reload
        delete items[top.id];
        if (this.clock.mode === 'manual') this.clock.set(top.due);
        const item = top;
        const handler = this.handlers.get(item.kind);
        try {
          const result = handler ? handler(item) : this.logger.warn({ item }, 'no handler for a due item');
          if (result instanceof Promise) {
            started.push(result.catch((err: unknown) => this.logger.error({ err, item }, 'a due item failed')));
          }
        } catch (err) {
          this.logger.error({ err, item }, 'a due item failed');
        }
        n += 1;
      }
      if (settleBy !== null && started.length > 0) await settleWithin(Promise.all(started), settleBy - performance.now());
    }
    return n;
  }

  private arm(): void {
    if (this.clock.mode === 'manual' || this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const top = this.heap.peek();
    if (!top) return;
    const delay = Math.min(this.clock.realDelayUntil(top.due), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runDue().catch((err: unknown) => this.logger.error({ err }, 'scheduler pass failed'));
    }, delay);
    this.timer.unref();
  }

  private releaseWaiters(): void {
    const now = this.clock.now();
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].deadline <= now) this.waiters.splice(i, 1)[0].resolve();
    }
  }

  private armWaiters(): void {
    if (this.clock.mode === 'manual' || this.stopped) return;
    if (this.waiterTimer) clearTimeout(this.waiterTimer);
    this.waiterTimer = null;
    if (this.waiters.length === 0) return;
    const next = Math.min(...this.waiters.map((w) => w.deadline));
    this.waiterTimer = setTimeout(() => {
      this.waiterTimer = null;
      this.releaseWaiters();
      this.armWaiters();
    }, Math.min(this.clock.realDelayUntil(next), MAX_TIMER_MS));
  }
}

/** Waits for `work`, but no longer than `ms` (real time); the work goes on either way. */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  if (ms <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

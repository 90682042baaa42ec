import type { Logger } from 'pino';
import type { DueItem, DueKind, State } from '../store/state.js';
import { type Store, StoreWriteError } from '../store/store.js';
import { type Clocks, SANDBOX_LANE } from './clocks.js';
import { heapOf, Lane, MAX_TIMER_MS, settleWithin } from './lane.js';

/** A handler may start async work (a webhook attempt) and return its promise. */
type Handler = (item: DueItem) => void | Promise<void>;

/**
 * How long (real time, in all) one manual advance waits for the async work its items start
 * (webhook attempts) before moving on without it. Receivers that answer within it keep exact
 * ordering (a retry falls due within the same advance); a slow or hanging one is left to finish
 * in the background, and the advance answers without waiting for its time-out.
 */
export const ADVANCE_SETTLE_MS = 250;

/** Entries of items no longer its own the sandbox clock's lane may hold before it is built again from what is due (see relane). */
const REBUILD_AFTER = 4096;

/**
 * The one queue of everything the sandbox does later (settlement steps, beneficiary activation,
 * checkout outcomes, webhook attempts). Items live in the state, so they survive a restart; each
 * runs on its merchant's clock: one lane (heap, timer, passes) per clock, the merchants that
 * follow the sandbox clock sharing its lane, so advancing one clock runs only what it governs.
 * Handlers are synchronous and may schedule further items, which run in the same pass when they
 * fall due inside it.
 */
export class Scheduler {
  private lanes = new Map<string, Lane>();
  private readonly handlers = new Map<DueKind, Handler>();
  private stopped = false;
  /** Entries the sandbox clock's lane holds of items that are no longer its own (replaced, or their merchant's clock moved), since it was last built whole. */
  private sandboxStale = 0;
  /** Told of each advance of a manual clock as it starts (the journal keeps them for traces): whose (null: the sandbox clock), from and to. */
  onAdvance: ((merchantId: string | null, from: number, to: number) => void) | null = null;

  constructor(
    private readonly clocks: Clocks,
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  private getState(): State {
    return this.store.state;
  }

  private persist(): Promise<void> {
    return this.store.persist();
  }

  on(kind: DueKind, handler: Handler): void {
    this.handlers.set(kind, handler);
  }

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = new Lane(this.clocks.of(key || null), key)));
    return lane;
  }

  /** Rebuilds the lanes from the stored items and clocks (at start, and after records were replaced). */
  reload(): void {
    const waiting = [...this.lanes.values()].flatMap((l) => l.waiters.splice(0));
    for (const l of this.lanes.values()) l.clear();
    this.lanes = new Map();
    this.sandboxStale = 0;
    for (const item of Object.values(this.getState().scheduler.items)) this.lane(this.clocks.laneOf(item.merchant_id)).heap.push(item);
    // Each held response waits on its merchant's clock as it is now.
    for (const w of waiting) this.lane(this.clocks.laneOf(w.merchantId)).waiters.push(w);
    for (const lane of this.lanes.values()) {
      this.arm(lane);
      lane.releaseWaiters();
      lane.armWaiters(this.stopped);
    }
  }

  /**
   * One merchant's clock or items changed (it got a clock of its own, its records were put back):
   * its lane is built again on its clock, and its items join the sandbox clock's lane if it follows
   * that clock and they are new there (`replaced`: its reset or a restore put new items in place of
   * all of its own; or it had a lane of its own until now). Every other lane, and an advance under
   * way on one, runs on undisturbed. The sandbox clock's lane is not read again: the entries it
   * holds of items that are no longer its own (replaced, or their merchant now has a clock of its
   * own) are dropped as they come up (see `current`), and past REBUILD_AFTER of them it is built
   * again from what is due. So this costs what the merchant holds, not what the sandbox holds.
   */
  relane(merchantId: string, { replaced = false, left = 0 } = {}): void {
    const old = this.lanes.get(merchantId);
    old?.clear();
    this.lanes.delete(merchantId);
    const sandbox = this.lane(SANDBOX_LANE);
    const onSandbox = this.clocks.laneOf(merchantId) === SANDBOX_LANE;
    const items = this.itemsOf(merchantId);
    const joining = onSandbox && (replaced || old !== undefined) ? items : [];
    // Left behind in the sandbox clock's lane: the items it held of the merchant when they were
    // replaced (`left`, counted by the caller before: sandboxEntriesOf), or when the merchant has
    // just left that clock for one of its own.
    this.sandboxStale += replaced ? left : !onSandbox && old === undefined ? items.length : 0;
    if (this.sandboxStale <= REBUILD_AFTER) {
      for (const item of joining) sandbox.heap.push(item);
    } else {
      this.sandboxStale = 0;
      const all = Object.values(this.getState().scheduler.items);
      sandbox.heap = heapOf(all.filter((i) => this.clocks.laneOf(i.merchant_id) === SANDBOX_LANE));
    }
    const mine = this.lane(this.clocks.laneOf(merchantId));
    if (mine !== sandbox) mine.heap = heapOf(items);
    if (old) mine.waiters.push(...old.waiters.splice(0));
    // Its responses held on the sandbox clock follow it to a clock of its own (they wait on its time now).
    if (mine !== sandbox) {
      for (let i = sandbox.waiters.length - 1; i >= 0; i--) {
        if (sandbox.waiters[i].merchantId === merchantId) mine.waiters.push(...sandbox.waiters.splice(i, 1));
      }
    }
    for (const lane of new Set([sandbox, mine])) {
      this.arm(lane);
      lane.releaseWaiters();
      lane.armWaiters(this.stopped);
    }
  }

  /** How many entries of the merchant's items the sandbox clock's lane holds (none when it has a clock of its own): what a replacement of them leaves behind there. */
  sandboxEntriesOf(merchantId: string): number {
    return this.clocks.laneOf(merchantId) === SANDBOX_LANE ? this.itemsOf(merchantId).length : 0;
  }

  /** Whether `item` is still to run on `lane`: neither run, cancelled nor replaced, and its merchant's clock is still the lane's. */
  private current(lane: Lane, item: DueItem): boolean {
    return this.getState().scheduler.items[item.id] === item && this.clocks.laneOf(item.merchant_id) === lane.key;
  }

  /** The lane's next item to run, once the entries on top that are no longer its own (see `current`) are dropped. */
  private topOf(lane: Lane): DueItem | undefined {
    let top = lane.heap.peek();
    for (; top && !this.current(lane, top); top = lane.heap.peek()) lane.heap.pop();
    return top;
  }

  /** Adds a due item on the clock of `merchantId` (the caller persists, with the change that scheduled it). */
  schedule(kind: DueKind, due: number, payload: Record<string, unknown>, merchantId: string): DueItem {
    const s = this.getState().scheduler;
    s.seq += 1;
    const item: DueItem = { id: `due_${s.seq}`, seq: s.seq, due, kind, merchant_id: merchantId, payload };
    s.items[item.id] = item;
    this.store.changed('due_items', item.id);
    const lane = this.lane(this.clocks.laneOf(merchantId));
    lane.heap.push(item);
    this.arm(lane);
    return item;
  }

  cancel(id: string | null | undefined): void {
    // Not a due item (already run, or a step that waits for status checks): nothing to cancel.
    const items = this.getState().scheduler.items;
    if (!id || !Object.hasOwn(items, id)) return;
    const owner = items[id]?.merchant_id;
    delete items[id];
    this.store.changed('due_items', id, owner);
  }

  /** When the next item on the clock of `merchantId` (null: the sandbox clock) is due, or null when none is. */
  nextDue(merchantId: string | null): number | null {
    const key = this.clocks.laneOf(merchantId);
    // A merchant on the sandbox clock shares its lane: its own next item, not the lane's (another merchant's).
    if (merchantId !== null && key === SANDBOX_LANE) {
      let due: number | null = null;
      for (const i of this.itemsOf(merchantId)) if (due === null || i.due < due) due = i.due;
      return due;
    }
    // Cancelled items stay in the heap until they come up; topOf drops those on top.
    return this.topOf(this.lane(key))?.due ?? null;
  }

  /** Everything due later, in time order; only one merchant's when given. */
  pending(merchantId?: string): DueItem[] {
    return (merchantId === undefined ? Object.values(this.getState().scheduler.items) : this.itemsOf(merchantId)).sort(
      (a, b) => a.due - b.due || a.seq - b.seq,
    );
  }

  /** One merchant's due items, through the store's index of owners (what it holds, not every merchant's). */
  private itemsOf(merchantId: string): DueItem[] {
    return this.store.owners.recordsOf<DueItem>(this.getState(), merchantId, 'due_items');
  }

  /**
   * A manual clock (the sandbox's, or a merchant's own): moves it forward by `ms`, running every
   * item it governs that falls due, in time order.
   */
  advance(ms: number, merchantId: string | null = null): Promise<void> {
    const key = this.clocks.laneOf(merchantId);
    const lane = this.lane(key);
    if (lane.clock.mode !== 'manual') return Promise.reject(new Error('only a manual clock can be advanced'));
    if (!(ms >= 0)) return Promise.reject(new Error('advance needs a duration of 0 or more'));
    return this.exclusive(lane, async () => {
      const target = lane.clock.now() + ms;
      this.onAdvance?.(key === SANDBOX_LANE ? null : key, lane.clock.now(), target);
      await this.runUntil(lane, target, performance.now() + ADVANCE_SETTLE_MS);
      // The store could not write what ran: the clock stays at the last item run (and is kept
      // there), and what is left runs when the store recovers (or at the next advance).
      if (this.store.failure !== null) {
        this.recordClock(key, lane);
        throw this.store.failure;
      }
      lane.clock.set(target);
      this.recordClock(key, lane);
      lane.releaseWaiters();
      // With the attempts of the last instant (recorded, their write not waited for: the outbox).
      // If this write fails the advance is answered the store's error, and what it did (its items,
      // the clock's new time) is written once the store recovers (docs/operations.md).
      await this.persist();
    });
  }

  /** Keeps a manual clock's time in the state (the sandbox clock's, or a merchant's own). */
  private recordClock(key: string, lane: Lane): void {
    if (key === SANDBOX_LANE) this.getState().clock.now = lane.clock.now();
    else this.clocks.record(key);
  }

  /** Runs whatever is due now on every clock (at start-up, after a forced change, when a timer fires). */
  async runDue(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => this.runLane(lane)));
  }

  /**
   * One pass over what is due on a lane. While the store cannot write, nothing runs (what ran
   * would not be durable); the store's recovery runs the lanes again (`runDue`). The lane's timer
   * is armed again however the pass ends.
   */
  private runLane(lane: Lane): Promise<void> {
    return this.exclusive(lane, async () => {
      try {
        if (this.store.failure !== null || this.stopped) return;
        const n = await this.runUntil(lane, lane.clock.now(), null);
        if (n > 0) await this.persist();
      } finally {
        this.arm(lane);
      }
    });
  }

  /** Resolves when the merchant's clock reaches its now + ms (not stored: for a response held open). */
  wait(ms: number, merchantId: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const lane = this.lane(this.clocks.laneOf(merchantId));
    const deadline = lane.clock.now() + ms;
    return new Promise((resolve) => {
      lane.waiters.push({ deadline, resolve, merchantId });
      lane.armWaiters(this.stopped);
    });
  }

  stop(): void {
    this.stopped = true;
    for (const lane of this.lanes.values()) {
      lane.clear();
      for (const w of lane.waiters.splice(0)) w.resolve();
    }
  }

  /** One pass at a time per clock: an advance and a timer never run a lane's items side by side. */
  private exclusive(lane: Lane, fn: () => Promise<void>): Promise<void> {
    const next = lane.running.then(fn, fn);
    lane.running = next.catch(() => undefined);
    return next;
  }

  /**
   * Runs the lane's items due up to `target`, one instant at a time. With a `settleBy` deadline
   * (real time; a manual advance), the async work started at an instant may finish before time
   * moves on, until the deadline passes, so what it schedules (a retry) runs in order within the
   * same advance; past the deadline, and on a real clock, it runs on its own.
   */
  private async runUntil(lane: Lane, target: number, settleBy: number | null): Promise<number> {
    const items = this.getState().scheduler.items;
    let n = 0;
    // Nothing more runs once the store cannot write: it would not be durable.
    for (let top = lane.heap.peek(); top && top.due <= target && this.store.failure === null; top = lane.heap.peek()) {
      const instant = top.due;
      const started: Promise<void>[] = [];
      for (; top && top.due === instant; top = lane.heap.peek()) {
        lane.heap.pop();
        if (!this.current(lane, top)) continue; // cancelled, replaced, or its merchant's clock is no longer this lane's
        delete items[top.id];
        this.store.changed('due_items', top.id, top.merchant_id);
        // A manual clock moves to each item's time, never back (an item may be due before now).
        if (lane.clock.mode === 'manual' && top.due > lane.clock.now()) lane.clock.set(top.due);
        const work = this.run(top);
        if (work) started.push(work);
        n += 1;
      }
      if (settleBy !== null && started.length > 0) await settleWithin(Promise.all(started), settleBy - performance.now());
    }
    return n;
  }

  /** Runs one item's handler; its async work, if any, with its failure logged. */
  private run(item: DueItem): Promise<void> | null {
    const handler = this.handlers.get(item.kind);
    try {
      const result = handler ? handler(item) : this.logger.warn({ item }, 'no handler for a due item');
      return result instanceof Promise ? result.catch((err: unknown) => this.logger.error({ err, item }, 'a due item failed')) : null;
    } catch (err) {
      this.logger.error({ err, item }, 'a due item failed');
      return null;
    }
  }

  private arm(lane: Lane): void {
    // A failed write stops the timers: the store's recovery runs the lanes (no busy loop meanwhile).
    if (lane.clock.mode === 'manual' || this.stopped || this.store.failure !== null) return;
    if (lane.timer) clearTimeout(lane.timer);
    lane.timer = null;
    const top = this.topOf(lane);
    if (!top) return;
    const delay = Math.min(lane.clock.realDelayUntil(top.due), MAX_TIMER_MS);
    lane.timer = setTimeout(() => {
      lane.timer = null;
      void this.runLane(lane).catch((err: unknown) => {
        // A write that failed is the store's to retry (it says why); anything else is a fault.
        if (err instanceof StoreWriteError)
          this.logger.warn({ reason: err.message }, 'due items ran, but could not be written yet: they are once the store can');
        else this.logger.error({ err }, 'scheduler pass failed');
      });
    }, delay);
    lane.timer.unref();
  }
}

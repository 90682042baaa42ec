import type { Scheduler } from '../schedule/scheduler.js';
import type { DueItem, DueKind } from '../store/state.js';

/**
 * A scripted timeline on the scheduler: only the next step is due at a time, carrying the steps
 * after it, so a forced change can drop the rest by cancelling one item.
 */

/** Schedules the first of `steps` (`afterMs` counted from `from`); its due item's id, or null when none. */
export function scheduleStep<S extends { afterMs: number }>(
  scheduler: Scheduler,
  kind: DueKind,
  key: Record<string, string>,
  merchantId: string,
  from: number,
  steps: readonly S[],
): string | null {
  if (steps.length === 0) return null;
  const [next, ...rest] = steps;
  return scheduler.schedule(kind, from + next.afterMs, { ...key, step: next, rest }, merchantId).id;
}

/** The step a due item of `scheduleStep` stands for, and the steps after it. */
export function stepOf<S>(item: DueItem): { step: S; rest: S[] } {
  return { step: item.payload.step as S, rest: item.payload.rest as S[] };
}

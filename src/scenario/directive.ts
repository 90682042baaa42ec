import { DURATION_FORMS, parseDuration } from '../duration.js';
import type { PayoutStatus } from '../store/state.js';
import { PAYOUT_STATUSES } from '../vocab.js';
import type { PayoutPlan, TimelineStep } from './scenario.js';

/** Marks `remarks` as an inline timeline for this one payout. */
export const DIRECTIVE_PREFIX = 'sbx:';

export type DirectiveResult = { ok: true; plan: PayoutPlan } | { ok: false; message: string };

/**
 * An inline timeline in `remarks`:
 *   sbx:STEP(>STEP)*    STEP = STATUS@DURATION    e.g. sbx:Unknown@5s>Success@1h
 * Each duration counts from the step before (the first from creation). A first step at 0
 * (`sbx:NEW@0s>Pending@5s>Success@5s`) sets the status the payout is created in (NEW or Pending).
 * Statuses are matched without regard to case. Returns null when `remarks` is no directive.
 */
export function parseDirective(remarks: string): DirectiveResult | null {
  if (!remarks.toLowerCase().startsWith(DIRECTIVE_PREFIX)) return null;
  const body = remarks.slice(DIRECTIVE_PREFIX.length).trim();
  const fail = (why: string): DirectiveResult => ({
    ok: false,
    message: `The remarks field has an invalid sandbox directive: ${why}. Expected sbx:STATUS@DURATION>STATUS@DURATION…, e.g. sbx:Unknown@5s>Success@1h.`,
  });
  if (body === '') return fail('no steps');
  const steps: TimelineStep[] = [];
  const parts = body.split('>');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].trim();
    const m = /^([A-Za-z]+)@(.+)$/.exec(part);
    if (!m) return fail(`step ${i + 1} "${part}" is not STATUS@DURATION`);
    const status = PAYOUT_STATUSES.find((s) => s.toLowerCase() === m[1].toLowerCase());
    if (!status) return fail(`step ${i + 1} "${part}" has the unknown status "${m[1]}" (use ${PAYOUT_STATUSES.join(', ')})`);
    const ms = parseDuration(m[2].trim());
    if (ms === null) return fail(`step ${i + 1} "${part}" has the invalid duration "${m[2]}" (use ${DURATION_FORMS})`);
    steps.push({ afterMs: ms, status: status as PayoutStatus });
  }
  let initialStatus: 'NEW' | 'Pending' = 'Pending';
  if (steps[0].afterMs === 0 && (steps[0].status === 'NEW' || steps[0].status === 'Pending')) {
    initialStatus = steps[0].status;
    steps.shift();
  }
  return { ok: true, plan: { rule: 'inline', initialStatus, steps } };
}

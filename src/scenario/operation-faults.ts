import { parseDuration } from '../duration.js';
import { SCRIPTED_RETRY_AFTER_S } from '../errors.js';
import { type OperationName, STATE_CHANGING_OPERATIONS } from '../vocab.js';
import type { ScenarioFile } from './schema.js';
import { CHAOS_MODES } from './schema.js';
import type { ChaosConfig, OperationFault, OutageConfig } from './types.js';

const dur = (text: string): number => parseDuration(text) ?? 0;

/** The longest real delay a `delay` fault may take (it holds a request, and a server slot, for real). */
export const MAX_FAULT_DELAY_MS = 2_000;
/** How long `hold` holds an answer by default: past common client time-outs, as 3003.02. */
export const DEFAULT_HOLD_MS = 35_000;

/** The scenario's operation faults, compiled; what the schema cannot say is a problem naming its path. */
export function compileFaults(file: ScenarioFile, problems: string[]): OperationFault[] {
  const seen = new Set<string>();
  return (file.faults ?? []).map((f, i) => {
    const at = `/faults/${i}`;
    if (seen.has(f.name)) problems.push(`${at}/name: must be unique ("${f.name}" is used twice)`);
    seen.add(f.name);
    const operations = new Set<OperationName>(([] as OperationName[]).concat(f.operation));
    if (f.effect === 'error_500_after') {
      const reads = [...operations].filter((o) => !STATE_CHANGING_OPERATIONS.includes(o));
      if (reads.length > 0)
        problems.push(`${at}/effect: error_500_after needs an operation that changes state (${STATE_CHANGING_OPERATIONS.join(', ')}), not ${reads.join(', ')}`);
    }
    const delay =
      typeof f.delay === 'string'
        ? { minMs: dur(f.delay), maxMs: dur(f.delay) }
        : f.delay
          ? { minMs: dur(f.delay.min), maxMs: dur(f.delay.max) }
          : { minMs: 0, maxMs: 0 };
    if (f.effect === 'delay' && f.delay === undefined) problems.push(`${at}/delay: is required for a delay fault`);
    if (delay.maxMs > MAX_FAULT_DELAY_MS) problems.push(`${at}/delay: must be at most 2s (a real delay)`);
    if (delay.minMs > delay.maxMs) problems.push(`${at}/delay: min must not be above max`);
    return {
      name: f.name,
      description: f.description ?? '',
      operations,
      match: Object.entries(f.match ?? {}).map(([k, v]): [string[], string] => [k.split('.'), String(v)]),
      effect: f.effect,
      times: f.times ?? null,
      holdMs: f.hold ? dur(f.hold) : DEFAULT_HOLD_MS,
      delay,
      retryAfterS: f.retry_after ? Math.max(1, Math.ceil(dur(f.retry_after) / 1000)) : SCRIPTED_RETRY_AFTER_S,
    };
  });
}

/** Chaos settings (a scenario's or the control API's), with their defaults. */
export function chaosConfig(c: NonNullable<ScenarioFile['chaos']>): ChaosConfig {
  return {
    percent: c.percent,
    modes: [...(c.modes ?? CHAOS_MODES)],
    operations: [...(c.operations ?? ['getPayoutStatus', 'getBalance', 'getBeneficiary', 'getVerification', 'getCheckoutStatus'])],
    seed: c.seed ?? 0,
  };
}

/**
 * An outage window from a scenario or the control API: `from` (default: open), `to` or `for`
 * after `from` (default: open). `now` stands for a missing `from` when `for` is given.
 */
export function outageConfig(
  o: NonNullable<ScenarioFile['outages']>[number],
  id: string,
  now: number | null,
  merchantId: string | null = null,
): OutageConfig | string {
  const from = o.from ? Date.parse(o.from) : null;
  if (o.to && o.for) return 'give either to or for, not both';
  const start = from ?? now;
  const to = o.to ? Date.parse(o.to) : o.for ? (start ?? 0) + dur(o.for) : null;
  if (o.for && start === null) return 'for needs from (an outage of a scenario file with no start is open-ended: leave for out)';
  if (from !== null && to !== null && to <= from) return 'to must be after from';
  return { id, bank: o.bank, payment_method: o.payment_method ?? null, from, to, effect: o.effect, merchant_id: merchantId };
}

export function compileOutages(file: ScenarioFile, problems: string[]): OutageConfig[] {
  return (file.outages ?? []).flatMap((o, i) => {
    const c = outageConfig(o, o.name ?? `scenario-${i + 1}`, null);
    if (typeof c === 'string') {
      problems.push(`/outages/${i}: ${c}`);
      return [];
    }
    if (c.effect !== 'reject' && c.to === null) {
      problems.push(`/outages/${i}: a ${c.effect} outage needs an end (to, or from and for)`);
      return [];
    }
    return [c];
  });
}

import { type ChaosState, SANDBOX_CHAOS_DRAWS } from '../store/state.js';
import type { FaultEffect, OperationName } from '../vocab.js';
import type { DomainContext } from './context.js';

/** What a call is made to go through: the effect, and what the journal names as the rule that decided it. */
export interface FaultDecision {
  effect: FaultEffect;
  /** The scenario rule's name, or `chaos:<operation>:<mode>`. */
  rule: string;
  holdMs: number;
  delayMs: number;
  retryAfterS: number;
}

/**
 * The `n`-th number in [0, 1) of a seed's sequence (a counter-based hash, SplitMix32-style): the
 * same seed and draw number give the same number, whatever was drawn before or elsewhere.
 */
export function seededUnit(seed: number, n: number): number {
  let t = (seed + Math.imul(n + 1, 0x9e3779b9)) >>> 0;
  t = Math.imul(t ^ (t >>> 16), 0x21f0aaad);
  t = Math.imul(t ^ (t >>> 15), 0x735a2d97);
  return ((t ^ (t >>> 15)) >>> 0) / 4294967296;
}

/** A field of a (parsed) input, by path. */
function field(input: unknown, path: string[]): unknown {
  let v = input;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

function matches(match: Array<[string[], string]>, input: unknown): boolean {
  return match.every(([path, want]) => {
    const got = field(input, path);
    if (got === undefined || got === null) return false;
    const text = String(got);
    return want.endsWith('*') ? text.startsWith(want.slice(0, -1)) : text === want;
  });
}

/** Real delays chaos draws from: 100 ms to 1.5 s. */
const CHAOS_DELAY = { minMs: 100, maxMs: 1_500 };
const CHAOS_RETRY_AFTER_S = 5;

/** A chaos draw: the next of the merchant's sequence (a call of an operation chaos does not cover draws nothing). */
function drawChaos(ctx: DomainContext, merchantId: string, op: OperationName, chaos: Omit<ChaosState, 'draws'>, draws: () => number): FaultDecision | null {
  if (chaos.percent <= 0 || !chaos.operations.includes(op)) return null;
  const n = draws();
  if (seededUnit(chaos.seed, 3 * n) * 100 >= chaos.percent) return null;
  const mode = chaos.modes[Math.floor(seededUnit(chaos.seed, 3 * n + 1) * chaos.modes.length)];
  const delayMs = Math.round(CHAOS_DELAY.minMs + seededUnit(chaos.seed, 3 * n + 2) * (CHAOS_DELAY.maxMs - CHAOS_DELAY.minMs));
  ctx.logger.debug({ merchantId, op, mode, draw: n }, 'chaos fault');
  return { effect: mode, rule: `chaos:${op}:${mode}`, holdMs: 0, delayMs, retryAfterS: CHAOS_RETRY_AFTER_S };
}

/**
 * Whether a call of `op` by this merchant, with this input, is to fail, and how: the scenario's
 * fault rules first (in order; a rule with `times` counts its merchant's calls and lets them
 * through once spent), then the merchant's chaos (its own, else the scenario's), drawn from its
 * seed one draw per call of an operation it covers. Null (the usual case): as usual.
 */
export function decideFault(ctx: DomainContext, merchantId: string, op: OperationName, input: unknown): FaultDecision | null {
  const scenario = ctx.scenario();
  const state = ctx.repo.state;
  for (const f of scenario.faults) {
    if (!f.operations.has(op) || !matches(f.match, input)) continue;
    if (f.times !== null) {
      const counts = ((state.fault_counts ??= {})[merchantId] ??= {});
      if ((counts[f.name] ?? 0) >= f.times) continue;
      counts[f.name] = (counts[f.name] ?? 0) + 1;
      ctx.repo.touch('fault_counts', merchantId);
    }
    const delayMs = f.delay.minMs + Math.round(ctx.random.faker.number.float({ min: 0, max: 1 }) * (f.delay.maxMs - f.delay.minMs));
    return { effect: f.effect, rule: f.name, holdMs: f.holdMs, delayMs, retryAfterS: f.retryAfterS };
  }
  const own = state.chaos?.[merchantId];
  if (own) {
    return drawChaos(ctx, merchantId, op, own, () => {
      ctx.repo.touch('chaos', merchantId);
      return own.draws++;
    });
  }
  if (scenario.chaos) {
    return drawChaos(ctx, merchantId, op, scenario.chaos, () => {
      const counts = ((state.fault_counts ??= {})[merchantId] ??= {});
      ctx.repo.touch('fault_counts', merchantId);
      const n = counts[SANDBOX_CHAOS_DRAWS] ?? 0;
      counts[SANDBOX_CHAOS_DRAWS] = n + 1;
      return n;
    });
  }
  return null;
}

/** Whether a call of `op` can fail at all (no rule of it, no chaos: the hot path skips the question). */
export function faultsPossible(ctx: DomainContext, op: OperationName): boolean {
  const s = ctx.scenario();
  if (s.chaos !== null || s.faults.some((f) => f.operations.has(op))) return true;
  for (const _ in ctx.repo.state.chaos ?? {}) return true;
  return false;
}

import { formatDuration } from '../duration.js';
import type { Difference } from './compare.js';
import { envelopeOf, stepsOf } from './compare.js';
import type { Replayed, ReplayResult } from './replay.js';

/**
 * What a scenario can close of the differences a verify found, as a scenario that `extends` the
 * one verified against: the statuses a payout goes through and when, by payment method, learnt
 * from the recorded checks (the median over the method's payouts; none, for a method whose
 * payouts never left the status they were made in); and, for an initialize whose amount and
 * method got another answer from the real service, a rule for them that answers as it did (its
 * error code and message, or acceptance) — unless the real service answered that amount and method
 * two ways, or either side answered a validation failure (envelope A: no scenario rule is reached
 * before validation). Everything else (fields, types, shapes, the messages of successful answers)
 * needs a change to the sandbox: listed for its maintainers, from what a verify with the
 * suggested scenario still finds.
 */

export interface Suggestion {
  scenario: Record<string, unknown>;
  /** The differences a scenario cannot close, by operation and kind (what to file upstream). */
  needsSandboxChange: Array<{ operation: string; kind: string; path: string; recorded: unknown; sandbox: unknown; entries: number[] }>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;

/** Kinds a rule for an initialize's amount closes. */
const ANSWERED_OTHERWISE = new Set(['status', 'envelope', 'error_code', 'message']);

/** What the real service answered an initialize, as a rule would: accepted, or refused with a code and message; null for anything else. */
function outcomeOf(body: unknown): string | null {
  if (envelopeOf(body) === 'success') return 'accepted';
  if (envelopeOf(body) === 'B' && isObject(body) && isObject(body.error) && typeof body.error.code === 'string') {
    return JSON.stringify([body.error.code, body.error.message ?? null]);
  }
  return null;
}

/** An initialize's amount and method: what an amount rule matches. */
const amountKey = (r: Replayed) => JSON.stringify([Number(r.call.body?.amount), String(r.call.body?.payment_method ?? '')]);

/** The rule that makes an initialize of this amount and method answer as the real service did, or null. */
function amountRule(r: Replayed, timelines: Map<string, Array<Record<string, unknown>>>): Record<string, unknown> | null {
  const amount = Number(r.call.body?.amount);
  const method = r.call.body?.payment_method;
  if (!Number.isFinite(amount) || typeof method !== 'string') return null;
  // A validation failure on either side is answered before any scenario rule is reached.
  if (envelopeOf(r.call.recorded.body) === 'A' || envelopeOf(r.sandbox.body) === 'A') return null;
  const body = r.call.recorded.body;
  const name = `recorded-amount-${amount}-${method}`;
  const match = { amount, payment_method: method };
  if (envelopeOf(body) === 'B' && isObject(body) && isObject(body.error) && typeof body.error.code === 'string') {
    return { name, description: 'learnt from a recorded session', match, reject: { code: body.error.code, message: body.error.message } };
  }
  if (envelopeOf(body) === 'success') {
    return {
      name,
      description: 'learnt from a recorded session: accepted by the real service',
      match,
      timeline: timelines.get(method) ?? [{ after: '5s', status: 'Success' }],
    };
  }
  return null;
}

/**
 * The steps of a method's payouts as the real service showed them: each status after the one it
 * was made in, when it was first seen, as a delay since the step before (the first since the
 * initialize), the median over the method's payouts that went the same way.
 */
function learntTimelines(result: ReplayResult): Map<string, Array<Record<string, unknown>>> {
  const byMethod = new Map<string, Array<Array<{ status: string; at: number }>>>();
  for (const p of result.payouts.values()) {
    if (p.method === null || p.observations.length === 0) continue;
    const firstSeen: Array<{ status: string; at: number }> = [];
    for (const o of p.observations) if (!firstSeen.some((f) => f.status === o.recorded)) firstSeen.push({ status: o.recorded, at: o.elapsedMs });
    // The status it was made in is no step of its timeline.
    if (firstSeen[0]?.status === (p.initialStatus ?? 'Pending')) firstSeen.shift();
    const list = byMethod.get(p.method) ?? [];
    list.push(firstSeen);
    byMethod.set(p.method, list);
  }
  const out = new Map<string, Array<Record<string, unknown>>>();
  for (const [method, payouts] of byMethod) {
    // The most common sequence of the method's payouts, and the median times of its steps over those that showed it.
    const key = (ps: Array<{ status: string }>) => stepsOf(ps.map((p) => p.status)).join('>');
    const counts = new Map<string, number>();
    for (const ps of payouts) counts.set(key(ps), (counts.get(key(ps)) ?? 0) + 1);
    const common = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    const same = payouts.filter((ps) => key(ps) === common);
    const first = same[0];
    if (!first) continue;
    // Never seen to leave the status it was made in: an empty timeline keeps it there.
    const steps: Array<Record<string, unknown>> = [];
    for (let i = 0; i < first.length; i++) {
      const delay = median(same.map((ps) => (ps[i]?.at ?? 0) - (i === 0 ? 0 : (ps[i - 1]?.at ?? 0))));
      steps.push({ after: formatDuration(Math.max(0, Math.round(delay))), status: first[i]?.status });
    }
    out.set(method, steps);
  }
  return out;
}

/** The scenario that closes what a scenario can close of `result`'s differences, over `base` (a shipped name or a file's path). */
export function suggestScenario(result: ReplayResult, base: string, name = 'suggested-from-a-recording'): Suggestion {
  const timelines = learntTimelines(result);
  const rules: Array<Record<string, unknown>> = [];
  const closed = new Set<Difference>();
  const timed = new Set<string>();
  // An amount and method the real service answered two ways gets no rule: no one answer is right.
  const outcomes = new Map<string, Set<string | null>>();
  for (const r of result.replayed) {
    if (r.call.operation.name !== 'initializePayout') continue;
    const set = outcomes.get(amountKey(r)) ?? new Set();
    set.add(outcomeOf(r.call.recorded.body));
    outcomes.set(amountKey(r), set);
  }
  for (const r of result.replayed) {
    if (r.call.operation.name !== 'initializePayout') continue;
    if ((outcomes.get(amountKey(r))?.size ?? 0) > 1) continue;
    if (!r.differences.some((d) => ANSWERED_OTHERWISE.has(d.kind))) continue;
    const rule = amountRule(r, timelines);
    if (rule === null) continue;
    if (!rules.some((x) => x.name === rule.name)) rules.push(rule);
    for (const d of r.differences) if (ANSWERED_OTHERWISE.has(d.kind)) closed.add(d);
  }
  // A method whose payouts showed another sequence or other timings than the sandbox gets the learnt timeline.
  for (const r of result.replayed) {
    for (const d of r.differences) {
      if (d.kind !== 'sequence' && d.kind !== 'timing') continue;
      const key = Object.entries(Object.fromEntries(result.payouts)).find(([, p]) => p.observations.some((o) => o.entry === r.call.entry));
      const method = key?.[1].method ?? null;
      if (method === null || !timelines.has(method)) continue;
      closed.add(d);
      if (timed.has(method)) continue;
      timed.add(method);
      const p = key?.[1];
      rules.push({
        name: `recorded-timeline-${method}`,
        description: 'learnt from a recorded session: the statuses and their timing as the real service showed them (median)',
        match: { payment_method: method },
        ...(p?.initialStatus === 'NEW' ? { initial_status: 'NEW' } : {}),
        timeline: timelines.get(method),
      });
    }
  }
  // Amount rules come first: an amount the real service answered otherwise wins over its method's timeline.
  rules.sort((a, b) => Number(String(b.name).startsWith('recorded-amount')) - Number(String(a.name).startsWith('recorded-amount')));
  return {
    scenario: {
      extends: base,
      name,
      description: 'Suggested by payout-sandbox verify --suggest-scenario from a recorded session: what a scenario can close.',
      payouts: { rules },
    },
    needsSandboxChange: openDifferences(result, closed),
  };
}

/** A replay's differences but the `closed` ones, one row per operation, kind and path, with the entries that showed it. */
export function openDifferences(result: ReplayResult, closed: ReadonlySet<Difference> = new Set()): Suggestion['needsSandboxChange'] {
  const open = new Map<string, Suggestion['needsSandboxChange'][number]>();
  for (const r of result.replayed) {
    for (const d of r.differences) {
      if (closed.has(d)) continue;
      const k = `${r.call.operation.id}\u0000${d.kind}\u0000${d.path}`;
      const entry = open.get(k);
      if (entry) entry.entries.push(r.call.entry);
      else open.set(k, { operation: r.call.operation.id, kind: d.kind, path: d.path, recorded: d.recorded, sandbox: d.sandbox, entries: [r.call.entry] });
    }
  }
  return [...open.values()];
}

import type { DeliveryAttempt, Payout, WebhookDelivery } from '../../store/state.js';
import type { Fact } from './facts.js';

/**
 * The integration review's rules: each a pure function over what one merchant's integration did
 * (its facts, payouts and webhook deliveries, its receiver probes), with a stable id, a severity,
 * a title, what a correct client does, and findings that name their evidence.
 */

export const SEVERITIES = ['high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Evidence {
  kind: 'request' | 'payout' | 'delivery' | 'probe';
  id: string;
}

export interface Hit {
  detail: string;
  evidence: Evidence[];
  /** When it happened (merchant clock, ms). */
  at: number;
}

/** A receiver probe's run, as the review reads it. */
export interface ProbeRun {
  id: string;
  at: number;
  checks: Array<{ check: string; passed: boolean; got: string }>;
}

export interface ReviewInput {
  facts: Fact[];
  payouts: Payout[];
  deliveries: WebhookDelivery[];
  probes: ProbeRun[];
  webhookTimeoutMs: number;
}

export interface Rule {
  rule: string;
  severity: Severity;
  title: string;
  /** What a correct client does. */
  advice: string;
  check(input: ReviewInput): Hit[];
}

const req = (f: Fact): Evidence => ({ kind: 'request', id: f.request_id });
const payout = (id: string): Evidence => ({ kind: 'payout', id });
const ok2xx = (s: number | null | undefined) => s !== null && s !== undefined && s >= 200 && s < 300;
const initializes = (facts: Fact[]) => facts.filter((f) => f.op === 'initializePayout');
/** Two initializes of one payment: the same payee and amount, under different client_ref_ids, both made. */
const samePayment = (a: Fact, b: Fact) => a.payee === b.payee && a.amount === b.amount && a.client_ref_id !== b.client_ref_id;

/** What a status check asked by: the id field and the id given, from its key (`getPayoutStatus|ref_id 123`). */
export function askedOf(f: Fact): ['ref_id' | 'client_ref_id', string] | null {
  const m = /^getPayoutStatus\|(ref_id|client_ref_id) (.*)$/s.exec(f.key ?? '');
  return m ? [m[1] as 'ref_id' | 'client_ref_id', m[2] as string] : null;
}

/** A payout's status at a time, from its history. */
export function statusAt(p: Payout, at: number): string | null {
  let s: string | null = null;
  for (const h of p.history) if (h.at <= at) s = h.status;
  return s;
}

/**
 * Pairs (earlier, later) of payouts made for one payment under different client_ref_ids, in the
 * order of the later one, then the earlier. Grouped by payee and amount first: a run of thousands
 * of payouts to different payees costs one pass, not a comparison of every pair.
 */
function doubles(facts: Fact[]): Array<[Fact, Fact]> {
  const out: Array<[Fact, Fact]> = [];
  const byPayment = new Map<string, Fact[]>();
  for (const b of initializes(facts)) {
    if (b.ref_id === undefined) continue;
    const key = `${b.payee}\u0000${b.amount}`;
    const earlier = byPayment.get(key);
    if (!earlier) {
      byPayment.set(key, [b]);
      continue;
    }
    for (const a of earlier) if (samePayment(a, b)) out.push([a, b]);
    earlier.push(b);
  }
  return out;
}

const money = (paise: number | undefined) => `₹${((paise ?? 0) / 100).toFixed(2)}`;

const doubleAfterTimeout: Rule = {
  rule: 'double-payout-after-timeout',
  severity: 'high',
  title: 'A payout sent again under a new client_ref_id after a time-out or an error that had made it',
  advice:
    'After a 5xx, a dropped connection or a time-out on initialize, the payout may exist: retry with the same client_ref_id (a duplicate is refused, nothing is paid twice), or look it up by client_ref_id first.',
  check: ({ facts }) =>
    doubles(facts)
      .filter(([a]) => a.transport !== undefined)
      .map(([a, b]) => ({
        detail: `${money(a.amount)} to ${a.payee}: initialize ${a.client_ref_id} was answered ${a.transport === 'error' ? `HTTP ${a.status}` : a.transport === 'drop' ? 'with no answer (connection closed)' : 'too late (held)'} but made payout ${a.ref_id}; it was sent again as ${b.client_ref_id} (payout ${b.ref_id}): paid twice.`,
        evidence: [req(a), payout(a.ref_id ?? ''), req(b), payout(b.ref_id ?? '')],
        at: b.at,
      })),
};

const resentAfterNotFound: Rule = {
  rule: 'double-payout-after-not-found',
  severity: 'high',
  title: 'A payout sent again after a status check answered "not found" for a payout that existed',
  advice:
    'A payout just made may not be visible to the status check for a few seconds (read-after-write lag): "Unable to find transaction" right after initialize does not mean it was not made. Check again later, or retry with the same client_ref_id.',
  check: ({ facts, payouts }) => {
    const byClientRef = new Map(payouts.map((p) => [p.client_ref_id, p]));
    const byRef = new Map(payouts.map((p) => [p.ref_id, p]));
    const hits: Hit[] = [];
    for (const s of facts) {
      const asked = s.op === 'getPayoutStatus' && s.code === 'GENERIC_EXCEPTION' ? askedOf(s) : null;
      if (asked === null) continue;
      const [by, id] = asked;
      const p = by === 'ref_id' ? byRef.get(id) : byClientRef.get(id);
      if (!p || p.created_at > s.at) continue;
      const made = facts.find((f) => f.op === 'initializePayout' && f.ref_id === p.ref_id);
      const again = facts.find((f) => f.seq > s.seq && f.op === 'initializePayout' && f.ref_id !== undefined && made !== undefined && samePayment(made, f));
      if (made && again) {
        hits.push({
          detail: `Payout ${p.ref_id} (${p.client_ref_id}) existed when the status check answered "not found"; ${money(again.amount)} to ${again.payee} was sent again as ${again.client_ref_id} (payout ${again.ref_id}).`,
          evidence: [req(made), req(s), req(again), payout(p.ref_id), payout(again.ref_id ?? '')],
          at: again.at,
        });
      }
    }
    return hits;
  },
};

const doubleWhileUnresolved: Rule = {
  rule: 'double-payout-while-unresolved',
  severity: 'high',
  title: 'A payout sent again under a new client_ref_id while the first was still Pending, NEW or Unknown',
  advice:
    'Pending, NEW and Unknown are not failures: wait for the webhook or a final status (Success or Failed) before paying again; Unknown in particular resolves on its own.',
  check: (input) => {
    const timedOut = new Set(doubleAfterTimeout.check(input).map((h) => h.evidence[2].id));
    const notFound = new Set(resentAfterNotFound.check(input).map((h) => h.evidence[2].id));
    const byRef = new Map(input.payouts.map((p) => [p.ref_id, p]));
    return doubles(input.facts)
      .filter(([, b]) => !timedOut.has(b.request_id) && !notFound.has(b.request_id))
      .flatMap(([a, b]) => {
        const first = byRef.get(a.ref_id ?? '');
        const then = first ? statusAt(first, b.at) : null;
        if (then !== 'Pending' && then !== 'NEW' && then !== 'Unknown') return [];
        return [
          {
            detail: `${money(a.amount)} to ${a.payee}: payout ${a.ref_id} (${a.client_ref_id}) was ${then} when it was sent again as ${b.client_ref_id} (payout ${b.ref_id}).`,
            evidence: [req(a), payout(a.ref_id ?? ''), req(b), payout(b.ref_id ?? '')],
            at: b.at,
          },
        ];
      });
  },
};

/** The requests of a merchant grouped by what they ask for (`key`), keeping those `keep` says. */
function byKey(facts: Fact[], keep: (f: Fact) => boolean): Map<string, Fact[]> {
  const out = new Map<string, Fact[]>();
  for (const f of facts) {
    if (!keep(f) || f.key === undefined) continue;
    const list = out.get(f.key) ?? [];
    list.push(f);
    out.set(f.key, list);
  }
  return out;
}

const pollOverLimit: Rule = {
  rule: 'status-poll-over-limit',
  severity: 'medium',
  title: 'A payout status checked more often than the limit (429s received)',
  advice: 'The status check allows 3 calls per minute per payout: poll with back-off (or wait for the webhook), and after a 429 wait for its Retry-After.',
  check: ({ facts }) =>
    [...byKey(facts, (f) => f.op === 'getPayoutStatus' && f.status === 429)].map(([key, list]) => ({
      detail: `${list.length} status check${list.length > 1 ? 's' : ''} of ${key.split('|')[1]} answered 429 Too many attempts.`,
      evidence: list.slice(0, 5).map(req),
      at: list[0].at,
    })),
};

const retryAfterIgnored: Rule = {
  rule: 'retry-after-ignored',
  severity: 'medium',
  title: 'A request repeated inside the Retry-After window it was given',
  advice: 'After a 429 or a 503 with Retry-After, wait at least that many seconds before asking again (on the same payout, account or operation).',
  check: ({ facts }) => {
    const hits: Hit[] = [];
    for (const [key, list] of byKey(facts, () => true)) {
      const early: Array<[Fact, Fact]> = [];
      for (let i = 0; i < list.length - 1; i++) {
        const f = list[i];
        if (f.retry_after === undefined) continue;
        const next = list[i + 1];
        if (next.at < f.at + f.retry_after * 1000) early.push([f, next]);
      }
      if (early.length === 0) continue;
      const [f, next] = early[0];
      hits.push({
        detail: `${key.split('|').join(' ')}: asked again ${((next.at - f.at) / 1000).toFixed(1)} s after being told Retry-After: ${f.retry_after} (${early.length} time${early.length > 1 ? 's' : ''}).`,
        evidence: early.slice(0, 3).flatMap(([a, b]) => [req(a), req(b)]),
        at: next.at,
      });
    }
    return hits;
  },
};

const FINAL = new Set(['Success', 'Failed']);

const outcomeNeverObserved: Rule = {
  rule: 'outcome-never-observed',
  severity: 'medium',
  title: 'A payout reached a final status the merchant never learnt',
  advice:
    "Learn every payout's outcome: acknowledge its webhooks with 2xx, or check its status until it is final (Success or Failed; a Success can still turn Failed).",
  check: ({ facts, payouts, deliveries }) => {
    const checked = new Map<string, number>();
    for (const f of facts)
      if (f.op === 'getPayoutStatus' && f.status === 200 && f.ref_id) checked.set(f.ref_id, Math.max(checked.get(f.ref_id) ?? 0, f.last_at ?? f.at));
    // Which payouts' statuses a delivery was acknowledged for (one pass, not one per payout).
    const acknowledged = new Set(deliveries.filter((d) => d.attempts.some((a) => ok2xx(a.status))).map((d) => `${d.ref_id}/${d.event_status}`));
    return payouts
      .filter((p) => FINAL.has(p.status))
      .flatMap((p) => {
        const final = p.history[p.history.length - 1];
        const polled = (checked.get(p.ref_id) ?? -1) >= final.at;
        const told = acknowledged.has(`${p.ref_id}/${p.status}`);
        if (polled || told) return [];
        return [
          {
            detail: `Payout ${p.ref_id} (${p.client_ref_id}) became ${p.status}; no status check saw it, no webhook of it was acknowledged.`,
            evidence: [payout(p.ref_id)],
            at: final.at,
          },
        ];
      });
  },
};

/** Attempts of real deliveries (not probes) of a kind, with their delivery. */
function attempts(deliveries: WebhookDelivery[], keep: (a: DeliveryAttempt, d: WebhookDelivery) => boolean): Array<[WebhookDelivery, DeliveryAttempt]> {
  return deliveries.flatMap((d) => d.attempts.filter((a) => a.kind !== 'probe' && keep(a, d)).map((a): [WebhookDelivery, DeliveryAttempt] => [d, a]));
}

const kindOf = (a: DeliveryAttempt): string => a.kind ?? (a.signature_valid ? 'genuine' : 'forged');

/** Probe checks that failed, as evidence. */
function failedProbes(probes: ProbeRun[], check: string): Array<{ run: ProbeRun; got: string }> {
  return probes.flatMap((run) => run.checks.filter((c) => c.check === check && !c.passed).map((c) => ({ run, got: c.got })));
}

/** A rule of deliveries of some kinds that the receiver accepted (2xx), and of a probe check it failed. */
function acceptedRule(rule: string, severity: Severity, title: string, advice: string, kinds: string[], probeCheck: string): Rule {
  return {
    rule,
    severity,
    title,
    advice,
    check: ({ deliveries, probes }) => {
      const seen = attempts(deliveries, (a) => kinds.includes(kindOf(a)) && ok2xx(a.status));
      const hits: Hit[] = seen.length
        ? [
            {
              detail: `${seen.length} ${kinds.join('/')} deliver${seen.length > 1 ? 'ies were' : 'y was'} answered 2xx (accepted).`,
              evidence: seen.slice(0, 5).map(([d]) => ({ kind: 'delivery' as const, id: d.delivery_id })),
              at: seen[0][1].at,
            },
          ]
        : [];
      for (const { run, got } of failedProbes(probes, probeCheck)) {
        hits.push({ detail: `Receiver probe ${run.id}: the ${probeCheck} check got ${got}.`, evidence: [{ kind: 'probe', id: run.id }], at: run.at });
      }
      return hits;
    },
  };
}

const forgedAccepted = acceptedRule(
  'webhook-forged-accepted',
  'high',
  'The webhook receiver accepted a delivery with a wrong signature',
  'Verify X-Sandbox-Signature-V2 (HMAC-SHA256 of "<t>." + the raw body, with the webhook secret, compared in constant time) before parsing or acting; answer 4xx when it does not verify.',
  ['forged'],
  'forged-signature',
);

const staleAccepted = acceptedRule(
  'webhook-stale-accepted',
  'high',
  'The webhook receiver accepted a stale or replayed delivery',
  'Refuse a delivery whose X-Sandbox-Timestamp is more than 300 s from your clock (4xx), and remember delivery ids you acted on.',
  ['stale', 'replay'],
  'stale-timestamp',
);

/**
 * A repeat the receiver had acknowledged before: an attempt of a delivery that already got a 2xx
 * (a redelivery), or a chaos duplicate of a delivery that did.
 */
function repeats(deliveries: WebhookDelivery[]): Array<[WebhookDelivery, DeliveryAttempt]> {
  const byId = new Map(deliveries.map((d) => [d.delivery_id, d]));
  const ackedAt = (d: WebhookDelivery | undefined) => d?.attempts.find((a) => ok2xx(a.status))?.at;
  return attempts(deliveries, (a, d) => {
    const own = d.attempts.find((x) => x.n < a.n && ok2xx(x.status));
    const original = d.duplicate_of !== null ? ackedAt(byId.get(d.duplicate_of)) : undefined;
    return own !== undefined || (original !== undefined && original <= a.at);
  });
}

const duplicateFailed: Rule = {
  rule: 'webhook-duplicate-failed',
  severity: 'medium',
  title: 'The webhook receiver failed a repeated delivery it had acknowledged before',
  advice: 'Be idempotent: a delivery (or an event) seen before is answered 2xx again, without acting twice — an error asks for retries that never end.',
  check: ({ deliveries, probes }) => {
    const failed = repeats(deliveries).filter(([, a]) => !ok2xx(a.status));
    const hits: Hit[] = failed.length
      ? [
          {
            detail: `${failed.length} repeated deliver${failed.length > 1 ? 'ies were' : 'y was'} answered with a failure after the first was acknowledged.`,
            evidence: failed.slice(0, 5).map(([d]) => ({ kind: 'delivery' as const, id: d.delivery_id })),
            at: failed[0][1].at,
          },
        ]
      : [];
    for (const { run, got } of failedProbes(probes, 'duplicate-delivery')) {
      hits.push({ detail: `Receiver probe ${run.id}: the duplicate-delivery check got ${got}.`, evidence: [{ kind: 'probe', id: run.id }], at: run.at });
    }
    return hits;
  },
};

const unhealthy: Rule = {
  rule: 'webhook-unhealthy',
  severity: 'medium',
  title: 'The webhook endpoint failed too often, or answered too slowly',
  advice: 'Answer 2xx quickly (within the time-out, 5 s by default) and do the work after answering; keep the endpoint up.',
  check: ({ deliveries, probes, webhookTimeoutMs }) => {
    const genuine = attempts(deliveries, (a) => kindOf(a) === 'genuine');
    const failed = genuine.filter(([, a]) => !ok2xx(a.status));
    const slow = genuine.filter(([, a]) => a.latency_ms >= webhookTimeoutMs || (a.error ?? '').startsWith('no answer within'));
    const hits: Hit[] = [];
    if (genuine.length >= 4 && failed.length * 2 > genuine.length) {
      hits.push({
        detail: `${failed.length} of ${genuine.length} attempts of genuine deliveries failed.`,
        evidence: failed.slice(0, 5).map(([d]) => ({ kind: 'delivery' as const, id: d.delivery_id })),
        at: failed[0][1].at,
      });
    }
    if (slow.length > 0) {
      hits.push({
        detail: `${slow.length} attempt${slow.length > 1 ? 's' : ''} got no answer within the ${webhookTimeoutMs / 1000} s time-out.`,
        evidence: slow.slice(0, 5).map(([d]) => ({ kind: 'delivery' as const, id: d.delivery_id })),
        at: slow[0][1].at,
      });
    }
    for (const { run, got } of failedProbes(probes, 'answer-time')) {
      hits.push({ detail: `Receiver probe ${run.id}: the answer-time check got ${got}.`, evidence: [{ kind: 'probe', id: run.id }], at: run.at });
    }
    return hits;
  },
};

const pendingBeneficiaryRepeated: Rule = {
  rule: 'payout-to-pending-beneficiary-repeated',
  severity: 'low',
  title: 'A payout to a beneficiary not yet Active was repeated before it became Active',
  advice:
    'A new beneficiary is Pending until it is activated (up to 24 h): after INVALID_BENEFICIARY, check it with Get beneficiary and wait for Active before paying.',
  check: ({ facts }) => {
    const hits: Hit[] = [];
    const refused = initializes(facts).filter((f) => f.code === 'INVALID_BENEFICIARY' && f.bene_status === 'Pending');
    for (const f of refused) {
      const again = initializes(facts).find((g) => g.seq > f.seq && g.payee === f.payee && g.bene_status === 'Pending');
      if (again && !hits.some((h) => h.evidence[0].id === f.request_id)) {
        hits.push({
          detail: `${f.payee} was Pending: refused INVALID_BENEFICIARY, then tried again while still Pending.`,
          evidence: [req(f), req(again)],
          at: again.at,
        });
      }
    }
    return hits;
  },
};

/** Every rule, in the order reports list them. */
export const RULES: readonly Rule[] = [
  doubleAfterTimeout,
  resentAfterNotFound,
  doubleWhileUnresolved,
  forgedAccepted,
  staleAccepted,
  pollOverLimit,
  retryAfterIgnored,
  outcomeNeverObserved,
  duplicateFailed,
  unhealthy,
  pendingBeneficiaryRepeated,
];

import type { Payout, WebhookDelivery } from '../../store/state.js';
import { type DeliveryKind, findingOf, type JudgedAttempt, judgeAttempts } from '../../webhooks/kinds.js';
import type { Fact } from './facts.js';

/**
 * The integration review's rules: each a pure function over what one merchant's integration did
 * (its facts, payouts, webhook attempts judged against the table of delivery kinds, its receiver
 * probes), with a stable id, a severity, what a correct client does, when the situation it guards
 * arose (so a rule without findings is "passed" only when it did, else "unproven"), and how to make
 * it arise. A rule answers occurrences, each about a subject (a payment, a kind of delivery, an
 * operation): the report (report.ts) groups them into findings, one per rule and subject.
 */

export const SEVERITIES = ['high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Evidence {
  kind: 'request' | 'payout' | 'delivery' | 'probe';
  /** A request's X-Request-Id, a payout's ref_id, the X-Sandbox-Delivery-Id the receiver saw, a probe run. */
  id: string;
  /** Where the control API shows it. */
  url?: string;
  /** A delivery: the outbox record that sent it, when it is not `id` (a duplicate or replay copy). */
  outbox_id?: string;
  /** A delivery: the payout it told of. */
  ref_id?: string;
  /** A delivery: what its request was (webhooks/kinds.ts), its attempt number, how old its signed timestamp was (s). */
  delivery_kind?: string;
  attempt?: number;
  timestamp_age_s?: number | null;
}

/** One time a rule's situation was mishandled. */
export interface Occurrence {
  /** What it is about: a payment (`₹100.00 to 123@HDFC0001234`), a kind of delivery, an operation. */
  subject: string;
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
  merchantId: string;
  facts: Fact[];
  payouts: Payout[];
  deliveries: WebhookDelivery[];
  probes: ProbeRun[];
  webhookTimeoutMs: number;
  /** A payment made again within this long after the first succeeded is a double payout. */
  repeatWindowMs: number;
  /** The merchant's clock now (reconciliation at the end of the run). */
  now: number;
  /**
   * Before this time (merchant clock) what the merchant learnt is no longer all there (the oldest
   * facts or deliveries went past their bounds): a payout's outcome from before it is not judged.
   */
  horizon: number;
}

export interface Rule {
  rule: string;
  severity: Severity;
  title: string;
  /** What a correct client does. */
  advice: string;
  /** How to make the situation arise (for a rule the run left unproven). */
  exercise: string;
  check(d: Derived): Occurrence[];
  /** Whether the situation the rule guards arose in the run. */
  arose(d: Derived): boolean;
}

const ok2xx = (s: number | null | undefined) => s !== null && s !== undefined && s >= 200 && s < 300;
const money = (paise: number | undefined) => `₹${((paise ?? 0) / 100).toFixed(2)}`;
const UNRESOLVED = new Set(['NEW', 'Pending', 'Unknown']);
/** How many of a payment's earlier payouts a new one is compared with (the newest not Failed, nor succeeded before the repeat window). */
const SCAN = 64;
/** A payout NEW or Pending this long (merchant clock) is due for reconciliation; an Unknown one, after UNKNOWN_RECHECK_MS. */
export const RECONCILE_AFTER_MS = 24 * 3_600_000;
export const UNKNOWN_RECHECK_MS = 15 * 60_000;
/** A payout due for reconciliation is followed up when its status was learnt within this long (merchant clock). */
export const FOLLOW_UP_MS = 3_600_000;
/** Status checks of one payout answered 429 this often are a storm (the limit is 3 a minute). */
export const STORM_429S = 3;

const req = (f: Fact): Evidence => ({ kind: 'request', id: f.request_id, url: `/__sandbox/requests/${f.request_id}` });
const payoutEv = (id: string): Evidence => ({ kind: 'payout', id, url: `/__sandbox/payouts/${id}` });
function deliveryEv(j: JudgedAttempt): Evidence {
  const e: Evidence = {
    kind: 'delivery',
    id: j.seenId,
    url: `/__sandbox/webhooks?delivery_id=${j.seenId}`,
    ref_id: j.delivery.ref_id,
    delivery_kind: j.kind,
    attempt: j.attempt.n,
    timestamp_age_s: j.ageS,
  };
  if (j.delivery.delivery_id !== j.seenId) e.outbox_id = j.delivery.delivery_id;
  return e;
}
const probeEv = (run: ProbeRun, merchantId: string): Evidence => ({ kind: 'probe', id: run.id, url: `/__sandbox/merchants/${merchantId}/webhooks/probes` });

/**
 * A payout's status at a time (its merchant's clock), from its history; `real` (ms, real time)
 * orders what happened at the same sandbox instant: a change taken after it does not count yet.
 */
export function statusAt(p: Payout, at: number, real?: number): string | null {
  let s: string | null = null;
  for (const h of p.history) {
    if (h.at < at || (h.at === at && (real === undefined || h.real_at === undefined || h.real_at <= real))) s = h.status;
  }
  return s;
}

/** When a payout (last) became Success, or null. */
function successAt(p: Payout): number | null {
  let at: number | null = null;
  for (const h of p.history) if (h.status === 'Success') at = h.at;
  return at;
}

/** What a status check asked by: the id field and the id given, from its key (`getPayoutStatus|ref_id 123`). */
export function askedOf(f: Fact): ['ref_id' | 'client_ref_id', string] | null {
  const m = /^getPayoutStatus\|(ref_id|client_ref_id) (.*)$/s.exec(f.key ?? '');
  return m ? [m[1] as 'ref_id' | 'client_ref_id', m[2] as string] : null;
}

/** Something the merchant was told of a payout: a status-check answer, or a webhook it acknowledged. */
interface Tell {
  at: number;
  /** Real time it was taken in (the answer to a status check; a webhook's answer): orders tells at one sandbox instant. */
  real: number;
  status: string;
  /** The payout's status when it was told. */
  truth: string | null;
  how: string;
  evidence: Evidence;
}

/** An initialize that made a payout. */
interface Made {
  fact: Fact;
  payout: Payout;
}

/**
 * What the rules read, worked out once per merchant: payouts by id, the initializes that made
 * payouts, everything the merchant was told of each payout in order, status checks answered
 * "not found" for payouts that existed, and every webhook attempt judged.
 */
export class Derived {
  readonly byRef: Map<string, Payout>;
  readonly byClientRef: Map<string, Payout>;
  readonly made: Made[] = [];
  readonly tells = new Map<string, Tell[]>();
  /** The first status check that answered "not found" for a payout that existed, by ref_id. */
  readonly notFound = new Map<string, Fact>();
  readonly attempts: JudgedAttempt[];

  constructor(readonly input: ReviewInput) {
    this.byRef = new Map(input.payouts.map((p) => [p.ref_id, p]));
    this.byClientRef = new Map(input.payouts.map((p) => [p.client_ref_id, p]));
    for (const f of input.facts) {
      if (f.op === 'initializePayout' && f.ref_id !== undefined) {
        const p = this.byRef.get(f.ref_id);
        if (p) this.made.push({ fact: f, payout: p });
      } else if (f.op === 'getPayoutStatus') this.readStatusCheck(f);
    }
    // In the order they were asked: a held or dropped initialize is recorded when its connection
    // closes, after the one a client sent once it gave up on it.
    this.made.sort((a, b) => a.fact.at - b.fact.at || a.fact.seq - b.fact.seq);
    this.attempts = judgeAttempts(input.deliveries);
    for (const j of this.attempts) {
      const p = this.byRef.get(j.delivery.ref_id);
      if (!p || !ok2xx(j.attempt.status)) continue;
      this.tell(p, {
        at: j.attempt.at,
        // When the receiver answered: of two webhooks sent at one instant, the one answered last was taken last.
        real: (j.attempt.real_at ?? 0) + j.attempt.latency_ms,
        status: j.delivery.event_status,
        // What the payout was when the request went out (a change at the same instant after it does not count).
        truth: statusAt(p, j.attempt.at, j.attempt.real_at),
        how: `a ${j.kind} webhook ${j.seenId} it acknowledged`,
        evidence: deliveryEv(j),
      });
    }
    for (const list of this.tells.values()) list.sort((a, b) => a.at - b.at || a.real - b.real);
  }

  private readStatusCheck(f: Fact): void {
    if (f.status === 200 && f.ref_id !== undefined && f.payout_status !== undefined) {
      const p = this.byRef.get(f.ref_id);
      if (!p) return;
      // A status check answers what the payout is as it answers: true when told (a later change makes it old, not untrue).
      const told = (at: number, real: number, id: string): Tell => ({
        at,
        real,
        status: f.payout_status as string,
        truth: f.payout_status as string,
        how: `a status check (${id})`,
        evidence: { kind: 'request', id, url: `/__sandbox/requests/${id}` },
      });
      this.tell(p, told(f.at, f.real_at ?? 0, f.request_id));
      if (f.repeats && f.last_at !== undefined && f.last_request_id !== undefined) this.tell(p, told(f.last_at, f.real_at ?? 0, f.last_request_id));
      return;
    }
    if (f.code !== 'GENERIC_EXCEPTION') return;
    const asked = askedOf(f);
    const p = asked === null ? undefined : asked[0] === 'ref_id' ? this.byRef.get(asked[1]) : this.byClientRef.get(asked[1]);
    if (p && p.created_at <= f.at && !this.notFound.has(p.ref_id)) this.notFound.set(p.ref_id, f);
  }

  private tell(p: Payout, t: Tell): void {
    const list = this.tells.get(p.ref_id);
    if (list) list.push(t);
    else this.tells.set(p.ref_id, [t]);
  }

  /** The last thing the merchant was told of a payout before (at, real), or undefined. */
  lastTell(refId: string, at: number, real: number): Tell | undefined {
    const list = this.tells.get(refId);
    if (!list) return undefined;
    let last: Tell | undefined;
    for (const t of list) {
      if (t.at > at || (t.at === at && t.real > real)) break;
      last = t;
    }
    return last;
  }

  /** Whether the merchant learnt a payout's status `status` at or after `since`. */
  learnt(refId: string, status: string, since: number): boolean {
    return (this.tells.get(refId) ?? []).some((t) => t.status === status && t.at >= since);
  }

  private readonly payments = new Map<Payout, string>();

  /** A payment in words: the amount and the payee (made once per payout). */
  paymentOf(p: Payout): string {
    let text = this.payments.get(p);
    if (text === undefined) this.payments.set(p, (text = `${money(p.amount)} to ${`${p.account_number}@${p.ifsc_code}`.toUpperCase()}`));
    return text;
  }

  private doubles: Map<string, Occurrence[]> | null = null;

  /**
   * The double payouts of the run, by rule (the table of docs/review.md), each new payout judged
   * once per rule. A new payout is compared with the newest SCAN earlier payouts of its payment
   * still live (not Failed, not succeeded before the repeat window), and with every earlier one
   * (up to SCAN more) whose initialize faulted or that a status check did not find: those cases
   * decide first, and are rare.
   */
  doublePayouts(): Map<string, Occurrence[]> {
    if (this.doubles !== null) return this.doubles;
    const out = new Map<string, Occurrence[]>();
    const live = new Map<string, { all: Made[]; marked: Made[] }>();
    for (const b of this.made) {
      const key = `${b.fact.payee}\u0000${b.fact.amount}`;
      let payment = live.get(key);
      if (payment === undefined) live.set(key, (payment = { all: [], marked: [] }));
      if (!b.fact.intended) {
        const found = new Set<string>();
        const consider = (a: Made): 'gone' | 'judged' | 'same' => {
          if (a.fact.client_ref_id === b.fact.client_ref_id) return 'same';
          const st = statusAt(a.payout, b.fact.at, b.fact.real_at);
          const succeeded = st === 'Success' ? successAt(a.payout) : null;
          // Failed stays Failed, and time only moves on: such a payout is never a double of a later one.
          if (st === 'Failed' || (succeeded !== null && b.fact.at - succeeded > this.input.repeatWindowMs)) return 'gone';
          const told = this.lastTell(a.payout.ref_id, b.fact.at, b.fact.real_at ?? Number.MAX_SAFE_INTEGER);
          const rule = this.caseOf(a, b, st, told);
          if (rule !== null && !found.has(rule)) {
            found.add(rule);
            const list = out.get(rule);
            const o = this.occurrence(rule, a, b, st, told);
            if (list) list.push(o);
            else out.set(rule, [o]);
          }
          return 'judged';
        };
        for (const list of [payment.marked, payment.all]) {
          let scanned = 0;
          for (let i = list.length - 1; i >= 0 && scanned < SCAN; i--) {
            const verdict = consider(list[i] as Made);
            if (verdict === 'gone') list.splice(i, 1);
            else if (verdict === 'judged') scanned += 1;
          }
        }
      }
      payment.all.push(b);
      if (b.fact.transport !== undefined || this.notFound.has(b.payout.ref_id)) payment.marked.push(b);
    }
    this.doubles = out;
    return out;
  }

  /** Which case of the table an earlier payout `a` (not Failed: `st`) of `b`'s payment is; null: none. */
  private caseOf(a: Made, b: Made, st: string | null, told: Tell | undefined): string | null {
    if (a.fact.transport !== undefined) return 'double-payout-after-timeout';
    const nf = this.notFound.get(a.payout.ref_id);
    if (nf && (nf.at < b.fact.at || (nf.at === b.fact.at && nf.seq < b.fact.seq))) return 'double-payout-after-not-found';
    if (told && told.status !== told.truth) return 'double-payout-after-stale-status';
    if (st !== null && UNRESOLVED.has(st)) return 'double-payout-while-unresolved';
    if (st === 'Success') return 'double-payout-after-success';
    return null;
  }

  /** The words and evidence of a case (made only for the first earlier payout of each case a new payout has). */
  private occurrence(rule: string, a: Made, b: Made, st: string | null, told: Tell | undefined): Occurrence {
    const vans = a.payout.debit_from !== b.payout.debit_from ? ` (debited from ${a.payout.debit_from}, then ${b.payout.debit_from})` : '';
    const again = `it was sent again as ${b.fact.client_ref_id} (payout ${b.payout.ref_id})${vans}`;
    const evidence = [req(a.fact), payoutEv(a.payout.ref_id), req(b.fact), payoutEv(b.payout.ref_id)];
    const subject = this.paymentOf(a.payout);
    const o = (detail: string, extra: Evidence[] = []) => ({ subject, detail, evidence: [...evidence, ...extra], at: b.fact.at });
    const first = `payout ${a.payout.ref_id} (${a.fact.client_ref_id})`;
    switch (rule) {
      case 'double-payout-after-timeout': {
        const t = a.fact.transport;
        const how = t === 'error' ? `HTTP ${a.fact.status}` : t === 'drop' ? 'with no answer (connection closed)' : 'too late (held)';
        return o(`${subject}: initialize ${a.fact.client_ref_id} was answered ${how} but made payout ${a.payout.ref_id}; ${again}: paid twice.`);
      }
      case 'double-payout-after-not-found':
        return o(`${subject}: ${first} existed when a status check answered "not found"; ${again}.`, [req(this.notFound.get(a.payout.ref_id) as Fact)]);
      case 'double-payout-after-stale-status':
        return o(
          `${subject}: the merchant was last told ${first} was ${told?.status}, by ${told?.how}, when it was ${told?.truth ?? 'not yet made'}; ${again} while it was ${st}.`,
          told ? [told.evidence] : [],
        );
      case 'double-payout-while-unresolved': {
        const toldText = told ? `; the last the merchant was told of it: ${told.status}, by ${told.how}` : '';
        return o(`${subject}: ${first} was ${st} when ${again}${toldText}.`, told ? [told.evidence] : []);
      }
      default: {
        const ago = Math.round((b.fact.at - (successAt(a.payout) ?? b.fact.at)) / 1000);
        return o(`${subject}: ${first} had succeeded ${ago} s before ${again}; a deliberate repeat says #repeat in its remarks.`);
      }
    }
  }
}

/** A rule of the double-payout table: its occurrences are the table's for it. */
function doubleRule(spec: Omit<Rule, 'check'>): Rule {
  return { ...spec, check: (d) => d.doublePayouts().get(spec.rule) ?? [] };
}

const doubleAfterTimeout = doubleRule({
  rule: 'double-payout-after-timeout',
  severity: 'high',
  title: 'A payout sent again under a new client_ref_id after a time-out or an error that had made it',
  advice:
    'After a 5xx, a dropped connection or a time-out on initialize, the payout may exist: retry with the same client_ref_id (a duplicate is refused, nothing is paid twice), or look it up by client_ref_id first.',
  exercise:
    'Initialize amount 3003.01 (HTTP 500 after the payout is made), 3003.02 (answer held 35 s) or 3003.04 (connection dropped), or a fault rule error_500_after or hold on initializePayout.',
  arose: (d) => d.made.some((m) => m.fact.transport !== undefined),
});

const resentAfterNotFound = doubleRule({
  rule: 'double-payout-after-not-found',
  severity: 'high',
  title: 'A payout sent again after a status check answered "not found" for a payout that existed',
  advice:
    'A payout just made may not be visible to the status check for a few seconds (read-after-write lag): "Unable to find transaction" right after initialize does not mean it was not made. Check again later, or retry with the same client_ref_id.',
  exercise: "Initialize amount 2002.08 (not found by the status check for 5 s) and check its status at once, or a scenario's visibility_lag.",
  arose: (d) => d.notFound.size > 0,
});

const doubleAfterStaleStatus = doubleRule({
  rule: 'double-payout-after-stale-status',
  severity: 'high',
  title: 'A payout sent again after the merchant was told a status the first payout no longer had (a reordered or late webhook, a lagged read)',
  advice:
    'A status only moves forward (NEW → Pending → Success or Failed; Unknown resolves; Success → Failed is a reversal): ignore an event older than what you know, and check the status before paying again.',
  exercise: 'Turn on webhook chaos reorder (or delay) in the scenario (webhooks.chaos), with a webhook_url, and let payouts settle.',
  arose: (d) => [...d.tells.values()].some((list) => list.some((t) => t.status !== t.truth)),
});

const doubleWhileUnresolved = doubleRule({
  rule: 'double-payout-while-unresolved',
  severity: 'high',
  title: 'A payout sent again under a new client_ref_id while the first was still Pending, NEW or Unknown',
  advice:
    'Pending, NEW and Unknown are not failures: wait for the webhook or a final status (Success or Failed) before paying again; Unknown in particular resolves on its own.',
  exercise: 'Initialize amount 2002.03 or 2002.04 (Unknown for an hour) or 2002.06 (NEW), and let the merchant see that status (a status check, or a webhook).',
  arose: (d) => [...d.tells.values()].some((list) => list.some((t) => t.status === 'Unknown' || t.status === 'NEW')),
});

const doubleAfterSuccess = doubleRule({
  rule: 'double-payout-after-success',
  severity: 'medium',
  title: 'A payment made again within the repeat window after the first succeeded',
  advice:
    'Key payouts by your own order (the client_ref_id) and check before paying: a second payment of the same amount to the same payee right after the first succeeded is paid twice. Mark a deliberate repeat with #repeat in its remarks.',
  exercise: 'Any payout that reaches Success (the default timeline: Success after 5 s).',
  arose: (d) => d.made.some((m) => successAt(m.payout) !== null),
});

/** The requests of a merchant grouped by what they ask for (`key`), keeping those `keep` says. */
function byKey(facts: Fact[], keep: (f: Fact) => boolean): Map<string, Fact[]> {
  const out = new Map<string, Fact[]>();
  for (const f of facts) {
    if (!keep(f) || f.key === undefined) continue;
    const list = out.get(f.key);
    if (list) list.push(f);
    else out.set(f.key, [f]);
  }
  return out;
}

/** The payment (or, for an unknown payout, the id asked by) a status check's key is about. */
function subjectOfStatusKey(d: Derived, f: Fact): string {
  const asked = askedOf(f);
  const p = asked === null ? undefined : asked[0] === 'ref_id' ? d.byRef.get(asked[1]) : d.byClientRef.get(asked[1]);
  return p ? d.paymentOf(p) : (asked?.[1] ?? f.key ?? f.op);
}

const pollOverLimit: Rule = {
  rule: 'status-poll-over-limit',
  severity: 'medium',
  title: `A payout status polled in a storm: ${STORM_429S} or more status checks answered 429`,
  advice: 'The status check allows 3 calls per minute per payout: poll with back-off (or wait for the webhook), and after a 429 wait for its Retry-After.',
  exercise: 'Check one payout’s status 4 times within a minute (the 4th is answered 429), then wait for Retry-After.',
  arose: (d) => d.input.facts.some((f) => f.op === 'getPayoutStatus' && f.status === 429),
  check: (d) =>
    [...byKey(d.input.facts, (f) => f.op === 'getPayoutStatus' && f.status === 429)]
      .filter(([, list]) => list.length >= STORM_429S)
      .map(([key, list]) => ({
        subject: subjectOfStatusKey(d, list[0] as Fact),
        detail: `${list.length} status checks of ${key.split('|')[1]} were answered 429 Too many attempts: the merchant kept polling faster than 3 a minute after being told.`,
        evidence: list.slice(0, 5).map(req),
        at: (list[list.length - 1] as Fact).at,
      })),
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const retryAfterIgnored: Rule = {
  rule: 'retry-after-ignored',
  severity: 'medium',
  title: 'A request repeated before the Retry-After it was given had passed, on the merchant’s clock and in real time',
  advice:
    'After a 429 or a 503 with Retry-After, wait at least that many seconds before asking again (on the same payout, account or operation): sleep it, or on a manual clock advance it.',
  exercise:
    'Hit a rate limit (a 4th status check of one payout within a minute) or a 503 (a status check of a client_ref_id starting SBX503, or a fault rule unavailable_503).',
  arose: (d) => d.input.facts.some((f) => f.retry_after !== undefined),
  check: (d) => {
    const out: Occurrence[] = [];
    for (const [key, list] of byKey(d.input.facts, () => true)) {
      for (let i = 0; i < list.length - 1; i++) {
        const f = list[i] as Fact;
        if (f.retry_after === undefined) continue;
        const next = list[i + 1] as Fact;
        const wait = f.retry_after * 1000;
        const merchant = next.at - f.at;
        const real = next.real_at !== undefined && f.real_at !== undefined ? next.real_at - f.real_at : null;
        // The limiter and the faults reopen on either clock: waited out on one is waited out.
        if (merchant >= wait || (real !== null && real >= wait)) continue;
        out.push({
          subject: f.op,
          detail: `${key.split('|').join(' ')}: asked again ${seconds(merchant)} (merchant clock)${real === null ? '' : ` and ${seconds(real)} (real time)`} after being told Retry-After: ${f.retry_after}.`,
          evidence: [req(f), req(next)],
          at: next.at,
        });
      }
    }
    return out;
  },
};

const FINAL = new Set(['Success', 'Failed']);
const reversed = (p: Payout) => p.status === 'Failed' && p.history.some((h) => h.status === 'Success');

const outcomeNeverObserved: Rule = {
  rule: 'outcome-never-observed',
  severity: 'medium',
  title: 'A payout reached a final status the merchant never learnt',
  advice:
    "Learn every payout's outcome: acknowledge its webhooks with 2xx, or check its status until it is final (Success or Failed; a Success can still turn Failed).",
  exercise: 'Any payout that reaches Success or Failed (the default timeline: Success after 5 s; 2002.01: Failed).',
  arose: (d) => d.input.payouts.some((p) => FINAL.has(p.status)),
  check: (d) =>
    d.input.payouts
      .filter((p) => FINAL.has(p.status))
      .flatMap((p) => {
        const final = p.history[p.history.length - 1];
        if (!final || final.at < d.input.horizon || d.learnt(p.ref_id, p.status, final.at)) return [];
        // A reversal whose Success was learnt is reversal-never-learnt's.
        if (reversed(p) && d.learnt(p.ref_id, 'Success', 0)) return [];
        return [
          {
            subject: d.paymentOf(p),
            detail: `Payout ${p.ref_id} (${p.client_ref_id}) became ${p.status}; no status check saw it, no webhook of it was acknowledged.`,
            evidence: [payoutEv(p.ref_id)],
            at: final.at,
          },
        ];
      }),
};

const reversalNeverLearnt: Rule = {
  rule: 'reversal-never-learnt',
  severity: 'high',
  title: 'A payout reversed (Success, then Failed) whose reversal the merchant never learnt',
  advice: 'Success can still turn Failed (a reversal: the money came back): take every webhook, and reconcile Success payouts for a while after.',
  exercise: 'Initialize amount 2002.05 (Success after 5 s, reversed to Failed after 1 h) and advance past the hour.',
  arose: (d) => d.input.payouts.some(reversed),
  check: (d) =>
    d.input.payouts.filter(reversed).flatMap((p) => {
      const final = p.history[p.history.length - 1];
      if (!final || final.at < d.input.horizon || !d.learnt(p.ref_id, 'Success', 0) || d.learnt(p.ref_id, 'Failed', final.at)) return [];
      return [
        {
          subject: d.paymentOf(p),
          detail: `Payout ${p.ref_id} (${p.client_ref_id}) was learnt as Success, then reversed to Failed; the merchant never learnt the reversal (no status check after it, no webhook of it acknowledged).`,
          evidence: [payoutEv(p.ref_id)],
          at: final.at,
        },
      ];
    }),
};

const payoutLeftUnresolved: Rule = {
  rule: 'payout-left-unresolved',
  severity: 'medium',
  title: 'A payout left Unknown (or NEW or Pending for a day) that the merchant has not followed up in the last hour',
  advice: 'Unknown is "marked for reconciliation": keep checking its status after an interval until it is final; a payout Pending for a day needs a look too.',
  exercise: 'Initialize amount 2002.03 or 2002.04 (Unknown for an hour), or a bank outage with effect unknown.',
  arose: (d) =>
    d.input.payouts.some(
      (p) => p.history.some((h) => h.status === 'Unknown') || (UNRESOLVED.has(p.status) && d.input.now - p.updated_at >= RECONCILE_AFTER_MS),
    ),
  check: (d) =>
    d.input.payouts.flatMap((p) => {
      const since = p.history[p.history.length - 1]?.at ?? p.created_at;
      const age = d.input.now - since;
      if (since < d.input.horizon) return [];
      const due = (p.status === 'Unknown' && age >= UNKNOWN_RECHECK_MS) || ((p.status === 'NEW' || p.status === 'Pending') && age >= RECONCILE_AFTER_MS);
      // Followed up: its status learnt since it took it, and within the last hour (seeing Unknown once and parking it is the bug).
      if (!due || d.learnt(p.ref_id, p.status, Math.max(since, d.input.now - FOLLOW_UP_MS))) return [];
      return [
        {
          subject: d.paymentOf(p),
          detail: `Payout ${p.ref_id} (${p.client_ref_id}) is still ${p.status} (for ${seconds(age)} on the merchant's clock), and the merchant has not asked for its status ${d.learnt(p.ref_id, p.status, since) ? 'in the last hour' : 'since it took it'}.`,
          evidence: [payoutEv(p.ref_id)],
          at: d.input.now,
        },
      ];
    }),
};

/** The HTTP status a probe check got (`204`, `503 in 12 ms`), or null for no answer. */
const probeStatus = (got: string): number | null => {
  const n = Number(/^(\d{3})\b/.exec(got)?.[1]);
  return Number.isFinite(n) ? n : null;
};

/**
 * Probe checks answered as the table of delivery kinds makes a finding of `rule` (webhooks/kinds.ts):
 * a forged or stale request accepted (2xx), a duplicate of an acknowledged id failed; a receiver
 * that is down fails its checks, and that is webhook-unhealthy's, not an acceptance.
 */
function probeFindings(d: Derived, check: string, kind: DeliveryKind, rule: string): Occurrence[] {
  return d.input.probes.flatMap((run) => {
    const acknowledged = run.checks.some((c) => c.check === 'valid-delivery' && c.passed);
    return run.checks
      .filter((c) => c.check === check && findingOf(kind, probeStatus(c.got), acknowledged) === rule)
      .map((c) => ({
        subject: 'the receiver probe',
        detail: `Receiver probe ${run.id}: the ${check} check got ${c.got}.`,
        evidence: [probeEv(run, d.input.merchantId)],
        at: run.at,
      }));
  });
}

/** Probe checks that failed, as occurrences of a rule. */
function probeFailures(d: Derived, check: string): Occurrence[] {
  return d.input.probes.flatMap((run) =>
    run.checks
      .filter((c) => c.check === check && !c.passed)
      .map((c) => ({
        subject: 'the receiver probe',
        detail: `Receiver probe ${run.id}: the ${check} check got ${c.got}.`,
        evidence: [probeEv(run, d.input.merchantId)],
        at: run.at,
      })),
  );
}

/** The judged attempts whose answer is a finding of `rule`, as occurrences, one subject per kind. */
function attemptFindings(d: Derived, rule: string, words: (j: JudgedAttempt) => string): Occurrence[] {
  return d.attempts
    .filter((j) => j.finding === rule)
    .map((j) => ({ subject: `${j.kind} deliveries`, detail: words(j), evidence: [deliveryEv(j)], at: j.attempt.at }));
}

const age = (j: JudgedAttempt) => (j.ageS === null ? '' : `, its timestamp ${j.ageS} s old`);
const answered = (j: JudgedAttempt) => (j.attempt.status === null ? `got no answer (${j.attempt.error ?? 'no answer'})` : `was answered ${j.attempt.status}`);

const forgedAccepted: Rule = {
  rule: 'webhook-forged-accepted',
  severity: 'high',
  title: 'The webhook receiver accepted a delivery with a wrong signature',
  advice:
    'Verify X-Sandbox-Signature-V2 (HMAC-SHA256 of "<t>." + the raw body, with the webhook secret, compared in constant time) before parsing or acting; answer 4xx when it does not verify.',
  exercise: 'Run the receiver probe (POST /__sandbox/merchants/{id}/webhooks/probe), or turn on webhooks.chaos.wrong_signature with a webhook_url.',
  arose: (d) => d.input.probes.length > 0 || d.attempts.some((j) => j.kind === 'forged'),
  check: (d) => [
    ...attemptFindings(d, 'webhook-forged-accepted', (j) => `Delivery ${j.seenId} (forged: signed with a wrong key${age(j)}) ${answered(j)}: accepted.`),
    ...probeFindings(d, 'forged-signature', 'forged', 'webhook-forged-accepted'),
  ],
};

const staleAccepted: Rule = {
  rule: 'webhook-stale-accepted',
  severity: 'high',
  title: 'The webhook receiver accepted a stale delivery, or a replay of one it had never acknowledged',
  advice:
    'Refuse a delivery whose X-Sandbox-Timestamp is more than 300 s from your clock (4xx), and remember delivery ids you acted on (a replay of one answered 2xx before may be answered 2xx again).',
  exercise: 'Run the receiver probe (its stale-timestamp check), or turn on webhooks.chaos.stale_timestamp or replay with a webhook_url.',
  arose: (d) => d.input.probes.length > 0 || d.attempts.some((j) => j.kind === 'stale' || j.kind === 'replay'),
  check: (d) => [
    ...attemptFindings(d, 'webhook-stale-accepted', (j) =>
      j.kind === 'replay'
        ? `Delivery ${j.seenId} replayed (the exact request of an earlier attempt${age(j)}), never acknowledged before, ${answered(j)}: accepted.`
        : `Delivery ${j.seenId} (stale${age(j)}) ${answered(j)}: accepted.`,
    ),
    ...probeFindings(d, 'stale-timestamp', 'stale', 'webhook-stale-accepted'),
  ],
};

/** A probe run whose genuine delivery was acknowledged: its duplicate is then one of an acknowledged id. */
const acknowledgedGenuine = (run: ProbeRun) => run.checks.some((c) => c.check === 'valid-delivery' && c.passed);

const duplicateFailed: Rule = {
  rule: 'webhook-duplicate-failed',
  severity: 'medium',
  title: 'The webhook receiver failed a delivery id it had acknowledged before',
  advice: 'Be idempotent: a delivery id seen before is answered 2xx again, without acting twice — an error asks for retries that never end.',
  exercise:
    'Run the receiver probe (its duplicate-delivery check), redeliver a delivered webhook (POST /__sandbox/webhooks/{id}/redeliver), or turn on webhooks.chaos.duplicate.',
  arose: (d) => d.input.probes.some(acknowledgedGenuine) || d.attempts.some((j) => j.kind === 'duplicate' && j.acknowledged),
  check: (d) => [
    ...attemptFindings(
      d,
      'webhook-duplicate-failed',
      (j) => `Delivery ${j.seenId}, acknowledged before, sent again (attempt ${j.attempt.n}, a ${j.kind}) ${answered(j)}.`,
    ),
    ...probeFindings(d, 'duplicate-delivery', 'duplicate', 'webhook-duplicate-failed'),
  ],
};

const unhealthy: Rule = {
  rule: 'webhook-unhealthy',
  severity: 'medium',
  title: 'The webhook endpoint failed too often, or answered too slowly',
  advice: 'Answer 2xx quickly (within the time-out, 5 s by default) and do the work after answering; keep the endpoint up.',
  exercise: 'Give the merchant a webhook_url and let payouts settle, or run the receiver probe.',
  arose: (d) => d.input.probes.length > 0 || d.attempts.some((j) => j.kind === 'genuine'),
  check: (d) => {
    const genuine = d.attempts.filter((j) => j.kind === 'genuine');
    const failed = genuine.filter((j) => !ok2xx(j.attempt.status));
    const timeout = d.input.webhookTimeoutMs;
    const slow = genuine.filter((j) => j.attempt.latency_ms >= timeout || (j.attempt.error ?? '').startsWith('no answer within'));
    const out: Occurrence[] = [];
    if (genuine.length >= 4 && failed.length * 2 > genuine.length) {
      out.push({
        subject: 'genuine deliveries',
        detail: `${failed.length} of ${genuine.length} attempts of genuine deliveries failed.`,
        evidence: failed.slice(0, 20).map(deliveryEv),
        at: (failed[failed.length - 1] as JudgedAttempt).attempt.at,
      });
    }
    for (const j of slow) {
      out.push({
        subject: 'slow answers',
        detail: `Delivery ${j.seenId} got no answer within the ${timeout / 1000} s time-out.`,
        evidence: [deliveryEv(j)],
        at: j.attempt.at,
      });
    }
    return [...out, ...probeFailures(d, 'valid-delivery'), ...probeFailures(d, 'answer-time')];
  },
};

const pendingBeneficiaryRepeated: Rule = {
  rule: 'payout-to-pending-beneficiary-repeated',
  severity: 'low',
  title: 'A payout to a beneficiary not yet Active was repeated before it became Active',
  advice:
    'A new beneficiary is Pending until it is activated (up to 24 h): after INVALID_BENEFICIARY, check it with Get beneficiary and wait for Active before paying.',
  exercise: 'Create a beneficiary and pay it by beneficiary_id at once (it is Pending for 10 s), or pay BENEDEMO000000000003 (stays Pending).',
  arose: (d) => d.input.facts.some((f) => f.op === 'initializePayout' && f.code === 'INVALID_BENEFICIARY' && f.bene_status === 'Pending'),
  check: ({ input: { facts } }) => {
    const out: Occurrence[] = [];
    const inits = facts.filter((f) => f.op === 'initializePayout' && f.bene_status === 'Pending');
    const refused = inits.filter((f) => f.code === 'INVALID_BENEFICIARY');
    for (let i = 0; i < refused.length; i++) {
      const f = refused[i] as Fact;
      const again = inits.find((g) => g.seq > f.seq && g.payee === f.payee);
      if (again === undefined) continue;
      out.push({
        subject: String(f.payee),
        detail: `${f.payee} was Pending: refused INVALID_BENEFICIARY, then tried again while still Pending.`,
        evidence: [req(f), req(again)],
        at: again.at,
      });
    }
    return out;
  },
};

/** Every rule, in the order reports list them. */
export const RULES: readonly Rule[] = [
  doubleAfterTimeout,
  resentAfterNotFound,
  doubleAfterStaleStatus,
  doubleWhileUnresolved,
  forgedAccepted,
  staleAccepted,
  reversalNeverLearnt,
  doubleAfterSuccess,
  pollOverLimit,
  retryAfterIgnored,
  outcomeNeverObserved,
  payoutLeftUnresolved,
  duplicateFailed,
  unhealthy,
  pendingBeneficiaryRepeated,
];

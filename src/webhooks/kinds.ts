import type { AttemptKind, DeliveryAttempt, WebhookDelivery } from '../store/state.js';
import { TIMESTAMP_TOLERANCE_S } from './signing.js';

/**
 * What each webhook request the sandbox sends is, and what a correct receiver answers to it: one
 * table, read by the outbox's chaos (which kind an attempt is), the receiver probe (what each of
 * its checks expects) and the integration review (what is a finding), so the three cannot
 * disagree. docs/webhooks.md prints it (a test compares the two).
 */

export type DeliveryKind = Exclude<AttemptKind, 'probe'>;

/** The answer a correct receiver gives: 2xx, 4xx, or 2xx exactly when the delivery id was acknowledged before (else 4xx). */
export type CorrectAnswer = '2xx' | '4xx' | '2xx-if-acknowledged-else-4xx';

export interface KindRow {
  kind: DeliveryKind;
  sent: string;
  correct: CorrectAnswer;
  /** The review's rule an answer against this row is a finding of. */
  rule: string;
  /** In words, for the table in docs/webhooks.md. */
  correctText: string;
  findingText: string;
}

export const KINDS: Record<DeliveryKind, KindRow> = {
  genuine: {
    kind: 'genuine',
    sent: 'a new delivery id (or a retry of one never acknowledged), fresh timestamp, valid signature',
    correct: '2xx',
    rule: 'webhook-unhealthy',
    correctText: '2xx',
    findingText: 'non-2xx or no answer in time, by share: `webhook-unhealthy`',
  },
  duplicate: {
    kind: 'duplicate',
    sent: "a delivery id already acknowledged (chaos `duplicate`, a redeliver, the probe's `duplicate-delivery`), signed afresh with a new timestamp",
    correct: '2xx',
    rule: 'webhook-duplicate-failed',
    correctText: '2xx, without acting again',
    findingText: 'non-2xx after an earlier 2xx of that id: `webhook-duplicate-failed`',
  },
  replay: {
    kind: 'replay',
    sent: 'the exact bytes and headers of an earlier attempt (its delivery id, its timestamp: old by the real time since)',
    correct: '2xx-if-acknowledged-else-4xx',
    rule: 'webhook-stale-accepted',
    correctText:
      '2xx if that id was acknowledged before (seen: nothing to do), else 4xx; while its timestamp is within the tolerance it is a retry, and 2xx is right too',
    findingText: '2xx to a replay whose id was never acknowledged before and whose timestamp is past the tolerance: `webhook-stale-accepted`',
  },
  stale: {
    kind: 'stale',
    sent: 'a new delivery id, valid signature, a timestamp older than the 300 s tolerance',
    correct: '4xx',
    rule: 'webhook-stale-accepted',
    correctText: '4xx',
    findingText: '2xx: `webhook-stale-accepted`',
  },
  forged: {
    kind: 'forged',
    sent: 'a signature made with a wrong key',
    correct: '4xx',
    rule: 'webhook-forged-accepted',
    correctText: '4xx',
    findingText: '2xx: `webhook-forged-accepted`',
  },
};

const is2xx = (s: number | null | undefined) => s !== null && s !== undefined && s >= 200 && s < 300;

/**
 * What attempt `n` of a delivery is: a replayed capture, forged or stale (chaos, first attempt only:
 * its retries are signed as any other, so a receiver that refuses it still learns the event),
 * a duplicate (a chaos copy, or a delivery id sent again after it was acknowledged: a redeliver),
 * or genuine (a first attempt, or a retry of one never acknowledged).
 */
export function attemptKind(d: WebhookDelivery, n: number): DeliveryKind {
  if (d.replay_of) return 'replay';
  if (d.wrong_signature && n === 1) return 'forged';
  if (d.stale_timestamp && n === 1) return 'stale';
  if (d.duplicate_of !== null) return 'duplicate';
  return d.attempts.some((a) => a.n < n && is2xx(a.status)) ? 'duplicate' : 'genuine';
}

/** What an attempt recorded was (older records have no kind: one whose signature did not verify was forged). */
export function kindOfAttempt(d: WebhookDelivery, a: DeliveryAttempt): DeliveryKind {
  return (a.kind ?? (a.signature_valid ? attemptKind(d, a.n) : 'forged')) as DeliveryKind;
}

/** Whether an attempt of this kind goes out signed with a wrong key: a forged one, or the replay of a forged capture. */
export function signedWithWrongKey(d: WebhookDelivery, kind: AttemptKind | undefined): boolean {
  return kind === 'forged' || (kind === 'replay' && d.wrong_signature);
}

/** The delivery id a receiver sees on a delivery's requests: a duplicate or replay copy goes out under its original's. */
export function seenIdOf(d: WebhookDelivery): string {
  return d.duplicate_of ?? d.captured_headers?.['X-Sandbox-Delivery-Id'] ?? d.replay_of ?? d.delivery_id;
}

/**
 * Whether an answer to a request of a kind is a finding, and of which rule (genuine attempts are
 * judged by share, not one by one: never here). `acknowledged`: the delivery id had been answered
 * 2xx before this request.
 */
export function findingOf(kind: DeliveryKind, status: number | null, acknowledged: boolean, ageS: number | null = null): string | null {
  const ok = is2xx(status);
  switch (KINDS[kind].correct) {
    case '4xx':
      return ok ? KINDS[kind].rule : null;
    case '2xx-if-acknowledged-else-4xx':
      // A replay whose timestamp is still fresh (sent again within the tolerance, as on a manual
      // clock) cannot be told from a retry: no receiver can refuse it, so no answer is wrong.
      if (ageS !== null && ageS <= TIMESTAMP_TOLERANCE_S) return null;
      return ok && !acknowledged ? KINDS[kind].rule : null;
    default:
      return kind === 'duplicate' && !ok && acknowledged ? KINDS[kind].rule : null;
  }
}

/** One attempt of a merchant's deliveries, in the order the receiver got them, with what it was. */
export interface JudgedAttempt {
  delivery: WebhookDelivery;
  attempt: DeliveryAttempt;
  kind: DeliveryKind;
  /** The X-Sandbox-Delivery-Id the receiver saw. */
  seenId: string;
  /** That id had been answered 2xx before this request. */
  acknowledged: boolean;
  /** How old the signed timestamp was when it was sent (seconds), when known. */
  ageS: number | null;
  /** The review rule this answer is a finding of, or null. */
  finding: string | null;
}

/** Every attempt of the deliveries (probes aside), in the order they were sent, each judged against KINDS. */
export function judgeAttempts(deliveries: readonly WebhookDelivery[]): JudgedAttempt[] {
  const all: Array<{ d: WebhookDelivery; a: DeliveryAttempt }> = [];
  for (const d of deliveries) for (const a of d.attempts) if (a.kind !== 'probe') all.push({ d, a });
  all.sort((x, y) => x.a.at - y.a.at || (x.a.real_at ?? 0) - (y.a.real_at ?? 0) || x.a.n - y.a.n);
  // When each delivery id was first answered 2xx (real time of the answer; 0 for older records without it).
  const acked = new Map<string, number>();
  return all.map(({ d, a }) => {
    const kind = kindOfAttempt(d, a);
    const seenId = seenIdOf(d);
    // Acknowledged before this request: answered 2xx before it was sent (two requests under way at
    // once, a copy sent while the original is still being handled, are not one after the other).
    const ackAt = acked.get(seenId);
    const acknowledged = ackAt !== undefined && (a.real_at === undefined || ackAt <= a.real_at);
    if (is2xx(a.status) && ackAt === undefined) acked.set(seenId, a.real_at === undefined ? 0 : a.real_at + a.latency_ms);
    const ageS = a.timestamp !== undefined && a.real_at !== undefined ? Math.max(0, Math.round(a.real_at / 1000 - a.timestamp)) : null;
    return { delivery: d, attempt: a, kind, seenId, acknowledged, ageS, finding: findingOf(kind, a.status, acknowledged, ageS) };
  });
}

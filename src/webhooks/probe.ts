import { randomInt } from 'node:crypto';
import { statusCheckBody, webhookV1Body } from '../contract/records.js';
import type { ApiVersion, Payout, ProbeCheck } from '../store/state.js';
import { type DeliveryKind, KINDS } from './kinds.js';
import { is2xx, is4xx, post, type Sent } from './send.js';
import { deliveryHeaders, PROBE_HEADER, type SigningKeys, unixNow, WRONG_KEYS } from './signing.js';

/**
 * The receiver probe: a fixed battery of payout deliveries, each a question a correct webhook
 * receiver answers one way, sent one after another to one URL. Pure of Express and of the
 * sandbox's state: the control API runs it for a merchant (and keeps the result), the CLI's
 * `probe-webhook` runs it against any URL with a given secret.
 */

export const PROBE_CHECKS = ['valid-delivery', 'forged-signature', 'stale-timestamp', 'duplicate-delivery', 'unknown-field', 'answer-time'] as const;
export type ProbeCheckName = (typeof PROBE_CHECKS)[number];

/** How old the stale-timestamp check's timestamp is (seconds): 10 minutes, twice the documented 300 s tolerance. */
export const PROBE_STALE_AGE_S = 600;

/** The extra top-level field of the unknown-field check. */
export const PROBE_UNKNOWN_FIELD = 'sandbox_probe_unknown_field';

export interface ProbeTarget {
  url: string;
  /** The keys a genuine delivery is signed with (the merchant's, or the CLI's --secret). */
  keys: SigningKeys;
  /** The body of the genuine delivery (V1 or V2). */
  body: Record<string, unknown>;
  /** The webhook timeout: each request's, and what answer-time holds the receiver to. */
  timeoutMs: number;
  /** Told of each request before it goes (its delivery id); the function it answers is called when it has ended (the sandbox refuses its own requests that come back). */
  sending?: (deliveryId: string) => () => void;
}

export interface ProbeResult {
  ok: boolean;
  url: string;
  checks: ProbeCheck[];
}

type Want = '2xx' | '4xx' | 'answer';

/** One check: what it sends (a kind of delivery), what a correct receiver answers, and what to do when it does not. */
interface Question {
  check: ProbeCheckName;
  kind: DeliveryKind;
  want: Want;
  sent: string;
  fix: string;
}

/** What a correct receiver answers to a kind, from the one table (webhooks/kinds.ts). */
const wantOf = (kind: DeliveryKind): Want => (KINDS[kind].correct === '4xx' ? '4xx' : '2xx');

const QUESTIONS: Record<ProbeCheckName, Question> = {
  'valid-delivery': {
    check: 'valid-delivery',
    kind: 'genuine',
    want: wantOf('genuine'),
    sent: 'a genuine delivery, correctly signed, fresh timestamp',
    fix: "acknowledge (2xx) every genuine delivery: verify with the merchant's webhook secret over the raw body",
  },
  'forged-signature': {
    check: 'forged-signature',
    kind: 'forged',
    want: wantOf('forged'),
    sent: 'the same body, both signatures made with a wrong key',
    fix: 'verify X-Sandbox-Signature-V2 and refuse (401) a request it does not verify',
  },
  'stale-timestamp': {
    check: 'stale-timestamp',
    kind: 'stale',
    want: wantOf('stale'),
    sent: `a new delivery id, correctly signed, X-Sandbox-Timestamp ${PROBE_STALE_AGE_S} s old`,
    fix: 'refuse (401) a timestamp more than 300 s from your clock: it may be a captured request sent again',
  },
  'duplicate-delivery': {
    check: 'duplicate-delivery',
    kind: 'duplicate',
    want: wantOf('duplicate'),
    sent: 'the genuine delivery again, same delivery id, signed afresh',
    fix: 'acknowledge (2xx) a delivery id seen before, without acting on it again',
  },
  'unknown-field': {
    check: 'unknown-field',
    kind: 'genuine',
    want: wantOf('genuine'),
    sent: `a genuine delivery with an extra top-level field (${PROBE_UNKNOWN_FIELD})`,
    fix: 'ignore fields you do not know: the API may add some',
  },
  'answer-time': {
    check: 'answer-time',
    kind: 'duplicate',
    want: 'answer',
    sent: 'the genuine delivery again',
    fix: 'answer within the webhook timeout (do the work after answering): a late answer is a failed attempt, sent again',
  },
};

/** A probe delivery id: `whp_` + 8 digits, never one of the outbox's `whd_` ids (a receiver's dedupe must not mistake it for one). */
function probeId(): string {
  return `whp_${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

function expectedOf(want: Want, timeoutMs: number): string {
  if (want === 'answer') return `an answer within ${timeoutMs} ms`;
  return want === '2xx' ? '2xx' : '4xx (refused; not 2xx, and not 5xx, which asks for retries)';
}

/** A check's verdict on what came back: passed or not, and in words why (the connection error when there was no answer). */
function judge(q: Question, sent: Sent, timeoutMs: number): ProbeCheck {
  const expected = expectedOf(q.want, timeoutMs);
  const got = sent.status === null ? 'no answer' : q.want === 'answer' ? `${sent.status} in ${sent.latency_ms} ms` : String(sent.status);
  const base = { check: q.check, kind: q.kind, expected, got };
  if (sent.status === null) return { ...base, passed: false, detail: sent.error ?? 'no answer' };
  const passed = q.want === '2xx' ? is2xx(sent.status) : q.want === '4xx' ? is4xx(sent.status) : sent.latency_ms <= timeoutMs;
  if (passed) return { ...base, passed, detail: `${q.sent}: answered as it should be` };
  const why = q.want === '4xx' && sent.status >= 500 ? 'a 5xx asks for the request again; ' : '';
  return { ...base, passed, detail: `${q.sent}: answered ${sent.status}; ${why}${q.fix}` };
}

/** Runs the battery, in order, one request at a time; `ok` only when every check passed. Never throws for the receiver's sake. */
export async function probeReceiver(target: ProbeTarget): Promise<ProbeResult> {
  const { url, keys, body, timeoutMs } = target;
  const raw = JSON.stringify(body);
  const genuineId = probeId();
  const ask = async (check: ProbeCheckName, id: string, n: number, text: string, signWith: SigningKeys, ageS = 0) => {
    const headers = { ...deliveryHeaders(id, n, text, signWith, unixNow() - ageS), [PROBE_HEADER]: check };
    const done = target.sending?.(id);
    try {
      return judge(QUESTIONS[check], await post(url, text, headers, timeoutMs), timeoutMs);
    } finally {
      done?.();
    }
  };
  const extra = JSON.stringify({ ...body, [PROBE_UNKNOWN_FIELD]: 'a field added by a later version of the API' });
  const checks: ProbeCheck[] = [];
  checks.push(await ask('valid-delivery', genuineId, 1, raw, keys));
  checks.push(await ask('forged-signature', probeId(), 1, raw, WRONG_KEYS));
  checks.push(await ask('stale-timestamp', probeId(), 1, raw, keys, PROBE_STALE_AGE_S));
  checks.push(await ask('duplicate-delivery', genuineId, 2, raw, keys));
  checks.push(await ask('unknown-field', probeId(), 1, extra, keys));
  checks.push(await ask('answer-time', genuineId, 3, raw, keys));
  return { ok: checks.every((c) => c.passed), url, checks };
}

/** A synthetic Success payout of a merchant, for the probe's body (its ref_id is no payout of the merchant's). */
export function syntheticPayout(merchantId: string, debitFrom: string, now: number): Payout {
  return {
    ref_id: '9000000001',
    merchant_id: merchantId,
    client_ref_id: 'PROBE0000001',
    version: 'v2',
    purpose: 'VENDOR_PAYOUT',
    amount: 100,
    fees: 0,
    tax: 0,
    payment_method: '1001',
    debit_from: debitFrom,
    status: 'Success',
    bank_ref_number: 'PROBE00000000001',
    bank_res_msg: 'Transaction successful (webhook probe)',
    beneficiary: { id: 'BENEPROBE00000000001', name: 'Probe Payee', email_id: 'probe@example.com', mobile_no: '9000000000' },
    account_number: '000000000001',
    ifsc_code: 'HDFC0000001',
    remarks: 'webhook probe',
    created_at: now,
    updated_at: now,
    history: [{ status: 'Success', at: now, bank_res_msg: 'Transaction successful (webhook probe)' }],
    refunded: false,
    rule: 'probe',
    next_step: null,
  };
}

/** The probe's genuine body: a synthetic payout as a V1 or V2 webhook body. */
export function probeBody(payout: Payout, version: ApiVersion): Record<string, unknown> {
  return version === 'v1' ? webhookV1Body(payout) : statusCheckBody(payout);
}

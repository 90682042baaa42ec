/**
 * Behaviour compared, answer by answer: pure functions over what the real service answered (a
 * recorded exchange) and what the sandbox answered to the same request. Not a schema check: the
 * HTTP status, the envelope and its flags, the error code, the message text, the field set and
 * JSON types at every path, enum values, and volatile values (ids, dates, bank references) by the
 * reference's shapes rather than by value. A payout's statuses over the checks of a session are
 * compared apart (sequenceDifferences), since when a status changes is behaviour too.
 */

export const DIFFERENCE_KINDS = [
  'status',
  'envelope',
  'error_code',
  'message',
  'missing_field',
  'extra_field',
  'type',
  'value_shape',
  'sequence',
  'timing',
] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export interface Difference {
  kind: DifferenceKind;
  /** Where in the answer (`data.transaction.status`; empty for the whole answer). */
  path: string;
  recorded: unknown;
  sandbox: unknown;
}

export interface Answer {
  status: number;
  /** The parsed JSON body, or null when there was none (or it was not JSON). */
  body: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What an answer is: the reference's envelope A or B, a success envelope, the checkout API's, or something else. */
export function envelopeOf(body: unknown): 'A' | 'B' | 'success' | 'checkout' | 'none' {
  if (!isObject(body)) return 'none';
  if (body.success === true) return 'success';
  if (body.success === false && 'http_code' in body) return 'A';
  if (body.status === false && isObject(body.error)) return 'B';
  if (typeof body.status === 'boolean') return 'checkout';
  return 'none';
}

/** The flags of an envelope that say how it went. */
const FLAGS = ['success', 'status', 'http_code'] as const;

/** JSON type of a value, as a difference names it. */
function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Fields whose values differ from run to run (ids, times, bank references): compared by the
 * reference's shape (and the sandbox's documented one where the reference shows none), not by
 * value. By the field's name, wherever it is.
 */
export const VOLATILE: Record<string, RegExp> = {
  ref_id: /^[1-9][0-9]{9}$/,
  bank_ref_number: /^([0-9]{12})?$/,
  transaction_date: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
  created_at: /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} (AM|PM)$/,
  timestamp: /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} (AM|PM)$/,
  beneficiary_id: /^[A-Za-z0-9]{20}$/,
  bene_id: /^[A-Za-z0-9]{20}$/,
  verification_id: /^\S+$/,
  reference_id: /^\d+$/,
  payment_id: /^\S+$/,
  rrn: /^\S*$/,
  date: /^\S.*$/,
  signature: /^[0-9a-f]+$/,
};

/** Fields whose value is one of a list the reference gives: compared by value. */
export const ENUMS = new Set(['status', 'payment_method', 'purpose', 'type', 'verification_status', 'source_type', 'transfer_type', 'currency']);

/**
 * Paths compared elsewhere or not at all: a payout's status in a status check is a step of its
 * sequence (sequenceDifferences); a beneficiary's id inside a payout record is its own.
 */
export interface CompareOptions {
  /** Paths (dotted, `data.transaction.purpose`) not compared, nor anything under them. */
  ignore?: string[];
  /** Paths whose value is compared apart (a payout's status over a session). */
  apart?: string[];
}

const joinPath = (base: string, key: string | number) => (base === '' ? String(key) : `${base}.${key}`);
const under = (path: string, roots: string[]) => roots.some((r) => path === r || path.startsWith(`${r}.`));

/** Every difference of behaviour between what the real service answered and what the sandbox did. */
export function compareAnswers(recorded: Answer, sandbox: Answer, options: CompareOptions = {}): Difference[] {
  const ignore = options.ignore ?? [];
  const apart = options.apart ?? [];
  const out: Difference[] = [];
  const add = (kind: DifferenceKind, path: string, r: unknown, s: unknown) => {
    if (!under(path, ignore)) out.push({ kind, path, recorded: r, sandbox: s });
  };
  if (recorded.status !== sandbox.status) add('status', '', recorded.status, sandbox.status);
  const re = envelopeOf(recorded.body);
  const se = envelopeOf(sandbox.body);
  if (re !== se) {
    add('envelope', '', re, se);
    return out;
  }
  const r = recorded.body as Json;
  const s = sandbox.body as Json;
  if (re === 'none') return out;
  for (const flag of FLAGS) if (flag in r && r[flag] !== s[flag] && typeof r[flag] !== 'object') add('envelope', flag, r[flag], s[flag]);
  // Envelope B's error says it once: a message that only repeats error.message is not a second difference.
  let said = false;
  if (re === 'B') {
    const rc = (r.error as Json).code;
    const sc = (s.error as Json).code;
    if (rc !== sc) add('error_code', 'error.code', rc, sc);
    else if ((r.error as Json).message !== (s.error as Json).message) {
      add('message', 'error.message', (r.error as Json).message, (s.error as Json).message);
      said = r.message === (r.error as Json).message && s.message === (s.error as Json).message;
    }
  }
  if (r.message !== s.message && !said) add('message', 'message', r.message, s.message);
  const skip = new Set(['message', 'error.message', 'error.code', ...FLAGS]);
  walk(r, s, '', (kind, path, rv, sv) => {
    if (!skip.has(path) && !under(path, apart)) add(kind, path, rv, sv);
  });
  return out;
}

/** Field set, types, enum values and volatile shapes under two JSON values, path by path. */
function walk(r: unknown, s: unknown, path: string, add: (kind: DifferenceKind, path: string, r: unknown, s: unknown) => void): void {
  if (isObject(r) && isObject(s)) {
    for (const key of Object.keys(r)) {
      const p = joinPath(path, key);
      if (!(key in s)) add('missing_field', p, typeOf(r[key]), undefined);
      else walk(r[key], s[key], p, add);
    }
    for (const key of Object.keys(s)) if (!(key in r)) add('extra_field', joinPath(path, key), undefined, typeOf(s[key]));
    return;
  }
  if (Array.isArray(r) && Array.isArray(s)) {
    for (let i = 0; i < Math.min(r.length, s.length); i++) walk(r[i], s[i], joinPath(path, i), add);
    return;
  }
  const key = path.split('.').pop() ?? '';
  const shape = VOLATILE[key];
  // ref_id is a number in status and webhook bodies and a string in the initialize result: the type matters, the value does not.
  if (typeOf(r) !== typeOf(s)) {
    add('type', path, typeOf(r), typeOf(s));
    return;
  }
  if (shape !== undefined) {
    const rs = shape.test(String(r));
    if (rs && !shape.test(String(s))) add('value_shape', path, r, s);
    return;
  }
  if (ENUMS.has(key) && r !== s) add('value_shape', path, r, s);
}

/** One status check of a payout in a session: when (ms since its initialize) and what each side answered. */
export interface Observation {
  entry: number;
  elapsedMs: number;
  recorded: string;
  sandbox: string;
}

/** The successive statuses of a list of observations (a status repeated is one step). */
export const stepsOf = (xs: string[]): string[] => xs.filter((x, i) => i === 0 || x !== xs[i - 1]);

/**
 * A payout's statuses over the session, compared: the sequence (the successive statuses each side
 * showed at the same elapsed times) and, for each status both showed, when it first appeared.
 * Differences are attached to the first check where the two sides differ.
 */
export function sequenceDifferences(observations: Observation[]): Array<{ entry: number; difference: Difference }> {
  if (observations.length === 0) return [];
  const first = observations.find((o) => o.recorded !== o.sandbox);
  if (first === undefined) return [];
  const out: Array<{ entry: number; difference: Difference }> = [];
  const rec = stepsOf(observations.map((o) => o.recorded));
  const sbx = stepsOf(observations.map((o) => o.sandbox));
  const path = 'data.transaction.status';
  if (rec.join('>') !== sbx.join('>')) {
    out.push({ entry: first.entry, difference: { kind: 'sequence', path, recorded: rec.join(' → '), sandbox: sbx.join(' → ') } });
  }
  const firstSeen = (pick: (o: Observation) => string) => {
    const at = new Map<string, number>();
    for (const o of observations) if (!at.has(pick(o))) at.set(pick(o), o.elapsedMs);
    return at;
  };
  const recAt = firstSeen((o) => o.recorded);
  const sbxAt = firstSeen((o) => o.sandbox);
  for (const [status, ms] of recAt) {
    const theirs = sbxAt.get(status);
    if (theirs !== undefined && theirs !== ms) {
      out.push({
        entry: first.entry,
        difference: {
          kind: 'timing',
          path: `${path}=${status}`,
          recorded: `first seen ${seconds(ms)} after initialize`,
          sandbox: `first seen ${seconds(theirs)} after initialize`,
        },
      });
    }
  }
  return out;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

import { resolve } from 'node:path';
import { VERIFICATION_TYPES, type VerificationType } from '../vocab.js';
import { schemaErrors } from '../contract/validate.js';
import { parseDuration } from '../duration.js';
import { DEFAULT_ERROR_MESSAGES, transportMessage, type ErrorCode } from '../errors.js';
import { readDocument } from '../input-file.js';
import { toPaise, type Paise } from '../money.js';
import type { CheckoutStatus, PaymentMethod, PayoutStatus } from '../store/state.js';
import { PACKAGE_ROOT } from '../version.js';
import { ScenarioSchema, type PayoutMatchFile, type ScenarioFile, type WebhookChaos as WebhookChaosFile } from './schema.js';

/** One of the reference's rate limits: `limit` calls per `windowMs`. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

export const DEFAULT_SCENARIO = resolve(PACKAGE_ROOT, 'scenarios/default.json');

export interface TimelineStep {
  afterMs: number;
  status: PayoutStatus;
  bank_res_msg?: string;
}

/** What happens to an accepted payout: its first status and the steps after it. */
export interface PayoutPlan {
  rule: string;
  initialStatus: 'NEW' | 'Pending';
  steps: TimelineStep[];
}

export interface FaultSpec {
  type: 'error' | 'delay' | 'drop';
  httpCode: number;
  message: string;
  delayMs: number;
  create: boolean;
}

export type PayoutOutcome =
  | { kind: 'reject'; code: ErrorCode; message: string }
  | { kind: 'timeline'; plan: PayoutPlan }
  | { kind: 'fault'; fault: FaultSpec; plan: PayoutPlan };

interface AmountRange {
  min: Paise;
  max: Paise;
}

export interface PayoutMatcher {
  amount?: AmountRange;
  payment_method?: PaymentMethod[];
  account_number?: string;
  ifsc_code?: string;
  beneficiary_name?: string;
  client_ref_id_prefix?: string;
  share?: number;
}

export interface PayoutRule {
  name: string;
  description: string;
  match: PayoutMatcher;
  outcome: PayoutOutcome;
  /** Webhook chaos for this rule's payouts, over the scenario's. */
  chaos: Partial<WebhookChaos> | null;
}

export interface WebhookChaos {
  duplicate: number;
  reorder: boolean;
  delayMs: number;
  wrongSignature: number;
}

export const NO_CHAOS: WebhookChaos = { duplicate: 0, reorder: false, delayMs: 0, wrongSignature: 0 };

export interface CheckoutStep {
  afterMs: number;
  status: CheckoutStatus;
}

/** A scenario file, checked and compiled: durations in ms, amounts in paise. */
export interface Scenario {
  name: string;
  source: string | null;
  payouts: { defaultPlan: PayoutPlan; rules: PayoutRule[] };
  beneficiaries: {
    activationDelayMs: number;
    rules: Array<{ name: string; match: { account_number?: string; ifsc_code?: string; beneficiary_name?: string }; activationMs: number | null }>;
  };
  checkout: {
    defaultTimeline: CheckoutStep[];
    rules: Array<{ name: string; match: { amount?: AmountRange; payment_mode?: string }; timeline: CheckoutStep[] }>;
  };
  verification: { invalid: Record<VerificationType, ReadonlySet<string>> };
  limits: { status_check: RateLimitRule; balance_check: RateLimitRule };
  webhooks: { retryScheduleMs: number[]; timeoutMs: number; chaos: WebhookChaos };
}

export class ScenarioError extends Error {}


const dur = (text: string): number => parseDuration(text) ?? 0;

function compileChaos(c: WebhookChaosFile | undefined): Partial<WebhookChaos> | null {
  if (!c) return null;
  const out: Partial<WebhookChaos> = {};
  if (c.duplicate !== undefined) out.duplicate = c.duplicate;
  if (c.reorder !== undefined) out.reorder = c.reorder;
  if (c.delay !== undefined) out.delayMs = dur(c.delay);
  if (c.wrong_signature !== undefined) out.wrongSignature = c.wrong_signature;
  return out;
}

function amountRange(a: number | { min?: number; max?: number } | undefined): AmountRange | undefined {
  if (a === undefined) return undefined;
  if (typeof a === 'number') return { min: toPaise(a), max: toPaise(a) };
  return { min: toPaise(a.min ?? 0), max: a.max === undefined ? Number.MAX_SAFE_INTEGER : toPaise(a.max) };
}

function compileMatch(m: PayoutMatchFile): PayoutMatcher {
  return {
    amount: amountRange(m.amount),
    payment_method: m.payment_method === undefined ? undefined : ([] as PaymentMethod[]).concat(m.payment_method),
    account_number: m.account_number,
    ifsc_code: m.ifsc_code,
    beneficiary_name: m.beneficiary_name?.toLowerCase(),
    client_ref_id_prefix: m.client_ref_id_prefix,
    share: m.share,
  };
}

function steps(list: Array<{ after: string; status: PayoutStatus; bank_res_msg?: string }>): TimelineStep[] {
  return list.map((s) => ({ afterMs: dur(s.after), status: s.status, bank_res_msg: s.bank_res_msg }));
}

/** Checks what the schema cannot say, and compiles; every problem names its path. */
export function compileScenario(file: ScenarioFile, source: string | null): Scenario {
  const problems: string[] = [];
  const seen = new Set<string>();
  const rules: PayoutRule[] = (file.payouts.rules ?? []).map((r, i) => {
    const at = `/payouts/rules/${i}`;
    if (seen.has(r.name)) problems.push(`${at}/name: must be unique ("${r.name}" is used twice)`);
    seen.add(r.name);
    const outcomes = [r.reject, r.timeline, r.fault].filter((o) => o !== undefined).length;
    if (outcomes !== 1 && !(r.fault && r.timeline && outcomes === 2)) {
      problems.push(`${at}: must have exactly one of reject, timeline or fault (a fault may also carry the created payout's timeline)`);
    }
    if (r.fault?.type === 'error' && r.fault.http_code === undefined) problems.push(`${at}/fault/http_code: is required for an error fault`);
    if (r.fault?.type === 'delay' && r.fault.delay === undefined) problems.push(`${at}/fault/delay: is required for a delay fault`);
    if (r.fault && r.fault.type !== 'error' && !r.fault.create) problems.push(`${at}/fault/create: a ${r.fault.type} fault must create the payout`);
    if (r.reject && r.initial_status) problems.push(`${at}/initial_status: a rejection creates no payout`);
    const plan: PayoutPlan = {
      rule: r.name,
      initialStatus: r.initial_status ?? file.payouts.initial_status ?? 'Pending',
      steps: r.timeline ? steps(r.timeline) : steps(file.payouts.default_timeline),
    };
    let outcome: PayoutOutcome;
    if (r.reject) {
      outcome = { kind: 'reject', code: r.reject.code, message: r.reject.message ?? DEFAULT_ERROR_MESSAGES[r.reject.code] };
    } else if (r.fault) {
      // Only an error fault answers with a status of its own; a delay answers as usual, a drop not at all.
      const httpCode = r.fault.type === 'error' ? (r.fault.http_code ?? 500) : r.fault.type === 'delay' ? 200 : 0;
      outcome = {
        kind: 'fault',
        fault: {
          type: r.fault.type,
          httpCode,
          message: r.fault.message ?? (r.fault.type === 'error' ? transportMessage(httpCode) : ''),
          delayMs: r.fault.delay ? dur(r.fault.delay) : 0,
          create: r.fault.create,
        },
        plan,
      };
    } else {
      outcome = { kind: 'timeline', plan };
    }
    return { name: r.name, description: r.description ?? '', match: compileMatch(r.match), outcome, chaos: compileChaos(r.webhooks) };
  });
  if (problems.length > 0) throw new ScenarioError(problems.map((p) => `${source ?? 'scenario'}: ${p}`).join('\n'));

  const b = file.beneficiaries;
  const c = file.checkout;
  const window = (l: { limit: number; window: string } | undefined, limit: number): RateLimitRule =>
    l ? { limit: l.limit, windowMs: dur(l.window) } : { limit, windowMs: 60_000 };
  return {
    name: file.name,
    source,
    payouts: {
      defaultPlan: { rule: 'default', initialStatus: file.payouts.initial_status ?? 'Pending', steps: steps(file.payouts.default_timeline) },
      rules,
    },
    beneficiaries: {
      activationDelayMs: b ? dur(b.activation_delay) : 10_000,
      rules: (b?.rules ?? []).map((r) => ({
        name: r.name,
        match: { ...r.match, beneficiary_name: r.match.beneficiary_name?.toLowerCase() },
        activationMs: r.activation === 'never' ? null : dur(r.activation),
      })),
    },
    checkout: {
      defaultTimeline: (c?.default_timeline ?? [{ after: '30s', status: 'Success' }]).map((s) => ({ afterMs: dur(s.after), status: s.status })),
      rules: (c?.rules ?? []).map((r) => ({
        name: r.name,
        match: { amount: amountRange(r.match.amount), payment_mode: r.match.payment_mode },
        timeline: r.timeline.map((s) => ({ afterMs: dur(s.after), status: s.status })),
      })),
    },
    verification: {
      invalid: Object.fromEntries(
        VERIFICATION_TYPES.map((t) => [t, new Set((file.verification?.invalid as Record<string, string[]> | undefined)?.[t] ?? [])]),
      ) as unknown as Record<VerificationType, ReadonlySet<string>>,
    },
    limits: {
      status_check: window(file.limits?.status_check, 3),
      balance_check: window(file.limits?.balance_check, 10),
    },
    webhooks: {
      retryScheduleMs: (file.webhooks?.retry_schedule ?? ['10s', '1m', '5m', '30m', '2h']).map(dur),
      timeoutMs: dur(file.webhooks?.timeout ?? '5s'),
      chaos: { ...NO_CHAOS, ...compileChaos(file.webhooks?.chaos) },
    },
  };
}

/** Validates a parsed scenario document (from a file, or inline through the control API). */
export function scenarioFromValue(value: unknown, source: string | null): Scenario {
  const problems = schemaErrors(ScenarioSchema, value);
  if (problems) throw new ScenarioError(problems.map((p) => `${source ?? 'scenario'}: ${p}`).join('\n'));
  return compileScenario(value as ScenarioFile, source);
}

/** Reads a scenario file, JSON or YAML (by extension: .yaml/.yml are YAML). */
export async function loadScenario(file: string): Promise<Scenario> {
  const value = await readDocument(file, 'scenario', (m) => new ScenarioError(m), { yaml: true });
  return scenarioFromValue(value, file);
}

import { DEFAULT_BENEFICIARY_NAME_RULE } from '../contract/schemas.js';
import { parseDuration } from '../duration.js';
import { DEFAULT_ERROR_MESSAGES, transportMessage } from '../errors.js';
import { toPaise } from '../money.js';
import { type PaymentMethod, type PayoutStatus, VERIFICATION_TYPES, type VerificationType } from '../vocab.js';
import { chaosConfig, compileFaults, compileOutages } from './operation-faults.js';
import type { PayoutMatchFile, ScenarioFile, WebhookChaos as WebhookChaosFile } from './schema.js';
import {
  type AmountRange,
  NO_CHAOS,
  type PayoutMatcher,
  type PayoutOutcome,
  type PayoutPlan,
  type PayoutRule,
  type RateLimitRule,
  type Scenario,
  ScenarioError,
  type TimelineStep,
  type WebhookChaos,
} from './types.js';

const dur = (text: string): number => parseDuration(text) ?? 0;

function compileChaos(c: WebhookChaosFile | undefined): Partial<WebhookChaos> | null {
  if (!c) return null;
  const out: Partial<WebhookChaos> = {};
  if (c.duplicate !== undefined) out.duplicate = c.duplicate;
  if (c.reorder !== undefined) out.reorder = c.reorder;
  if (c.delay !== undefined) out.delayMs = dur(c.delay);
  if (c.wrong_signature !== undefined) out.wrongSignature = c.wrong_signature;
  if (c.replay !== undefined) out.replay = c.replay;
  if (c.stale_timestamp !== undefined) out.staleTimestamp = c.stale_timestamp;
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

type StepFile = { after?: string; after_polls?: number; status: PayoutStatus; bank_res_msg?: string };

function steps(list: StepFile[]): TimelineStep[] {
  return list.map((s) => ({
    afterMs: s.after ? dur(s.after) : 0,
    ...(s.after_polls ? { afterPolls: s.after_polls } : {}),
    status: s.status,
    bank_res_msg: s.bank_res_msg,
  }));
}

/** A step has either `after` (time) or `after_polls` (status checks). */
function stepProblems(list: StepFile[] | undefined, at: string): string[] {
  return (list ?? []).flatMap((s, j) =>
    (s.after === undefined) === (s.after_polls === undefined)
      ? [`${at}/${j}: must have exactly one of after (a duration) or after_polls (a number of status checks)`]
      : [],
  );
}

type PayoutRuleFile = NonNullable<ScenarioFile['payouts']['rules']>[number];

/** What the schema cannot say about one payout rule. */
function ruleProblems(r: PayoutRuleFile, at: string): string[] {
  const problems: string[] = [];
  const outcomes = [r.reject, r.timeline, r.fault].filter((o) => o !== undefined).length;
  // A rule with only a lag keeps the default timeline.
  if (outcomes === 0 && r.lag !== undefined) return [];
  if (r.reject && r.lag) problems.push(`${at}/lag: a rejection creates no payout`);
  const a = r.match.amount;
  if (typeof a === 'object' && a.min !== undefined && a.max !== undefined && a.min > a.max) problems.push(`${at}/match/amount: min must not be above max`);
  problems.push(...stepProblems(r.timeline, `${at}/timeline`));
  if (outcomes !== 1 && !(r.fault && r.timeline && outcomes === 2)) {
    problems.push(`${at}: must have exactly one of reject, timeline or fault (a fault may also carry the created payout's timeline)`);
  }
  if (r.fault?.type === 'error' && r.fault.http_code === undefined) problems.push(`${at}/fault/http_code: is required for an error fault`);
  if (r.fault?.type === 'delay' && r.fault.delay === undefined) problems.push(`${at}/fault/delay: is required for a delay fault`);
  if (r.fault && r.fault.type !== 'error' && !r.fault.create) problems.push(`${at}/fault/create: a ${r.fault.type} fault must create the payout`);
  if (r.reject && r.initial_status) problems.push(`${at}/initial_status: a rejection creates no payout`);
  return problems;
}

function compileOutcome(r: PayoutRuleFile, plan: PayoutPlan): PayoutOutcome {
  if (r.reject) return { kind: 'reject', code: r.reject.code, message: r.reject.message ?? DEFAULT_ERROR_MESSAGES[r.reject.code] };
  if (!r.fault) return { kind: 'timeline', plan };
  // Only an error fault answers with a status of its own; a delay answers as usual, a drop not at all.
  const httpCode = r.fault.type === 'error' ? (r.fault.http_code ?? 500) : r.fault.type === 'delay' ? 200 : 0;
  return {
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
}

function compilePayoutRules(file: ScenarioFile, source: string | null): PayoutRule[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const rules = (file.payouts.rules ?? []).map((r, i): PayoutRule => {
    const at = `/payouts/rules/${i}`;
    if (seen.has(r.name)) problems.push(`${at}/name: must be unique ("${r.name}" is used twice)`);
    seen.add(r.name);
    problems.push(...ruleProblems(r, at));
    const lag = r.lag ?? file.payouts.visibility_lag;
    const plan: PayoutPlan = {
      rule: r.name,
      initialStatus: r.initial_status ?? file.payouts.initial_status ?? 'Pending',
      steps: r.timeline ? steps(r.timeline) : steps(file.payouts.default_timeline),
      ...(lag ? { lagMs: dur(lag) } : {}),
    };
    return {
      name: r.name,
      description: r.description ?? '',
      match: compileMatch(r.match),
      outcome: compileOutcome(r, plan),
      chaos: compileChaos(r.webhooks),
      story: r.story ?? null,
    };
  });
  if (problems.length > 0) throw new ScenarioError(problems.map((p) => `${source ?? 'scenario'}: ${p}`).join('\n'));
  return rules;
}

function compileBeneficiaries(b: ScenarioFile['beneficiaries']): Scenario['beneficiaries'] {
  return {
    activationDelayMs: b ? dur(b.activation_delay) : 10_000,
    rules: (b?.rules ?? []).map((r) => ({
      name: r.name,
      match: { ...r.match, beneficiary_name: r.match.beneficiary_name?.toLowerCase() },
      activationMs: r.activation === 'never' ? null : dur(r.activation),
    })),
  };
}

function compileCheckout(c: ScenarioFile['checkout']): Scenario['checkout'] {
  return {
    defaultTimeline: (c?.default_timeline ?? [{ after: '30s', status: 'Success' }]).map((s) => ({ afterMs: dur(s.after), status: s.status })),
    rules: (c?.rules ?? []).map((r) => ({
      name: r.name,
      match: { amount: amountRange(r.match.amount), payment_mode: r.match.payment_mode },
      timeline: r.timeline.map((s) => ({ afterMs: dur(s.after), status: s.status })),
    })),
  };
}

/** Checks what the schema cannot say, and compiles; every problem names its path. */
export function compileScenario(file: ScenarioFile, source: string | null): Scenario {
  const rules = compilePayoutRules(file, source);
  const problems = stepProblems(file.payouts.default_timeline, '/payouts/default_timeline');
  const faults = compileFaults(file, problems);
  const outages = compileOutages(file, problems);
  if (problems.length > 0) throw new ScenarioError(problems.map((p) => `${source ?? 'scenario'}: ${p}`).join('\n'));
  const window = (l: { limit: number; window: string } | undefined, limit: number): RateLimitRule =>
    l ? { limit: l.limit, windowMs: dur(l.window) } : { limit, windowMs: 60_000 };
  return {
    name: file.name,
    source,
    payouts: {
      defaultPlan: {
        rule: 'default',
        initialStatus: file.payouts.initial_status ?? 'Pending',
        steps: steps(file.payouts.default_timeline),
        ...(file.payouts.visibility_lag ? { lagMs: dur(file.payouts.visibility_lag) } : {}),
      },
      rules,
    },
    beneficiaries: compileBeneficiaries(file.beneficiaries),
    checkout: compileCheckout(file.checkout),
    verification: {
      invalid: Object.fromEntries(
        VERIFICATION_TYPES.map((t) => [t, new Set((file.verification?.invalid as Record<string, string[]> | undefined)?.[t] ?? [])]),
      ) as unknown as Record<VerificationType, ReadonlySet<string>>,
    },
    review: { repeatWindowMs: dur(file.review?.repeat_window ?? '1h') },
    validation: { beneficiaryName: file.validation?.beneficiary_name ?? DEFAULT_BENEFICIARY_NAME_RULE },
    limits: {
      status_check: window(file.limits?.status_check, 3),
      balance_check: window(file.limits?.balance_check, 10),
    },
    webhooks: {
      retryScheduleMs: (file.webhooks?.retry_schedule ?? ['10s', '1m', '5m', '30m', '2h']).map(dur),
      timeoutMs: dur(file.webhooks?.timeout ?? '5s'),
      disableAfterMs: dur(file.webhooks?.disable_after ?? '24h'),
      chaos: { ...NO_CHAOS, ...compileChaos(file.webhooks?.chaos) },
    },
    faults,
    chaos: file.chaos ? chaosConfig(file.chaos) : null,
    outages,
  };
}

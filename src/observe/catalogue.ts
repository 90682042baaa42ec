import type { BehaviourId } from '../behaviours.js';
import { AADHAAR_OTP, MAGIC_INVALID } from '../domain/verification/documents.js';
import { AADHAAR_OTP_TTL_MS } from '../domain/verification/verify.js';
import { formatDuration } from '../duration.js';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import type { OperationFault, PayoutRule, Scenario } from '../scenario/scenario.js';
import { CHAOS_MODES } from '../scenario/schema.js';
import { CHECKOUT_STATUSES, FAULT_EFFECTS, type FaultEffect, OUTAGE_EFFECTS, type OutageEffect, PAYOUT_STATUSES, VERIFICATION_TYPES } from '../vocab.js';

/** The catalogue's groups: a report can leave groups a merchant never uses out of its denominator. */
export const COVERAGE_GROUPS = [
  'business errors',
  'payout statuses',
  'idempotency',
  'transport faults',
  'requests',
  'beneficiaries',
  'verification',
  'checkout',
  'webhooks',
] as const;
export type CoverageGroup = (typeof COVERAGE_GROUPS)[number];

/** A group named as on the command line or a query string: `business-errors` or `business errors`. */
export function coverageGroupOf(name: string): CoverageGroup | null {
  const wanted = name.trim().toLowerCase().replace(/[-_]/g, ' ');
  return COVERAGE_GROUPS.find((g) => g === wanted) ?? null;
}

/** One behaviour a merchant integration should be shown to handle. */
export interface CatalogueItem {
  id: BehaviourId;
  group: CoverageGroup;
  description: string;
  /** How to make the sandbox show it: a magic value, a natural condition, a control call. */
  how: string;
}

/** How each business error happens without a magic value (the reference's conditions). */
const NATURAL: Record<ErrorCode, string> = {
  TRANSACTION_LIMIT_EXCEEDED: "an amount over the merchant's per-transaction limit",
  INSUFFICIENT_BALANCE: 'an amount (plus fee and tax) over the VAN balance',
  ACCOUNT_NOT_ACTIVE: 'debit_from an INACTIVE VAN (PATCH /__sandbox/accounts/{no} {"status":"INACTIVE"})',
  TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE: 'IMPS over 200000, or RTGS under 200000',
  INVALID_BENEFICIARY: 'a beneficiary_id that is unknown or still Pending',
  INVALID_TRANSFER_ID: 'only by magic value',
  GENERIC_EXCEPTION: 'a status check of an unknown ref_id',
};

/** "amount 1001.01 (rule 1001.01)", or the rule's name where it matches on something else. */
function trigger(rule: PayoutRule): string {
  const a = rule.match.amount;
  const amount = a && a.min === a.max ? `initialize with amount ${a.min / 100}` : null;
  return `${amount ?? `a payout matching scenario rule ${rule.name}`} (rule ${rule.name})`;
}

function errorItems(s: Scenario): CatalogueItem[] {
  return ERROR_CODES.map((code) => {
    const magic = s.payouts.rules.find((r) => r.outcome.kind === 'reject' && r.outcome.code === code);
    const how = [magic ? trigger(magic) : null, NATURAL[code]].filter((x) => x !== null).join('; or ');
    return { id: `error.${code}` as const, group: 'business errors' as const, description: `envelope B ${code}`, how };
  });
}

function payoutItems(s: Scenario): CatalogueItem[] {
  const timelineRule = (status: string) =>
    s.payouts.rules.find(
      (r) => r.outcome.kind !== 'reject' && (r.outcome.plan.initialStatus === status || r.outcome.plan.steps.some((st) => st.status === status)),
    );
  const plan = s.payouts.defaultPlan;
  const statuses = PAYOUT_STATUSES.map((status) => {
    const rule = timelineRule(status);
    const inline = status === 'NEW' ? 'remarks "sbx:NEW@0s>Pending@5s>Success@5s"' : `remarks "sbx:${status}@5s", then advance 5s`;
    const byDefault =
      plan.initialStatus === status
        ? 'any initialize'
        : plan.steps.some((st) => st.status === status)
          ? 'any initialize, then advance past the default timeline'
          : null;
    const how = [byDefault, rule ? trigger(rule) : null, inline].filter((x) => x !== null).join('; or ');
    return { id: `payout.status.${status}` as const, group: 'payout statuses' as const, description: `a payout seen in ${status}`, how };
  });
  const reversal = s.payouts.rules.find(
    (r) =>
      r.outcome.kind !== 'reject' && r.outcome.plan.steps.some((st, i, all) => st.status === 'Failed' && all.slice(0, i).some((p) => p.status === 'Success')),
  );
  return [
    ...statuses,
    {
      id: 'payout.reversed' as const,
      group: 'payout statuses' as const,
      description: 'Success → Failed: a reversal, refunded',
      how: `${reversal ? `${trigger(reversal)}; or ` : ''}remarks "sbx:Success@5s>Failed@1h"; or POST /__sandbox/payouts/{ref_id}/status {"status":"Failed"} after Success`,
    },
    {
      id: 'payout.duplicate_client_ref_id' as const,
      group: 'idempotency' as const,
      description: 'initialize again with a client_ref_id already used',
      how: 'repeat an initialize with the same client_ref_id',
    },
  ];
}

function faultItems(s: Scenario): CatalogueItem[] {
  return s.payouts.rules
    .filter((r) => r.outcome.kind === 'fault')
    .map((r) => {
      const f = r.outcome.kind === 'fault' ? r.outcome.fault : null;
      const what =
        f?.type === 'error'
          ? `HTTP ${f.httpCode}${f.create ? ' after the payout was created' : ''}`
          : f?.type === 'drop'
            ? 'connection dropped, no answer'
            : 'answer delayed';
      return {
        id: `fault.${r.name}` as const,
        group: 'transport faults' as const,
        description: `${what}${r.description ? ` (${r.description})` : ''}`,
        how: trigger(r),
      };
    });
}

/** Items of one group, as [id, description, how] rows. */
function inGroup(group: CoverageGroup, rows: Array<[id: BehaviourId, description: string, how: string]>): CatalogueItem[] {
  return rows.map(([id, description, how]) => ({ id, group, description, how }));
}

/** `4th`, `11th`, `22nd`: an ordinal for a count. */
function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** `a 4th`, `an 11th`, `an 8th`: the article an ordinal is read with. */
const withArticle = (n: number) => `${/^(8|11|18)(\d{3})*$/.test(String(n)) || /^8/.test(String(n)) ? 'an' : 'a'} ${ordinal(n)}`;

function requestItems(s: Scenario): CatalogueItem[] {
  const { status_check: status, balance_check: balance } = s.limits;
  return inGroup('requests', [
    ['request.validation', 'a request refused for its fields (envelope A 400)', 'leave out a required field, e.g. client_ref_id'],
    ['auth.dashboard', 'wrong dashboard credentials (envelope A 401)', "a wrong x-api-secret with the merchant's email"],
    ['auth.checkout', 'wrong checkout credentials (envelope A 401)', 'a wrong AccessToken with the MerchantId'],
    [
      'ratelimit.status_check',
      'status check rate-limited (429, Retry-After)',
      `${withArticle(status.limit + 1)} status check of one payout within ${formatDuration(status.windowMs)}`,
    ],
    [
      'ratelimit.balance_check',
      'balance check rate-limited (429, Retry-After)',
      `${withArticle(balance.limit + 1)} balance check of one VAN within ${formatDuration(balance.windowMs)}`,
    ],
  ]);
}

function recordItems(): CatalogueItem[] {
  return [
    ...inGroup('beneficiaries', [
      ['beneficiary.pending', 'a beneficiary created Pending', 'create a beneficiary'],
      ['beneficiary.activated', 'a beneficiary turned Active', 'advance past the activation delay, or POST /__sandbox/beneficiaries/{id}/status'],
    ]),
    ...inGroup('verification', [
      ...VERIFICATION_TYPES.flatMap(
        (t): Array<[BehaviourId, string, string]> => [
          [`verification.${t}.valid`, `${t} verified valid`, `verify a well-formed ${t} number`],
          [`verification.${t}.invalid`, `${t} verified invalid (valid: false)`, `verify ${t} number ${MAGIC_INVALID[t]}`],
        ],
      ),
      ['verification.AADHAAR.otp_sent', 'Aadhaar step 1: OTP sent', 'verify AADHAAR with the number alone'],
      ['verification.AADHAAR.otp_wrong', 'Aadhaar step 2 with a wrong OTP', `step 2 with an OTP other than ${AADHAAR_OTP}`],
      [
        'verification.AADHAAR.otp_expired',
        'Aadhaar step 2 after the OTP expired (or an unknown ref_id)',
        `advance ${formatDuration(AADHAAR_OTP_TTL_MS)} between the two steps`,
      ],
    ]),
    ...inGroup(
      'checkout',
      CHECKOUT_STATUSES.map((st): [BehaviourId, string, string] => [
        `checkout.status.${st}`,
        `a checkout transaction seen ${st}`,
        `POST /__sandbox/checkout/transactions, then ${st === 'Initialized' ? 'look it up at once' : `POST …/status {"status":"${st}"} or advance`}`,
      ]),
    ),
  ];
}

function webhookItems(): CatalogueItem[] {
  return inGroup('webhooks', [
    ['webhook.v1', 'a V1 webhook body sent to the merchant', 'a V1 initialize (or webhook_version v1) with a webhook_url'],
    ['webhook.v2', 'a V2 webhook body sent to the merchant', 'a V2 initialize (or webhook_version v2) with a webhook_url'],
    ['webhook.retry', 'a webhook sent again after a failed attempt', 'answer a delivery with a non-2xx'],
    ['webhook.duplicate', 'the same event delivered twice', 'scenario webhooks.chaos.duplicate: 1'],
    ['webhook.reorder', 'deliveries sent newest first', 'scenario webhooks.chaos.reorder: true'],
    ['webhook.bad_signature', 'a delivery with a signature that does not verify', 'scenario webhooks.chaos.wrong_signature: 1'],
    ['webhook.replay', 'a captured delivery sent again unchanged (same delivery id, timestamp and signatures)', 'scenario webhooks.chaos.replay: 1'],
    ['webhook.stale_timestamp', 'a correctly signed delivery whose timestamp is over 10 minutes old', 'scenario webhooks.chaos.stale_timestamp: 1'],
    [
      'webhook.disabled',
      "the merchant's webhook endpoint disabled after its deliveries kept failing",
      'answer every delivery with a 5xx for webhooks.disable_after (24 h) of sandbox time; then POST /__sandbox/merchants/{id}/webhooks/replay',
    ],
  ]);
}

/** The catalogue, derived from the vocabulary, the error codes and the scenario in force. */
export function catalogue(s: Scenario): CatalogueItem[] {
  return [...errorItems(s), ...payoutItems(s), ...faultItems(s), ...operationFaultItems(s), ...requestItems(s), ...recordItems(), ...webhookItems()];
}

const EFFECT_WORDS: Record<FaultEffect, string> = {
  error_500: 'HTTP 500, nothing done',
  error_500_after: 'HTTP 500 after the work was done',
  unavailable_503: 'HTTP 503 with Retry-After, nothing done',
  drop: 'the connection reset, no answer',
  hold: "the answer held on the merchant's clock",
  delay: 'the answer delayed (real time, at most 2 s)',
};

const OUTAGE_WORDS: Record<OutageEffect, string> = {
  reject: 'refused (GENERIC_EXCEPTION, bank unavailable)',
  hold: 'accepted and held Pending until the outage ends',
  unknown: 'accepted, Unknown until the outage ends',
};

/** Faults of any operation (rules and chaos), bank outages, lag and poll-driven payouts: how the scenario in force makes each. */
function operationFaultItems(s: Scenario): CatalogueItem[] {
  const byRule = (effect: FaultEffect) => s.faults.find((f) => f.effect === effect);
  const byRuleText = (f: OperationFault) =>
    `${[...f.operations].join(' or ')}${f.match.length ? ` with ${f.match.map(([p, v]) => `${p.join('.')} ${v}`).join(', ')}` : ''} (fault rule ${f.name})`;
  const chaosText = 'PUT /__sandbox/merchants/{id}/chaos with this mode among its modes';
  const lagRule = s.payouts.rules.find((r) => r.outcome.kind !== 'reject' && r.outcome.plan.lagMs);
  const pollRule = s.payouts.rules.find((r) => r.outcome.kind !== 'reject' && r.outcome.plan.steps.some((st) => st.afterPolls));
  return [
    ...inGroup(
      'transport faults',
      FAULT_EFFECTS.map((e): [BehaviourId, string, string] => {
        const rule = byRule(e);
        const chaos = (CHAOS_MODES as readonly string[]).includes(e) ? chaosText : null;
        return [
          `transport.${e}`,
          `any operation: ${EFFECT_WORDS[e]}`,
          [rule ? byRuleText(rule) : null, chaos, 'a scenario fault rule with this effect'].filter((x) => x !== null).join('; or '),
        ];
      }),
    ),
    ...inGroup(
      'payout statuses',
      OUTAGE_EFFECTS.map((e): [BehaviourId, string, string] => [
        `outage.${e}`,
        `a payout to a bank that is down: ${OUTAGE_WORDS[e]}`,
        `POST /__sandbox/outages {"bank":"HDFC","effect":"${e}"}, then a payout to an HDFC IFSC`,
      ]),
    ),
    ...inGroup('payout statuses', [
      [
        'payout.not_yet_visible',
        'a status check of a payout just made answered "not found" (read-after-write lag)',
        lagRule ? trigger(lagRule) : 'a scenario rule with lag',
      ],
      [
        'payout.moved_by_status_check',
        'a payout moved on by a status check (a poll-driven step)',
        pollRule ? `${trigger(pollRule)}, then status checks` : 'a timeline step with after_polls',
      ],
    ]),
  ];
}

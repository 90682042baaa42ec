import type { Response } from 'express';
import type { Sandbox } from '../admin/sandbox.js';
import { SANDBOX_RULE_HEADER } from '../contract/envelopes.js';
import type { FaultDecision } from '../domain/faults.js';
import { toPaise } from '../money.js';
import { REPEATABLE } from '../observe/review/facts.js';
import type { ReviewFact } from '../store/state.js';
import type { OperationName } from '../vocab.js';

type Input = Record<string, unknown>;

/** What marks an initialize as an intended repeat of a payment (docs/review.md, "Intended repeats"). */
export const REPEAT_MARK = /#repeat\b/i;
const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** To whom an initialize that made no payout would have paid: the account and IFSC (a beneficiary's own, when it names one it has). */
function payeeOf(sb: Sandbox, merchantId: string, input: Input): string {
  if (input.beneficiary_id !== undefined) {
    const b = sb.repo.beneficiary(merchantId, text(input.beneficiary_id));
    return b ? `${b.bank_account_number}@${b.ifsc_code}`.toUpperCase() : `bene:${text(input.beneficiary_id)}`;
  }
  return `${text(input.account_number)}@${text(input.ifsc_code)}`.toUpperCase();
}

/** What a repeat of a request asks for again (for Retry-After): its operation and the id it is about. */
function keyOf(op: OperationName, input: Input): string {
  switch (op) {
    case 'initializePayout':
      return `${op}|${text(input.client_ref_id)}`;
    case 'getPayoutStatus':
      return `${op}|${input.ref_id !== undefined ? `ref_id ${text(input.ref_id)}` : `client_ref_id ${text(input.client_ref_id)}`}`;
    case 'getBalance':
      return `${op}|${text(input.account_no)}`;
    case 'getBeneficiary':
      return `${op}|${text(input.beneficiary_id ?? input.beneficiary_name)}`;
    case 'getVerification':
      return `${op}|${text(input.verification_id)}`;
    case 'getCheckoutStatus':
      return `${op}|${text(input.transaction_id)}`;
    default:
      return op;
  }
}

/**
 * The integration review's fact of a request to the emulated API, once it has ended (answered,
 * or closed without an answer): recorded for requests whose merchant and input were read.
 */
export function recordFact(sb: Sandbox, res: Response): void {
  const locals = res.locals;
  // The call mount.ts made (its Call): the merchant and the input read.
  const call = locals.call as { merchant: { merchant_id: string }; input: Input } | undefined;
  const op = locals.op as OperationName | undefined;
  if (!call || !op || !sb.review.enabled) return;
  const merchantId = call.merchant.merchant_id;
  const input = call.input;
  const status = res.headersSent ? res.statusCode : null;
  const refId = locals.refId as string | undefined;
  const at = (locals.arrivedAt as number | undefined) ?? sb.clocks.now(merchantId);
  const requestId = (res.req as { id?: string }).id ?? text(res.getHeader('X-Request-Id'));
  const key = keyOf(op, input);
  const rule = (res.getHeader(SANDBOX_RULE_HEADER) as string | undefined) || undefined;
  const code = (locals.refusal as { code: string | null } | undefined)?.code ?? undefined;
  const payoutStatus = op === 'getPayoutStatus' && refId && status === 200 ? sb.repo.payout(merchantId, refId)?.status : undefined;
  // A read answered as the one before it (a status polled in a loop) is counted on that fact.
  if (status === 200 && rule === undefined && code === undefined && REPEATABLE.has(op) && sb.review.repeat(merchantId, key, payoutStatus, at, requestId))
    return;
  const initialize = op === 'initializePayout';
  // The payout an initialize made, when it made one: its payee and amount, as it holds them.
  const made = initialize && refId ? sb.repo.payout(merchantId, refId) : undefined;
  const after = status === 429 || status === 503 ? Number(res.getHeader('Retry-After')) : Number.NaN;
  // One object of one shape, every field there (undefined where it does not apply: not written).
  const fact: ReviewFact = {
    seq: 0,
    at,
    real_at: (locals.arrivedReal as number | undefined) ?? Date.now(),
    op,
    request_id: requestId,
    status,
    key,
    code,
    rule,
    transport:
      status === null
        ? locals.held === true || (locals.fault as FaultDecision | undefined)?.effect === 'hold'
          ? 'held'
          : 'drop'
        : status >= 500
          ? 'error'
          : undefined,
    retry_after: Number.isFinite(after) ? after : undefined,
    ref_id: initialize || op === 'getPayoutStatus' ? refId : undefined,
    client_ref_id: initialize ? text(input.client_ref_id) : undefined,
    payee: initialize ? (made ? `${made.account_number}@${made.ifsc_code}`.toUpperCase() : payeeOf(sb, merchantId, input)) : undefined,
    amount: initialize ? (made ? made.amount : toPaise(Number(input.amount))) : undefined,
    bene_status:
      initialize && input.beneficiary_id !== undefined ? (sb.repo.beneficiary(merchantId, text(input.beneficiary_id))?.status ?? 'unknown') : undefined,
    payout_status: payoutStatus,
    intended: initialize && REPEAT_MARK.test(text(input.remarks)) ? true : undefined,
    repeats: undefined,
    last_at: undefined,
    last_request_id: undefined,
  };
  sb.review.record(merchantId, fact);
}

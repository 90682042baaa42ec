import type { Response } from 'express';
import type { Sandbox } from '../admin/sandbox.js';
import { SANDBOX_RULE_HEADER } from '../contract/envelopes.js';
import type { FaultDecision } from '../domain/faults.js';
import { toPaise } from '../money.js';
import type { ReviewFact } from '../store/state.js';
import type { OperationName } from '../vocab.js';
import type { Call } from './mount.js';

type Input = Record<string, unknown>;
const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** To whom an initialize pays: the account and IFSC (a beneficiary's own, when it names one it has). */
function payeeOf(sb: Sandbox, merchantId: string, input: Input, refId: string | undefined): string {
  const made = refId ? sb.repo.payout(merchantId, refId) : undefined;
  if (made) return `${made.account_number}@${made.ifsc_code}`.toUpperCase();
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
  const call = res.locals.call as Call<Input> | undefined;
  const op = res.locals.op as OperationName | undefined;
  if (!call || !op || !sb.review.enabled) return;
  const merchantId = call.merchant.merchant_id;
  const input = call.input;
  const status = res.headersSent ? res.statusCode : null;
  const held = res.locals.held === true || (res.locals.fault as FaultDecision | undefined)?.effect === 'hold';
  const refusal = res.locals.refusal as { code: string | null } | undefined;
  const refId = res.locals.refId as string | undefined;
  const rule = res.getHeader(SANDBOX_RULE_HEADER) as string | undefined;
  const fact: Omit<ReviewFact, 'id' | 'seq'> = {
    merchant_id: merchantId,
    at: (res.locals.arrivedAt as number | undefined) ?? sb.clocks.now(merchantId),
    op,
    request_id: text(res.getHeader('X-Request-Id')),
    status,
    key: keyOf(op, input),
  };
  if (refusal?.code) fact.code = refusal.code;
  if (rule) fact.rule = rule;
  if (status === null) fact.transport = held ? 'held' : 'drop';
  else if (status >= 500) fact.transport = 'error';
  if (status === 429 || status === 503) {
    const after = Number(res.getHeader('Retry-After'));
    if (Number.isFinite(after)) fact.retry_after = after;
  }
  if (op === 'initializePayout') {
    Object.assign(fact, { client_ref_id: text(input.client_ref_id), payee: payeeOf(sb, merchantId, input, refId), amount: toPaise(Number(input.amount)) });
    if (refId) fact.ref_id = refId;
    if (input.beneficiary_id !== undefined) fact.bene_status = sb.repo.beneficiary(merchantId, text(input.beneficiary_id))?.status ?? 'unknown';
  } else if (op === 'getPayoutStatus') {
    fact.asked = input.ref_id !== undefined ? `ref_id:${text(input.ref_id)}` : `client_ref_id:${text(input.client_ref_id)}`;
    if (refId) {
      fact.ref_id = refId;
      if (status === 200) fact.payout_status = sb.repo.payout(merchantId, refId)?.status;
    }
  }
  sb.review.record(fact);
}

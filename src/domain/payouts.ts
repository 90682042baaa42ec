import type { InitializePayoutRequest } from '../contract/schemas.js';
import { BusinessError, FaultError, MESSAGES, RequestError } from '../errors.js';
import { toPaise, taxOn, type Paise } from '../money.js';
import { parseDirective } from '../scenario/directive.js';
import { matchPayoutRule } from '../scenario/match.js';
import type { FaultSpec, PayoutPlan } from '../scenario/scenario.js';
import type { ApiVersion, Merchant, Payout, PaymentMethod } from '../store/state.js';
import type { DomainContext } from './context.js';
import { debitableAccount, requireFunds } from './accounts.js';
import { post } from './ledger.js';
import { startPayoutTimeline } from './lifecycle.js';

/** Allowed amount per payment method, in paise (SPEC 3). `max` null: no upper bound. */
export const PAYMENT_METHOD_RANGES: Record<PaymentMethod, { name: string; min: Paise; max: Paise | null }> = {
  '1001': { name: 'IMPS', min: toPaise(1), max: toPaise(200000) },
  '1002': { name: 'NEFT', min: toPaise(1), max: null },
  '1003': { name: 'RTGS', min: toPaise(200000), max: null },
};

export function rangeText(method: PaymentMethod): string {
  const r = PAYMENT_METHOD_RANGES[method];
  return r.max === null ? `${r.min / 100} and above` : `${r.min / 100} to ${r.max / 100}`;
}

export interface InitializeOutcome {
  payout: Payout;
  /** The rule that decided the outcome: a scenario rule's name, `inline` or `default`. */
  rule: string;
  /** A scripted fault the client sees although the payout was created. */
  fault: FaultSpec | null;
}

/**
 * Initialize payout, V1 or V2: the checks of SPEC 3 in their order after credentials and fields
 * (the scenario's rules at the "magic amounts" step), then the debit, the stored record and its
 * timeline. Synchronous, so nothing can interleave between the balance check and the debit.
 */
export function initializePayout(
  ctx: DomainContext,
  merchant: Merchant,
  req: InitializePayoutRequest,
  version: ApiVersion,
): InitializeOutcome {
  const { repo, clock, random } = ctx;
  const directive = parseDirective(req.remarks);
  if (directive && !directive.ok) throw new RequestError(400, directive.message);
  const account = debitableAccount(repo, merchant, req.debit_from);
  if (repo.payoutByClientRefId(merchant.merchant_id, req.client_ref_id)) {
    throw new BusinessError('GENERIC_EXCEPTION', MESSAGES.duplicateClientRefId);
  }

  const amount = toPaise(req.amount);
  const method = req.payment_method;
  const known = req.beneficiary_id !== undefined ? repo.beneficiary(merchant.merchant_id, req.beneficiary_id) : undefined;
  const rule = matchPayoutRule(
    ctx.scenario(),
    {
      amount,
      payment_method: method,
      account_number: known?.bank_account_number ?? req.account_number ?? '',
      ifsc_code: known?.ifsc_code ?? req.ifsc_code ?? '',
      beneficiary_name: known?.bene_name ?? req.beneficiary_name ?? '',
      client_ref_id: req.client_ref_id,
    },
    random,
  );
  if (rule?.outcome.kind === 'reject') throw new BusinessError(rule.outcome.code, rule.outcome.message, rule.name);
  if (rule?.outcome.kind === 'fault' && !rule.outcome.fault.create) {
    throw new FaultError(rule.outcome.fault.httpCode, rule.outcome.fault.message, rule.name);
  }
  let plan: PayoutPlan = ctx.scenario().payouts.defaultPlan;
  if (rule) plan = rule.outcome.plan;
  if (directive?.ok) plan = directive.plan;

  const range = PAYMENT_METHOD_RANGES[method];
  if (amount < range.min || (range.max !== null && amount > range.max)) {
    throw new BusinessError(
      'TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE',
      `Transaction amount is not compatible with payment mode ${range.name}: allowed ${rangeText(method)}.`,
    );
  }
  if (amount > merchant.per_transaction_limit) {
    throw new BusinessError(
      'TRANSACTION_LIMIT_EXCEEDED',
      `Transaction limit exceeded: the per-transaction limit is ${merchant.per_transaction_limit / 100}. Please retry with a smaller amount.`,
    );
  }

  let beneficiary: Payout['beneficiary'];
  let accountNumber: string;
  let ifsc: string;
  if (req.beneficiary_id !== undefined) {
    if (!known || known.status !== 'Active') throw new BusinessError('INVALID_BENEFICIARY');
    beneficiary = { id: known.bene_id, name: known.bene_name, email_id: known.bene_email, mobile_no: known.bene_mobile_no };
    accountNumber = known.bank_account_number;
    ifsc = known.ifsc_code;
  } else {
    // Inline details are taken as given; the record still names a beneficiary id of its own.
    beneficiary = {
      id: random.unique(() => random.alphanumeric(20), (id) => repo.beneficiaryExists(id)),
      name: req.beneficiary_name ?? '',
      email_id: req.beneficiary_email ?? '',
      mobile_no: req.beneficiary_mobile ?? '',
    };
    accountNumber = req.account_number ?? '';
    ifsc = req.ifsc_code ?? '';
  }

  const fees = merchant.fees[method];
  const tax = taxOn(fees, merchant.tax_rate_percent);
  requireFunds(account, amount + fees + tax);

  const now = clock.now();
  const refId = random.unique(() => random.digits(10), (id) => repo.payoutExists(id));
  const payout: Payout = {
    ref_id: refId,
    merchant_id: merchant.merchant_id,
    client_ref_id: req.client_ref_id,
    version,
    purpose: req.purpose,
    amount,
    fees,
    tax,
    payment_method: method,
    debit_from: account.account_no,
    status: plan.initialStatus,
    bank_ref_number: '',
    bank_res_msg: '',
    beneficiary,
    account_number: accountNumber,
    ifsc_code: ifsc,
    remarks: req.remarks,
    created_at: now,
    updated_at: now,
    history: [{ status: plan.initialStatus, at: now, bank_res_msg: '' }],
    refunded: false,
    rule: plan.rule,
    next_step: null,
  };
  post(account, now, refId, [
    { type: 'payout', amount: -amount, note: `payout ${req.client_ref_id}` },
    { type: 'fee', amount: -fees, note: `fee for payout ${req.client_ref_id}` },
    { type: 'tax', amount: -tax, note: `tax on the fee of payout ${req.client_ref_id}` },
  ]);
  repo.insertPayout(payout);
  startPayoutTimeline(ctx, payout, plan);
  return { payout, rule: plan.rule, fault: rule?.outcome.kind === 'fault' ? rule.outcome.fault : null };
}

/** The caller's payout by ref_id (preferred) or client_ref_id, if there is one. */
export function lookupPayout(ctx: DomainContext, merchant: Merchant, ids: { ref_id?: string; client_ref_id?: string }): Payout | undefined {
  return ids.ref_id !== undefined
    ? ctx.repo.payout(merchant.merchant_id, ids.ref_id)
    : ctx.repo.payoutByClientRefId(merchant.merchant_id, ids.client_ref_id ?? '');
}

/** A looked-up payout, or the reference's not-found failure. */
export function foundPayout(payout: Payout | undefined): Payout {
  if (!payout) throw new BusinessError('GENERIC_EXCEPTION', MESSAGES.transactionNotFound);
  return payout;
}

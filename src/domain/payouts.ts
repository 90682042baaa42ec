import { BusinessError, FaultError, MESSAGES, RequestError } from '../errors.js';
import { type Paise, taxOn, toPaise, toRupees } from '../money.js';
import { type DirectiveResult, parseDirective } from '../scenario/directive.js';
import { matchPayoutRule } from '../scenario/match.js';
import type { FaultSpec, PayoutPlan } from '../scenario/scenario.js';
import type { ApiVersion, Beneficiary, Merchant, PaymentMethod, Payout, Purpose } from '../store/state.js';
import { debitableAccount, requireFunds } from './accounts.js';
import type { DomainContext } from './context.js';
import { post } from './ledger.js';
import { startPayoutTimeline } from './lifecycle.js';
import { outageFor, planUnderOutage } from './outages.js';

/** Allowed amount per payment method, in paise (SPEC 3). `max` null: no upper bound. */
export const PAYMENT_METHOD_RANGES: Record<PaymentMethod, { name: string; min: Paise; max: Paise | null }> = {
  '1001': { name: 'IMPS', min: toPaise(1), max: toPaise(200000) },
  '1002': { name: 'NEFT', min: toPaise(1), max: null },
  '1003': { name: 'RTGS', min: toPaise(200000), max: null },
};

export function rangeText(method: PaymentMethod): string {
  const r = PAYMENT_METHOD_RANGES[method];
  return r.max === null ? `${toRupees(r.min)} and above` : `${toRupees(r.min)} to ${toRupees(r.max)}`;
}

/** What initialize takes, in the domain's terms: the amount in paise. */
export interface PayoutInput {
  client_ref_id: string;
  amount: Paise;
  payment_method: PaymentMethod;
  debit_from: string;
  purpose: Purpose;
  remarks: string;
  beneficiary_id?: string;
  beneficiary_name?: string;
  beneficiary_email?: string;
  beneficiary_mobile?: string;
  account_number?: string;
  ifsc_code?: string;
}

export interface InitializeOutcome {
  payout: Payout;
  /** The rule that decided the outcome: a scenario rule's name, `inline` or `default`. */
  rule: string;
  /** A scripted fault the client sees although the payout was created. */
  fault: FaultSpec | null;
}

/** The scenario's decision for a payout: a rejection or fault is thrown; otherwise its plan. */
function decide(
  ctx: DomainContext,
  req: PayoutInput,
  known: Beneficiary | undefined,
  directive: DirectiveResult | null,
): { plan: PayoutPlan; fault: FaultSpec | null } {
  const rule = matchPayoutRule(
    ctx.scenario(),
    {
      amount: req.amount,
      payment_method: req.payment_method,
      account_number: known?.bank_account_number ?? req.account_number ?? '',
      ifsc_code: known?.ifsc_code ?? req.ifsc_code ?? '',
      beneficiary_name: known?.bene_name ?? req.beneficiary_name ?? '',
      client_ref_id: req.client_ref_id,
    },
    ctx.random,
  );
  if (rule?.outcome.kind === 'reject') throw new BusinessError(rule.outcome.code, rule.outcome.message, rule.name);
  if (rule?.outcome.kind === 'fault' && !rule.outcome.fault.create) {
    throw new FaultError(rule.outcome.fault.httpCode, rule.outcome.fault.message, rule.name);
  }
  let plan: PayoutPlan = ctx.scenario().payouts.defaultPlan;
  if (rule) plan = rule.outcome.plan;
  if (directive?.ok) plan = directive.plan;
  return { plan, fault: rule?.outcome.kind === 'fault' ? rule.outcome.fault : null };
}

/** The payment mode's amount range and the merchant's per-transaction limit. */
function checkAmount(merchant: Merchant, amount: Paise, method: PaymentMethod): void {
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
      `Transaction limit exceeded: the per-transaction limit is ${toRupees(merchant.per_transaction_limit)}. Please retry with a smaller amount.`,
    );
  }
}

type Payee = Pick<Payout, 'beneficiary' | 'account_number' | 'ifsc_code'>;

/** The payee: a registered, Active beneficiary, or the inline details as given. */
function payeeOf(ctx: DomainContext, req: PayoutInput, known: Beneficiary | undefined): Payee {
  if (req.beneficiary_id !== undefined) {
    if (known?.status !== 'Active') throw new BusinessError('INVALID_BENEFICIARY');
    return {
      beneficiary: { id: known.bene_id, name: known.bene_name, email_id: known.bene_email, mobile_no: known.bene_mobile_no },
      account_number: known.bank_account_number,
      ifsc_code: known.ifsc_code,
    };
  }
  // Inline details are taken as given; the record still names a beneficiary id of its own.
  const { random, repo } = ctx;
  return {
    beneficiary: {
      id: random.unique(
        () => random.alphanumeric(20),
        (id) => repo.beneficiaryExists(id),
      ),
      name: req.beneficiary_name ?? '',
      email_id: req.beneficiary_email ?? '',
      mobile_no: req.beneficiary_mobile ?? '',
    },
    account_number: req.account_number ?? '',
    ifsc_code: req.ifsc_code ?? '',
  };
}

/**
 * Initialize payout, V1 or V2: the checks of SPEC 3 in their order after credentials and fields
 * (the scenario's rules at the "magic amounts" step), then the debit, the stored record and its
 * timeline. Synchronous, so nothing can interleave between the balance check and the debit.
 */
export function initializePayout(ctx: DomainContext, merchant: Merchant, req: PayoutInput, version: ApiVersion): InitializeOutcome {
  const { repo, random } = ctx;
  const directive = parseDirective(req.remarks);
  if (directive && !directive.ok) throw new RequestError(400, directive.message);
  const account = debitableAccount(repo, merchant, req.debit_from);
  if (repo.payoutByClientRefId(merchant.merchant_id, req.client_ref_id)) {
    ctx.events.behaviour(merchant.merchant_id, 'payout.duplicate_client_ref_id');
    throw new BusinessError('GENERIC_EXCEPTION', MESSAGES.duplicateClientRefId);
  }
  const known = req.beneficiary_id !== undefined ? repo.beneficiary(merchant.merchant_id, req.beneficiary_id) : undefined;
  const decided = decide(ctx, req, known, directive);
  const { fault } = decided;
  let { plan } = decided;
  const { amount, payment_method: method } = req;
  checkAmount(merchant, amount, method);
  const payee = payeeOf(ctx, req, known);
  const fees = merchant.fees[method];
  const tax = taxOn(fees, merchant.tax_rate_percent);
  requireFunds(account, amount + fees + tax);
  repo.requireRoom(merchant.merchant_id, 'payouts');

  const now = ctx.clocks.now(merchant.merchant_id);
  // The last hop: the payee's bank. A bank that is down refuses, holds or leaves it Unknown.
  const outage = outageFor(ctx, merchant.merchant_id, payee.ifsc_code, method, now);
  if (outage) {
    plan = planUnderOutage(outage, plan, method, now);
    ctx.events.behaviour(merchant.merchant_id, `outage.${outage.effect}`);
  }
  const refId = random.unique(
    () => random.digits(10),
    (id) => repo.payoutExists(id),
  );
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
    ...payee,
    remarks: req.remarks,
    created_at: now,
    updated_at: now,
    history: [{ status: plan.initialStatus, at: now, bank_res_msg: '', real_at: Date.now() }],
    refunded: false,
    rule: plan.rule,
    ...(plan.lagMs ? { visible_at: now + plan.lagMs } : {}),
    initialize_fault: fault && {
      type: fault.type,
      http_code: fault.type === 'error' ? fault.httpCode : null,
      message: fault.type === 'error' ? fault.message : null,
    },
    next_step: null,
  };
  post(repo, account, now, refId, [
    { type: 'payout', amount: -amount, note: `payout ${req.client_ref_id}` },
    { type: 'fee', amount: -fees, note: `fee for payout ${req.client_ref_id}` },
    { type: 'tax', amount: -tax, note: `tax on the fee of payout ${req.client_ref_id}` },
  ]);
  repo.insertPayout(payout);
  startPayoutTimeline(ctx, payout, plan);
  ctx.events.behaviour(merchant.merchant_id, `payout.status.${payout.status}`);
  return { payout, rule: plan.rule, fault };
}

/** The caller's payout by ref_id (preferred) or client_ref_id, if there is one. */
export function lookupPayout(ctx: DomainContext, merchant: Merchant, ids: { ref_id?: string; client_ref_id?: string }): Payout | undefined {
  const p =
    ids.ref_id !== undefined ? ctx.repo.payout(merchant.merchant_id, ids.ref_id) : ctx.repo.payoutByClientRefId(merchant.merchant_id, ids.client_ref_id ?? '');
  // Read-after-write lag: a payout just made is not found yet (by either id) until it is visible.
  if (p?.visible_at !== undefined && ctx.clocks.now(merchant.merchant_id) < p.visible_at) {
    ctx.events.behaviour(merchant.merchant_id, 'payout.not_yet_visible');
    return undefined;
  }
  return p;
}

/** A looked-up payout, or the reference's not-found failure. */
export function foundPayout(payout: Payout | undefined): Payout {
  if (!payout) throw new BusinessError('GENERIC_EXCEPTION', MESSAGES.transactionNotFound);
  return payout;
}

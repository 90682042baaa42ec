import type { CreateBeneficiaryRequest, GetBeneficiaryRequest } from '../contract/schemas.js';
import { MESSAGES, RequestError } from '../errors.js';
import { beneficiaryActivation } from '../scenario/match.js';
import type { Beneficiary, DueItem, Merchant } from '../store/state.js';
import { bankForIfsc } from './banks.js';
import type { DomainContext } from './context.js';

export interface CreateBeneficiaryResult {
  beneficiary: Beneficiary;
  /** False when the merchant already had this account and IFSC: the existing one is returned. */
  created: boolean;
}

/**
 * Create beneficiary. The record starts Pending; `activates_at` is when it becomes Active on its
 * own (the scenario's delay, or a matching rule's), null when a rule says never. The same account
 * number and IFSC again, for the same merchant, returns the existing beneficiary rather than
 * registering a second one.
 */
export function createBeneficiary(ctx: DomainContext, merchant: Merchant, req: CreateBeneficiaryRequest): CreateBeneficiaryResult {
  const { repo, random } = ctx;
  const existing = repo.beneficiaryByAccount(merchant.merchant_id, req.account_number, req.ifsc_code);
  if (existing) return { beneficiary: existing, created: false };
  repo.requireRoom(merchant.merchant_id, 'beneficiaries');
  const now = ctx.clocks.now(merchant.merchant_id);
  const activation = beneficiaryActivation(ctx.scenario(), {
    account_number: req.account_number,
    ifsc_code: req.ifsc_code,
    beneficiary_name: req.beneficiary_name,
  });
  const beneficiary: Beneficiary = {
    bene_id: random.unique(
      () => random.alphanumeric(20),
      (id) => repo.beneficiaryExists(id),
    ),
    merchant_id: merchant.merchant_id,
    bene_name: req.beneficiary_name,
    bene_email: req.beneficiary_email,
    bene_mobile_no: req.beneficiary_mobile,
    bank_name: bankForIfsc(req.ifsc_code) ?? `${req.ifsc_code.slice(0, 4)} Bank`,
    bank_account_number: req.account_number,
    ifsc_code: req.ifsc_code,
    vpa_address: null,
    status: 'Pending',
    created_at: now,
    activates_at: activation.delayMs === null ? null : now + activation.delayMs,
  };
  repo.insertBeneficiary(beneficiary);
  ctx.events.behaviour(merchant.merchant_id, 'beneficiary.pending');
  if (beneficiary.activates_at !== null) {
    ctx.scheduler.schedule('beneficiary_activation', beneficiary.activates_at, { bene_id: beneficiary.bene_id }, merchant.merchant_id);
  }
  return { beneficiary, created: true };
}

/** Pending → Active (scheduled, or forced through the control API); Active stays Active. */
export function activateBeneficiary(ctx: DomainContext, beneficiary: Beneficiary): void {
  if (beneficiary.status === 'Active') return;
  beneficiary.status = 'Active';
  ctx.repo.touch('beneficiaries', beneficiary.bene_id);
  beneficiary.activates_at = ctx.clocks.now(beneficiary.merchant_id);
  ctx.events.behaviour(beneficiary.merchant_id, 'beneficiary.activated');
}

/** The scheduler's handler for a beneficiary activation. */
export function runBeneficiaryActivation(ctx: DomainContext, item: DueItem): void {
  const b = ctx.repo.anyBeneficiary(String(item.payload.bene_id));
  if (b) activateBeneficiary(ctx, b);
}

/** Get beneficiary: by id, or by name (case-insensitive) and account number; own records only. */
export function findBeneficiary(ctx: DomainContext, merchant: Merchant, req: GetBeneficiaryRequest): Beneficiary {
  const { repo } = ctx;
  const found =
    req.beneficiary_id !== undefined
      ? repo.beneficiary(merchant.merchant_id, req.beneficiary_id)
      : repo
          .beneficiariesByAccountNumber(merchant.merchant_id, req.account_number ?? '')
          .find((b) => b.bene_name.toLowerCase() === (req.beneficiary_name ?? '').toLowerCase());
  if (!found) throw new RequestError(400, MESSAGES.beneficiaryNotFound);
  return found;
}

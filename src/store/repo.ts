import { BusinessError } from '../errors.js';
import { own } from '../own.js';
import { type Collection, collectionOf } from './collections.js';
import { PayoutOrder } from './payout-order.js';
import type { AadhaarOtpRequest, Account, Beneficiary, CheckoutTransaction, Merchant, Payout, State, Verification } from './state.js';
import type { Store } from './store.js';

export type RecordKind = 'payouts' | 'beneficiaries' | 'verifications';

/**
 * Lookups over the stored state. Records are kept by id; the indexes here (by email, by
 * client_ref_id) are derived from the state at open and kept current by the insert methods, so
 * every lookup costs the same however much is stored.
 */
export class Repo {
  private merchantByEmail = new Map<string, string>();
  private payoutByClientRef = new Map<string, string>();
  private beneficiariesByAccount = new Map<string, string[]>();
  private counts = new Map<string, Record<RecordKind, number>>();
  private readonly payoutOrder = new PayoutOrder();
  private total = 0;
  private merchants = 0;

  /** `caps`: the most payouts, beneficiaries and verifications (each) per merchant, and (together) in all. */
  constructor(
    readonly store: Store,
    private readonly caps: { perMerchant: number; total: number } = { perMerchant: Infinity, total: Infinity },
  ) {
    this.reindex();
  }

  get state(): State {
    return this.store.state;
  }

  /** Rebuilds the derived indexes; call after records were replaced. */
  reindex(): void {
    for (const index of [this.merchantByEmail, this.payoutByClientRef, this.beneficiariesByAccount, this.counts]) index.clear();
    this.total = 0;
    this.merchants = Object.keys(this.state.merchants).length;
    for (const b of Object.values(this.state.beneficiaries)) this.indexBeneficiary(b);
    for (const p of Object.values(this.state.payouts)) this.indexPayout(p);
    for (const v of Object.values(this.state.verifications)) this.count(v.merchant_id, 'verifications');
    for (const m of Object.values(this.state.merchants)) this.merchantByEmail.set(m.email.toLowerCase(), m.merchant_id);
    this.payoutOrder.rebuild(this.state);
  }

  /**
   * Takes one merchant's entries out of the indexes, before its records are replaced (its reset,
   * a restore of its snapshot): what it holds is found through the store's index of owners, so
   * this costs what the merchant holds, not what the sandbox holds. `indexMerchant` puts them
   * back from its new records.
   */
  forgetMerchant(merchantId: string): void {
    const m = this.merchant(merchantId);
    if (m && this.merchantByEmail.get(m.email.toLowerCase()) === merchantId) this.merchantByEmail.delete(m.email.toLowerCase());
    for (const p of this.recordsOf<Payout>(merchantId, 'payouts')) this.payoutByClientRef.delete(clientRefKey(merchantId, p.client_ref_id));
    for (const b of this.recordsOf<Beneficiary>(merchantId, 'beneficiaries')) this.beneficiariesByAccount.delete(accountKey(merchantId, b.bank_account_number));
    const c = this.counts.get(merchantId);
    if (c) this.total -= c.payouts + c.beneficiaries + c.verifications;
    this.counts.delete(merchantId);
    this.payoutOrder.forget(merchantId);
  }

  /** Puts one merchant's entries in the indexes from its records (after `forgetMerchant` and the records' replacement). */
  indexMerchant(merchantId: string): void {
    const m = this.merchant(merchantId);
    if (m) this.merchantByEmail.set(m.email.toLowerCase(), merchantId);
    for (const b of this.recordsOf<Beneficiary>(merchantId, 'beneficiaries')) this.indexBeneficiary(b);
    const payouts = this.recordsOf<Payout>(merchantId, 'payouts');
    for (const p of payouts) this.indexPayout(p);
    this.payoutOrder.set(merchantId, payouts);
    for (const v of this.recordsOf<Verification>(merchantId, 'verifications')) this.count(v.merchant_id, 'verifications');
  }

  /** The merchant's records of a collection, through the store's index of owners. */
  private recordsOf<R extends { merchant_id: string }>(merchantId: string, c: 'payouts' | 'beneficiaries' | 'verifications' | 'accounts'): R[] {
    return this.store.owners.recordsOf<R>(this.state, merchantId, c);
  }

  /** A payout in the indexes kept beside the state (its client_ref_id, its merchant's count; the order apart). */
  private indexPayout(p: Payout): void {
    this.payoutByClientRef.set(clientRefKey(p.merchant_id, p.client_ref_id), p.ref_id);
    this.count(p.merchant_id, 'payouts');
  }

  private count(merchantId: string, kind: RecordKind): void {
    let c = this.counts.get(merchantId);
    if (!c) this.counts.set(merchantId, (c = { payouts: 0, beneficiaries: 0, verifications: 0 }));
    c[kind] += 1;
    this.total += 1;
  }

  /** How many records of a kind the merchant has. */
  countOf(merchantId: string, kind: RecordKind): number {
    return this.counts.get(merchantId)?.[kind] ?? 0;
  }

  /** Throws (envelope B, the reference's catch-all) when the merchant may not have one more record of a kind. */
  requireRoom(merchantId: string, kind: RecordKind): void {
    if (this.total >= this.caps.total) {
      throw new BusinessError(
        'GENERIC_EXCEPTION',
        `The sandbox holds at most ${this.caps.total} payouts, beneficiaries and verifications in all (--max-records); reset or raise the cap.`,
      );
    }
    if (this.countOf(merchantId, kind) < this.caps.perMerchant) return;
    throw new BusinessError(
      'GENERIC_EXCEPTION',
      `The sandbox keeps at most ${this.caps.perMerchant} ${kind} per merchant (--max-records-per-merchant); reset the merchant or raise the cap.`,
    );
  }

  persist(): Promise<void> {
    return this.store.persist();
  }

  /** Every change to a stored record is told here (inserting, removing, changing in place): the change log writes it. */
  touch(c: Collection, id: string): void {
    this.store.changed(c, id);
  }

  /** Stores a record under `id` in place of any there (the derived indexes: see reindex). */
  put(c: Collection, id: string, record: unknown): void {
    const records = collectionOf(this.state, c);
    if (c === 'merchants' && !Object.hasOwn(records, id)) this.merchants++;
    records[id] = record;
    this.touch(c, id);
  }

  remove(c: Collection, id: string): void {
    const records = collectionOf(this.state, c);
    // Whose it was, told with the removal (see Owners): it is not there to say afterwards.
    const owner = (records[id] as { merchant_id?: unknown } | undefined)?.merchant_id;
    if (c === 'merchants' && Object.hasOwn(records, id)) this.merchants--;
    delete records[id];
    this.store.changed(c, id, typeof owner === 'string' ? owner : undefined);
  }

  merchant(merchantId: string): Merchant | undefined {
    return own(this.state.merchants, merchantId);
  }

  merchantByEmailAddress(email: string): Merchant | undefined {
    const id = this.merchantByEmail.get(email.toLowerCase());
    return id === undefined ? undefined : this.merchant(id);
  }

  allMerchants(): Merchant[] {
    return Object.values(this.state.merchants);
  }

  /** How many merchants are stored, without reading them (the merchant cap's count, on every creation). */
  merchantCount(): number {
    return this.merchants;
  }

  insertMerchant(m: Merchant): void {
    this.put('merchants', m.merchant_id, m);
    this.merchantByEmail.set(m.email.toLowerCase(), m.merchant_id);
  }

  /** The merchant's own account, or undefined (unknown and foreign look the same). */
  account(merchantId: string, accountNo: string): Account | undefined {
    const a = own(this.state.accounts, accountNo);
    return a && a.merchant_id === merchantId ? a : undefined;
  }

  insertAccount(a: Account): void {
    this.put('accounts', a.account_no, a);
  }

  beneficiary(merchantId: string, beneId: string): Beneficiary | undefined {
    const b = own(this.state.beneficiaries, beneId);
    return b && b.merchant_id === merchantId ? b : undefined;
  }

  beneficiaryExists(beneId: string): boolean {
    return own(this.state.beneficiaries, beneId) !== undefined;
  }

  insertBeneficiary(b: Beneficiary): void {
    this.put('beneficiaries', b.bene_id, b);
    this.indexBeneficiary(b);
  }

  private indexBeneficiary(b: Beneficiary): void {
    this.count(b.merchant_id, 'beneficiaries');
    const key = accountKey(b.merchant_id, b.bank_account_number);
    const ids = this.beneficiariesByAccount.get(key);
    if (ids) ids.push(b.bene_id);
    else this.beneficiariesByAccount.set(key, [b.bene_id]);
  }

  /** The merchant's beneficiaries with this bank account number (any IFSC). */
  beneficiariesByAccountNumber(merchantId: string, accountNumber: string): Beneficiary[] {
    const ids = this.beneficiariesByAccount.get(accountKey(merchantId, accountNumber)) ?? [];
    return ids.map((id) => this.state.beneficiaries[id]);
  }

  beneficiaryByAccount(merchantId: string, accountNumber: string, ifsc: string): Beneficiary | undefined {
    return this.beneficiariesByAccountNumber(merchantId, accountNumber).find((b) => b.ifsc_code === ifsc);
  }

  payout(merchantId: string, refId: string): Payout | undefined {
    const p = own(this.state.payouts, refId);
    return p && p.merchant_id === merchantId ? p : undefined;
  }

  payoutByClientRefId(merchantId: string, clientRefId: string): Payout | undefined {
    const refId = this.payoutByClientRef.get(clientRefKey(merchantId, clientRefId));
    return refId === undefined ? undefined : this.payout(merchantId, refId);
  }

  payoutExists(refId: string): boolean {
    return own(this.state.payouts, refId) !== undefined;
  }

  insertPayout(p: Payout): void {
    this.put('payouts', p.ref_id, p);
    this.indexPayout(p);
    this.payoutOrder.add(p);
  }

  /** The merchant's payout ids, oldest first (for lists). */
  payoutIdsOf(merchantId: string): readonly string[] {
    return this.payoutOrder.of(merchantId);
  }

  verification(merchantId: string, verificationId: string): Verification | undefined {
    const v = own(this.state.verifications, verificationId);
    return v && v.merchant_id === merchantId ? v : undefined;
  }

  verificationExists(verificationId: string): boolean {
    return own(this.state.verifications, verificationId) !== undefined;
  }

  insertVerification(v: Verification): void {
    this.put('verifications', v.verification_id, v);
    this.count(v.merchant_id, 'verifications');
  }

  aadhaarOtp(merchantId: string, refId: string): AadhaarOtpRequest | undefined {
    const r = own(this.state.aadhaar_otps, refId);
    return r && r.merchant_id === merchantId ? r : undefined;
  }

  aadhaarOtpExists(refId: string): boolean {
    return own(this.state.aadhaar_otps, refId) !== undefined;
  }

  insertAadhaarOtp(r: AadhaarOtpRequest): void {
    this.put('aadhaar_otps', r.ref_id, r);
  }

  deleteAadhaarOtp(refId: string): void {
    this.remove('aadhaar_otps', refId);
  }

  /** Lookups of any merchant's records: for the sandbox itself (scheduler, control API), never for a merchant's request. */
  anyPayout(refId: string): Payout | undefined {
    return own(this.state.payouts, refId);
  }

  anyAccount(accountNo: string): Account | undefined {
    return own(this.state.accounts, accountNo);
  }

  anyBeneficiary(beneId: string): Beneficiary | undefined {
    return own(this.state.beneficiaries, beneId);
  }

  /** A merchant's accounts, ACTIVE ones first (for the banner, startSandbox and the control API). */
  accountsOf(merchantId: string): Account[] {
    return this.recordsOf<Account>(merchantId, 'accounts').sort((a, b) => Number(b.status === 'ACTIVE') - Number(a.status === 'ACTIVE'));
  }

  anyCheckoutTransaction(paymentId: string): CheckoutTransaction | undefined {
    return own(this.state.checkout_transactions, paymentId);
  }

  checkoutTransaction(merchantId: string, paymentId: string): CheckoutTransaction | undefined {
    const t = own(this.state.checkout_transactions, paymentId);
    return t && t.merchant_id === merchantId ? t : undefined;
  }
}

function accountKey(merchantId: string, accountNumber: string): string {
  return `${merchantId}\u0000${accountNumber}`;
}

function clientRefKey(merchantId: string, clientRefId: string): string {
  return `${merchantId}\u0000${clientRefId}`;
}

import { toRupees } from '../money.js';
import type { Payout } from '../store/state.js';
import { formatDisplayTime, formatTransactionDate } from '../time.js';

/** The reference's payout transaction record (status check and webhook body): `ref_id` a number. */
export function payoutRecord(p: Payout) {
  return {
    ref_id: Number(p.ref_id),
    client_ref_id: p.client_ref_id,
    purpose: p.purpose,
    amount: toRupees(p.amount),
    fees: toRupees(p.fees),
    tax: toRupees(p.tax),
    type: 'Debit',
    status: p.status,
    payment_method: p.payment_method,
    bank_ref_number: p.bank_ref_number,
    bank_res_msg: p.bank_res_msg,
    beneficiary: { ...p.beneficiary },
    transaction_date: formatTransactionDate(p.updated_at),
    created_at: formatDisplayTime(p.created_at),
  };
}
export type PayoutRecord = ReturnType<typeof payoutRecord>;

/** The reference's payout initialize result: `ref_id` a string. */
export function initializeResult(p: Payout) {
  return { ref_id: p.ref_id, client_ref_id: p.client_ref_id, status: p.status };
}

// Orders as the merchant's shop creates them: one payee per customer, the order id as client_ref_id.

export const RAVI = { beneficiary_name: 'Ravi Kumar', beneficiary_email: 'ravi@example.com', account_number: '50100012345678', ifsc_code: 'HDFC0001234' };
export const ANITA = { beneficiary_name: 'Anita Desai', beneficiary_email: 'anita@example.com', account_number: '001234567890', ifsc_code: 'ICIC0001234' };
export const VIKRAM = { beneficiary_name: 'Vikram Rao', beneficiary_email: 'vikram@example.com', account_number: '123456789012', ifsc_code: 'SBIN0004321' };

/** A payout order: IMPS from the merchant's first VAN to the payee, with an order id of its own. */
export function order(sb, clientRefId, amount, payee = RAVI, extra = {}) {
  return {
    client_ref_id: clientRefId,
    amount,
    payment_method: '1001',
    debit_from: sb.merchant.accounts[0],
    ...payee,
    purpose: 'VENDOR_PAYOUT',
    remarks: `order ${clientRefId}`.slice(0, 50),
    ...extra,
  };
}

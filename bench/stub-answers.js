// The answers the stateless servers of bench/http.js give (bare Express and the peers' method,
// bench/bare-express.js and bench/bare-node.js): JSON bodies like the sandbox's, for the status
// check, the balance check and initialize V2.
export const STATUS = {
  success: true,
  http_code: 200,
  message: 'Transaction status fetched successfully',
  data: {
    transaction: {
      ref_id: 1234567890,
      client_ref_id: 'CREF000001',
      purpose: 'VENDOR_PAYOUT',
      amount: 100,
      fees: 5,
      tax: 0.9,
      type: 'Debit',
      status: 'Pending',
      payment_method: '1001',
      bank_ref_number: '',
      bank_res_msg: '',
      beneficiary: { id: 'ABCDEFGHIJ0123456789', name: 'Payee One', email_id: 'payee@example.com', mobile_no: '9876543210' },
      transaction_date: '2026-01-01 09:00:00',
      created_at: '01/01/2026 09:00:00 AM',
    },
  },
};

export const BALANCE = { success: true, http_code: 200, message: 'Balance fetched successfully', data: { current_balance: 1000000 } };

/** Initialize's answer for a client_ref_id. */
export const initialized = (clientRefId) => ({
  success: true,
  http_code: 200,
  message: 'Payout initiated successfully',
  data: { ref_id: '1234567890', client_ref_id: clientRefId, status: 'Pending' },
});

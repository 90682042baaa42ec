// The baseline of bench/http.js: bare Express 5 answering a JSON body like the status check's,
// with the same body parsers, on 127.0.0.1. Prints its port on stdout.
import express from 'express';

const body = {
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
const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.use(express.json({ limit: '100kb' }));
app.use(express.urlencoded({ extended: true, limit: '100kb' }));
app.get('/api/v1/public/payment/transfer/status', (_req, res) => res.json(body));
app.get('/api/v1/public/balance/check', (_req, res) =>
  res.json({ success: true, http_code: 200, message: 'Balance fetched successfully', data: { current_balance: 1000000 } }),
);
app.post('/api/v2/public/payment/transfer', (req, res) =>
  res.json({
    success: true,
    http_code: 200,
    message: 'Payout initiated successfully',
    data: { ref_id: '1234567890', client_ref_id: req.body.client_ref_id, status: 'Pending' },
  }),
);
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

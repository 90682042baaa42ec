// The peers' method in bench/http.js: what a stub server (WireMock, MockServer, Prism) does for a
// stubbed call, a pre-serialised body answered from node:http with no framework, no parsing of the
// request body (it is read and dropped) and no state. Not a baseline the sandbox is held to: it
// shows the headroom between a framework's app and the bare runtime. Prints its port on stdout.
import { createServer } from 'node:http';

const json = (body) => Buffer.from(JSON.stringify(body));
const STATUS = json({
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
});
const BALANCE = json({ success: true, http_code: 200, message: 'Balance fetched successfully', data: { current_balance: 1000000 } });
const INITIALIZE = json({
  success: true,
  http_code: 200,
  message: 'Payout initiated successfully',
  data: { ref_id: '1234567890', client_ref_id: 'CREF000001', status: 'Pending' },
});
const ROUTES = new Map([
  ['GET /api/v1/public/payment/transfer/status', STATUS],
  ['GET /api/v1/public/balance/check', BALANCE],
  ['POST /api/v2/public/payment/transfer', INITIALIZE],
]);
const server = createServer((req, res) => {
  const q = req.url.indexOf('?');
  const body = ROUTES.get(`${req.method} ${q < 0 ? req.url : req.url.slice(0, q)}`);
  req.resume();
  req.on('end', () => {
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body ? body.length : 0 });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

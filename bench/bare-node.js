// The peers' method in bench/http.js: what a stub server (WireMock, MockServer, Prism) does for a
// stubbed call, a pre-serialised body answered from node:http with no framework, no parsing of the
// request body (it is read and dropped) and no state. Not a baseline the sandbox is held to: it
// shows the headroom between a framework's app and the bare runtime. Prints its port on stdout.
import { createServer } from 'node:http';
import { BALANCE as BALANCE_ANSWER, initialized, STATUS as STATUS_ANSWER } from './stub-answers.js';

const json = (body) => Buffer.from(JSON.stringify(body));
const STATUS = json(STATUS_ANSWER);
const BALANCE = json(BALANCE_ANSWER);
const INITIALIZE = json(initialized('CREF000001'));
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

// The baseline of bench/http.js: bare Express 5 answering a JSON body like the status check's,
// with the same body parsers, on 127.0.0.1. Prints its port on stdout.
import express from 'express';
import { BALANCE, initialized, STATUS } from './stub-answers.js';

const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.use(express.json({ limit: '100kb' }));
app.use(express.urlencoded({ extended: true, limit: '100kb' }));
app.get('/api/v1/public/payment/transfer/status', (_req, res) => res.json(STATUS));
app.get('/api/v1/public/balance/check', (_req, res) => res.json(BALANCE));
app.post('/api/v2/public/payment/transfer', (req, res) => res.json(initialized(req.body.client_ref_id)));
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

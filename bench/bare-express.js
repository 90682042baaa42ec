// The baseline of bench/http.js: bare Express 5 answering a JSON body like the status check's,
// with the same body parsers, on 127.0.0.1. Prints its port on stdout.
// With --server-classes, its server makes requests and responses with Express's prototypes, as
// the sandbox's does (dist/listen.js expressClasses; docs/performance.md): not the baseline, a
// comparison of what that one setting buys any Express app.
import { createServer } from 'node:http';
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
// The sandbox's module is loaded only for that comparison: the baseline loads nothing of the sandbox.
const server = process.argv.includes('--server-classes') ? createServer((await import('../dist/listen.js')).expressClasses(app), app) : createServer(app);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

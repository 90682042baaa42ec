import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command, InvalidArgumentError } from 'commander';
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { dashboardFiles } from '../http/control/dashboard.js';
import { readOnlySurfaceGuard } from '../http/guard.js';
import { traceHar } from '../observe/har.js';
import { readTrace, TRACE_LAST_MAX, type Trace, type TraceRequest, viewOfTrace } from '../observe/trace.js';
import { VERSION } from '../version.js';
import { EXIT, parseVerb } from './http.js';

/**
 * `payout-sandbox show-trace FILE [--port N]`: the dashboard, read-only, over a trace file
 * (docs/trace.md), with no sandbox behind it. A small server on 127.0.0.1 only: the dashboard's
 * files, and the control API's GET routes the dashboard uses, answered from the trace; every
 * write answers 405. `GET /__sandbox/health` says `readonly: true`, and the page hides its
 * controls. A file that is not a trace, of a newer version, or cut short: exit 2, naming the file
 * and the problem.
 */

export const DEFAULT_VIEWER_PORT = 4020;

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('must be a whole number from 0 to 65535 (0 picks a free one).');
  return n;
}

function program(): Command {
  return new Command('payout-sandbox show-trace')
    .description('Opens a trace (GET /__sandbox/merchants/{id}/trace, or --trace-dir) in the dashboard, read-only, on 127.0.0.1.')
    .argument('<file>', 'a trace file: <merchant_id>.trace.json')
    .option('--port <n>', `port on 127.0.0.1 (0 picks a free one)`, port, DEFAULT_VIEWER_PORT)
    .helpOption('-h, --help', 'this help')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run payout-sandbox show-trace --help for the options)');
}

/** A list's query parameters, as the control API reads them. */
const str = (req: Request, name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
const limitOf = (req: Request, fallback: number) => {
  const n = Number(str(req, 'limit') ?? fallback);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};

/** A trace request as a journal entry (`GET /__sandbox/requests`), its exchange beside it. */
const entryOf = (r: TraceRequest, merchantId: string) => ({ ...r, merchant_id: merchantId, api: 'emulated' as const });

/**
 * The read-only control API over one trace: what the dashboard asks for, answered as the
 * sandbox answers it (shapes from src/admin), or an empty list where a trace holds nothing of
 * the kind (beneficiaries, snapshots, demos, outages).
 */
export function viewerApp(trace: Trace, file: string, text: string | null = null): Express {
  // The whole trace as it was read, encoded once: sent as it is, not serialized again.
  const whole = text === null ? null : Buffer.from(text);
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  const id = trace.merchant.merchant_id;
  const C = '/__sandbox';
  const byRef = new Map(trace.payouts.map((p) => [p.ref_id, p]));
  const newestFirst = <T>(xs: T[]) => [...xs].reverse();
  const deliveriesOf = (ref?: string) => newestFirst(trace.deliveries.filter((d) => ref === undefined || d.ref_id === ref));
  const notFound = (res: Response, what: string) => res.status(404).json({ error: `${what} (this is a trace of merchant ${id}: ${file}).` });
  const merchantOnly = (req: Request, res: Response): boolean => {
    if (req.params.merchant_id === id) return true;
    notFound(res, `No merchant ${req.params.merchant_id} in this trace`);
    return false;
  };
  const get = (path: string, answer: (req: Request, res: Response) => unknown) =>
    app.get(`${C}${path}`, (req, res) => {
      const body = answer(req, res);
      if (!res.headersSent) res.json(body);
    });

  // The viewer runs beside a browser too: only its own page and tools (http/guard.ts).
  app.use(readOnlySurfaceGuard({ host: '127.0.0.1', allowedHosts: [] }));
  app.use(`${C}/ui`, dashboardFiles());
  get('/health', () => ({
    ok: true,
    version: VERSION,
    readonly: true,
    trace: { file, merchant_id: id, generated_at: trace.generated_at, sandbox_version: trace.sandbox.version, ref_id: trace.ref_id ?? null, cut: trace.cut },
  }));
  get('/merchants', () => ({
    merchants: [{ ...trace.merchant, headers: {}, webhook_secret: null, payouts: trace.payouts.length }],
  }));
  get('/clock', () => ({ now: trace.merchant.clock.now, mode: trace.merchant.clock.mode, speed: trace.merchant.clock.speed }));
  get('/merchants/:merchant_id/clock', (req, res) => merchantOnly(req, res) && trace.merchant.clock);
  get('/merchants/:merchant_id/payouts', (req, res) => {
    if (!merchantOnly(req, res)) return;
    const [status, mode, van] = [str(req, 'status'), str(req, 'mode'), str(req, 'van')];
    const limit = Math.min(200, limitOf(req, 50));
    const all = trace.payouts;
    const page = [];
    let i = Math.min(all.length, Number(str(req, 'cursor') ?? all.length)) - 1;
    for (; i >= 0 && page.length < limit; i--) {
      const p = all[i];
      if ((status && p.transaction.status !== status) || (mode && p.transaction.payment_method !== mode) || (van && p.debit_from !== van)) continue;
      page.push({ ...p.transaction, debit_from: p.debit_from, rule: p.rule, version: p.version });
    }
    return { merchant_id: id, total: all.length, payouts: page, next: i >= 0 ? i + 1 : null };
  });
  get('/payouts/:ref_id', (req, res) => {
    const p = byRef.get(req.params.ref_id as string);
    return p ? { ...p, deliveries: deliveriesOf(p.ref_id) } : notFound(res, `No payout ${req.params.ref_id} in this trace`);
  });
  for (const [kind, key] of [
    ['beneficiaries', 'beneficiaries'],
    ['verifications', 'verifications'],
    ['checkout', 'transactions'],
  ] as const) {
    get(`/merchants/:merchant_id/${kind}`, (req, res) => merchantOnly(req, res) && { [key]: [] });
  }
  get(
    '/accounts/:account_no/ledger',
    (req, res) => trace.ledger.find((l) => l.account_no === req.params.account_no) ?? notFound(res, `No account ${req.params.account_no}`),
  );
  get('/demos', () => ({ scenario: trace.sandbox.scenario, demos: [] }));
  get('/snapshots', () => ({ snapshots: [] }));
  get('/outages', () => ({ outages: [] }));
  get('/merchants/:merchant_id/chaos', (req, res) => merchantOnly(req, res) && { merchant_id: id, source: 'none', percent: 0 });
  // A trace holds the emulated API's requests only: `include=control` adds none.
  get('/requests', (req) => {
    const merchant = str(req, 'merchant_id');
    const refused = str(req, 'refused') === 'true';
    const rows = merchant !== undefined && merchant !== id ? [] : newestFirst(trace.requests).filter((r) => !refused || r.status === null || r.status >= 400);
    return { requests: rows.slice(0, limitOf(req, 100)).map((r) => entryOf(r, id)) };
  });
  get('/requests/:request_id', (req, res) => {
    const r = trace.requests.find((x) => x.request_id === req.params.request_id);
    return r ? entryOf(r, id) : notFound(res, `No request ${req.params.request_id} in this trace`);
  });
  const review = () => trace.review ?? { merchant_id: id, summary: { high: 0, medium: 0, low: 0 }, findings: [], rules: [] };
  get('/review', () => review());
  get('/merchants/:merchant_id/review', (req, res) => merchantOnly(req, res) && review());
  get('/coverage', () => trace.coverage);
  get('/merchants/:merchant_id/coverage', (req, res) => merchantOnly(req, res) && trace.coverage);
  get('/webhooks', (req) => {
    const merchant = str(req, 'merchant_id');
    const list = merchant !== undefined && merchant !== id ? [] : deliveriesOf(str(req, 'ref_id'));
    return { deliveries: list.slice(0, limitOf(req, 100)) };
  });
  get('/merchants/:merchant_id/webhooks/endpoint', (req, res) => merchantOnly(req, res) && trace.webhook_endpoint);
  get('/merchants/:merchant_id/webhooks/probes', (req, res) => merchantOnly(req, res) && { probes: newestFirst(trace.probes) });
  get('/merchants/:merchant_id/trace', (req, res) => {
    if (!merchantOnly(req, res)) return;
    const ref = str(req, 'ref_id');
    const format = str(req, 'format');
    // ?last=N: the newest N of each list (the dashboard's Sequence tab pages with it), as the sandbox answers it.
    const asked = str(req, 'last') ?? '';
    const last = /^[1-9]\d*$/.test(asked) && Number(asked) <= TRACE_LAST_MAX ? Number(asked) : undefined;
    if (ref === undefined && format !== 'har' && last === undefined && whole !== null) return res.type('json').send(whole);
    const t = viewOfTrace(trace, { ref_id: ref, last });
    if (!t) return notFound(res, `No payout ${ref} in this trace`);
    return format === 'har' ? traceHar(t) : t;
  });
  // Nothing changes in a trace: no change stream, and every write refused.
  app.get(`${C}/events`, (_req, res) => {
    res.status(404).json({ error: 'A trace does not change: no event stream.' });
  });
  app.all(/.*/, (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .status(405)
        .set('Allow', 'GET, HEAD')
        .json({ error: `Read-only: this is a trace (${file}) shown by payout-sandbox show-trace; ${req.method} ${req.path} changes nothing here.` });
      return;
    }
    if (req.path === '/' || req.path === C) {
      res.redirect(`${C}/ui#/m/${encodeURIComponent(id)}/sequence`);
      return;
    }
    notFound(res, `A trace viewer has no ${req.path}`);
  });
  app.use(errorAnswer(file));
  return app;
}

/**
 * The viewer's last handler: Express's own answers an HTML page with the stack trace. An error
 * that is the request's (a 4xx a middleware set, a malformed path) keeps its status; anything else
 * is the viewer's fault, a JSON 500 naming the file, the stack printed to stderr only.
 */
function errorAnswer(file: string): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    const e = err as { status?: unknown; statusCode?: unknown; message?: unknown } | null;
    const status = Number(e?.status ?? e?.statusCode);
    if (Number.isInteger(status) && status >= 400 && status < 500) {
      res.status(status).json({ error: typeof e?.message === 'string' && e.message !== '' ? e.message : 'The request could not be read.' });
      return;
    }
    process.stderr.write(`payout-sandbox show-trace: ${req.method} ${req.path} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    res.status(500).json({ error: `The trace viewer could not answer ${req.method} ${req.path} from ${file} (its console says why).` });
  };
}

/** Reads and checks a trace file: the trace and its text, or null once the problem is said (naming the file). */
async function load(file: string): Promise<{ trace: Trace; text: string } | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`payout-sandbox show-trace: ${file}: cannot read it (${e.code === 'ENOENT' ? 'no such file' : e.message})\n`);
    return null;
  }
  const read = readTrace(text);
  if ('problem' in read) {
    process.stderr.write(`payout-sandbox show-trace: ${file}: ${read.problem}\n`);
    return null;
  }
  return { trace: read.trace, text };
}

function listen(app: Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1');
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

/** Runs the verb (`args`: the words after `show-trace`): a code to exit with, or null while it serves (until SIGINT/SIGTERM). */
export async function showTrace(args: string[]): Promise<number | null> {
  const cmd = program();
  const parsed = parseVerb(cmd, args);
  if (parsed !== null) return parsed;
  const file = cmd.args[0];
  const loaded = await load(file);
  if (!loaded) return EXIT.usage;
  const { trace } = loaded;
  let server: Server;
  try {
    server = await listen(viewerApp(trace, file, loaded.text), cmd.opts<{ port: number }>().port);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? `port ${cmd.opts().port} on 127.0.0.1 is in use: choose another with --port N (0 picks a free one)` : e.message;
    process.stderr.write(`payout-sandbox show-trace: cannot listen: ${why}\n`);
    return 1;
  }
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const id = trace.merchant.merchant_id;
  const cut = trace.cut.length > 0 ? `\n  Cut:        ${trace.cut.map((c) => `${c.left_out} ${c.part} (${c.why})`).join('; ')}` : '';
  process.stdout.write(
    `payout-sandbox ${VERSION}: trace viewer (read-only)\n` +
      `  Trace:      ${file}\n` +
      `  Merchant:   ${trace.merchant.name} (${id}): ${trace.requests.length} requests, ${trace.payouts.length} payouts, ${trace.deliveries.length} webhook deliveries\n` +
      `  Made:       ${trace.generated_at} by payout-sandbox ${trace.sandbox.version}${cut}\n` +
      `  Dashboard:  ${base}/__sandbox/ui#/m/${encodeURIComponent(id)}/sequence\n` +
      '  Ctrl+C stops it.\n',
  );
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return null;
}

/** The CLI's entry for `payout-sandbox show-trace …` (argv as process.argv). */
export async function main(argv: string[]): Promise<void> {
  const code = await showTrace(argv.slice(3));
  if (code !== null) process.exit(code);
}

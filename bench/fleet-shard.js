// One CI shard of the fleet benchmark (bench/fleet.js forks one process per shard; not run by
// hand). Once ready (its receiver listening; in --mode per-shard, its executable started) it waits
// for the orchestrator's go, sent when every shard is ready, so that no request is timed against
// 63 other processes still starting on the same cores; it then runs at the niceness it was given
// (--nice, the orchestrator's --shard-nice). It creates a merchant with a manual clock of its own
// and a V2 webhook receiver of its own (an HTTP server in this process on 127.0.0.1:0), runs the
// fixed suite of merchant flows through the emulated API with the merchant's headers, one flow
// after another as a CI job would, and reports each flow green or red with a reason, every
// request's latency by operation, and its 429s. Then, told by the orchestrator (IPC) once every
// shard has finished its flows, it checks its world exhaustively (the control API's lists of its
// merchant against what it created, every webhook it got) and asks other shards' ids with its own
// credentials (each must be not found).
// Polling is a well-behaved client's: it never asks a payout's status more than 3 times, nor the
// balance more than 10 times, in a minute of the merchant's clock, advancing that clock to the
// next window rather than asking again (the reference's limits are on). In --mode per-shard it
// starts its own standalone executable and stops it at the end, reporting its CPU and memory.
// It speaks HTTP/1.1 over node:net itself (see Client), its receiver is a node:http server, and
// nothing of the sandbox is imported.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  bannerUrl,
  Client,
  cpuSeconds,
  FINAL,
  FLOW_KINDS,
  isolationViolations,
  memoryKiB,
  missingWebhooks,
  sandboxEnv,
  signV2,
  stopChild,
  threadNiceness,
  verifyV2,
  yieldCpu,
} from './fleet-lib.js';

const { values: opt } = parseArgs({
  options: {
    index: { type: 'string' },
    mode: { type: 'string' },
    base: { type: 'string' },
    binary: { type: 'string' },
    dir: { type: 'string' },
    flows: { type: 'string', default: '20' },
    nice: { type: 'string', default: '0' },
    'think-ms': { type: 'string', default: '0' },
    'no-warm-up': { type: 'boolean', default: false },
    'sandbox-arg': { type: 'string', multiple: true, default: [] },
  },
});
const INDEX = Number(opt.index);
const FLOW_COUNT = Number(opt.flows);
const PREFIX = `FLT${String(INDEX).padStart(4, '0')}`;
const WINDOW_MS = 61_000; // the reference's 1-minute windows, with a second to spare
const POLL_STEPS = ['6s', '20s', '1m', '5m', '30m', '1h'];
const MAX_POLLS = 12;

const send = (msg) => new Promise((resolve) => process.send(msg, resolve));
/** The orchestrator's next message of this type (listen before asking for it). */
const message = (type) =>
  new Promise((resolve) => {
    const on = (msg) => {
      if (msg?.type !== type) return;
      process.off('message', on);
      resolve(msg);
    };
    process.on('message', on);
  });

// --- the webhook receiver (docs/webhooks.md: verify V2 on the raw body, then de-duplicate) -----

const WARM_UP_HEADER = 'x-fleet-warm-up';
const WARM_UP_SECRET = 'fleet-warm-up';

class Receiver {
  constructor() {
    this.secret = '';
    this.warming = false;
    this.byDelivery = new Map();
    this.got = [];
    this.waiters = new Set();
    this.server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (this.warming && req.headers[WARM_UP_HEADER] !== undefined) {
          // The shard's own warm-up, before the barrier (only then): the same reading,
          // verification and parsing as a delivery's, with a secret of its own, nothing recorded.
          const ok = verifyV2(req.headers['x-sandbox-signature-v2'], raw, WARM_UP_SECRET);
          try {
            JSON.parse(raw.toString('utf8'));
          } catch {}
          res.writeHead(ok ? 204 : 401).end();
          return;
        }
        const verified = verifyV2(req.headers['x-sandbox-signature-v2'], raw, this.secret);
        const deliveryId = String(req.headers['x-sandbox-delivery-id'] ?? '');
        let tx = {};
        try {
          const event = JSON.parse(raw.toString('utf8'));
          tx = event.data?.transaction ?? event.transaction ?? {};
        } catch {}
        if (!verified) {
          this.got.push({ delivery_id: deliveryId, ref_id: String(tx.ref_id), client_ref_id: tx.client_ref_id, status: tx.status, verified: false });
          res.writeHead(401).end();
          return;
        }
        if (!this.byDelivery.has(deliveryId)) {
          const w = { delivery_id: deliveryId, ref_id: String(tx.ref_id), client_ref_id: tx.client_ref_id, status: tx.status, verified: true };
          this.byDelivery.set(deliveryId, w);
          this.got.push(w);
          for (const wake of this.waiters) wake();
        }
        res.writeHead(204).end();
      });
    });
  }

  async listen() {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${this.server.address().port}/hooks`;
  }

  /**
   * Sends itself one signed delivery of a payout's shape (with a secret of the warm-up's own, and
   * marked as the warm-up: not recorded), so that the first real delivery does not find its
   * parsing, verification and answer cold, as a CI job's receiver is running before its tests.
   * Its time goes into `samples` (the shard's client's warm-up samples) as `receiver`.
   */
  async warmUp(url, samples) {
    const body = { event: 'payout.status', data: { transaction: { ref_id: 0, client_ref_id: 'warm-up', status: 'Success' } } };
    const u = new URL(url);
    const c = new Client(u.origin, { label: `shard ${INDEX} receiver` });
    c.phase = 'warm-up';
    c.warmUpSamples = samples;
    this.warming = true;
    try {
      const r = await c.request('receiver', 'POST', u.pathname, {
        headers: { 'x-sandbox-signature-v2': signV2(JSON.stringify(body), WARM_UP_SECRET), [WARM_UP_HEADER]: '1' },
        body,
      });
      check(r.status === 204, `the receiver's warm-up: ${brief(r)}`);
    } finally {
      this.warming = false;
      c.destroy();
    }
  }

  has(refId, status) {
    return this.got.some((w) => w.verified && w.ref_id === String(refId) && w.status === status);
  }

  /** Resolves on the next verified delivery, or after `ms`. */
  next(ms) {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, ms);
      this.waiters.add(wake);
    });
  }
}

// --- the merchant: its headers, its clock, its rate windows, what it created -----------------

class Fail extends Error {}
function check(cond, message) {
  if (!cond) throw new Fail(message);
}
const brief = (r) => (r.status === 0 ? `no answer (${r.error})` : `HTTP ${r.status} ${r.text?.slice(0, 200)}`);
const rupees = (x) => Math.round(x * 100);

/** Exactly envelope B: HTTP 400 `{ status: false, message, error: { code, message } }`. */
function envelopeB(r, code, message, what) {
  const want = JSON.stringify({ status: false, message, error: { code, message } });
  check(r.status === 400 && JSON.stringify(r.json) === want, `${what}: expected envelope B ${code} "${message}", got ${brief(r)}`);
}
/** Exactly envelope A: HTTP = http_code, `{ success: false, http_code, message }`. */
function envelopeA(r, httpCode, message, what) {
  const want = JSON.stringify({ success: false, http_code: httpCode, message });
  check(r.status === httpCode && JSON.stringify(r.json) === want, `${what}: expected envelope A ${httpCode} "${message}", got ${brief(r)}`);
}
const NOT_FOUND = 'Unable to find transaction using provided ID';

class Merchant {
  constructor(client, receiver) {
    this.client = client;
    this.receiver = receiver;
    this.payouts = new Map(); // client_ref_id → { client_ref_id, ref_id, flow, final }
    this.beneficiaries = new Set();
    this.verifications = new Set();
    this.windows = new Map();
    this.flow = -1;
    this.notes = []; // what the product did that a flow worked around (reported, not failed)
  }

  async create(webhookUrl, balance) {
    const r = await this.client.request('control_merchant_create', 'POST', '/__sandbox/merchants', {
      body: { balance, clock: { mode: 'manual' }, webhook_url: webhookUrl, webhook_version: 'v2' },
    });
    check(r.status === 201, `create merchant: ${brief(r)}`);
    const m = r.json;
    this.id = m.merchant_id;
    this.headers = m.headers;
    this.account = m.account_no;
    this.receiver.secret = m.webhook_secret;
    this.clock = Date.parse(m.clock.now);
  }

  api(op, method, path, body, opts = {}) {
    return this.client.request(op, method, path, { headers: this.headers, body, ...opts });
  }

  control(op, method, path, body) {
    return this.client.request(`control_${op}`, method, `/__sandbox${path}`, { body });
  }

  async advance(by) {
    const ms = typeof by === 'number' ? Math.ceil(by) : by;
    if (ms === 0) return;
    const r = await this.control('advance', 'POST', `/merchants/${this.id}/clock/advance`, { by: typeof ms === 'number' ? `${ms}ms` : ms });
    check(r.status === 200, `advance ${by}: ${brief(r)}`);
    this.clock = Date.parse(r.json.now);
  }

  /** A well-behaved client's rate window: before the call that would exceed `limit` a minute, move the clock to the next window. */
  async gate(key, limit) {
    let w = this.windows.get(key);
    if (w && this.clock - w.start >= WINDOW_MS) w = undefined;
    if (w && w.count >= limit) {
      await this.advance(w.start + WINDOW_MS - this.clock);
      w = undefined;
    }
    if (!w) this.windows.set(key, (w = { start: this.clock, count: 0 }));
    w.count += 1;
  }

  initialize(version, body, opts = {}) {
    return this.api(opts.op ?? `initialize_${version}`, 'POST', `/api/${version}/public/payment/transfer`, body).then((r) => {
      if (r.status === 200 && r.json?.success) this.track(body.client_ref_id, r.json.data.ref_id);
      return r;
    });
  }

  track(clientRefId, refId) {
    const known = this.payouts.get(clientRefId);
    if (known) check(known.ref_id === String(refId), `${clientRefId}: ref_id ${refId}, earlier ${known.ref_id}`);
    else this.payouts.set(clientRefId, { client_ref_id: clientRefId, ref_id: String(refId), flow: this.flow, final: null });
  }

  /** A status check by client_ref_id (or ref_id when the payout is known), within the payout's window. */
  async status(clientRefId, { byRef = true, gate = true, expect429 = false } = {}) {
    if (gate) await this.gate(`status:${clientRefId}`, 3);
    const p = this.payouts.get(clientRefId);
    const q = byRef && p ? `ref_id=${p.ref_id}` : `client_ref_id=${encodeURIComponent(clientRefId)}`;
    return this.api('status', 'GET', `/api/v1/public/payment/transfer/status?${q}`, undefined, { expect429 });
  }

  async balance() {
    await this.gate(`balance:${this.account}`, 10);
    const r = await this.api('balance', 'GET', `/api/v1/public/balance/check?account_no=${this.account}`);
    check(r.status === 200 && typeof r.json?.data?.current_balance === 'number', `balance: ${brief(r)}`);
    return r.json.data.current_balance;
  }

  /** Polls (advancing the clock between checks, backing off) until Success or Failed; the statuses seen on the way. */
  async poll(clientRefId, { first = POLL_STEPS[0], statuses = [] } = {}) {
    let step = 0;
    if (first) await this.advance(first);
    for (let i = 0; i < MAX_POLLS; i++) {
      const r = await this.status(clientRefId);
      check(r.status === 200 && r.json?.success, `status of ${clientRefId}: ${brief(r)}`);
      const tx = r.json.data.transaction;
      check(tx.client_ref_id === clientRefId, `status of ${clientRefId} answered ${tx.client_ref_id}`);
      statuses.push(tx.status);
      if (FINAL.has(tx.status)) {
        this.payouts.get(clientRefId).final = tx.status;
        return { tx, statuses };
      }
      step = Math.min(step + 1, POLL_STEPS.length - 1);
      await this.advance(POLL_STEPS[step]);
    }
    throw new Fail(`${clientRefId} not final after ${MAX_POLLS} status checks: ${statuses.join(' → ')}`);
  }

  /** Every page of a control list. */
  async listAll(op, path, key) {
    const items = [];
    let cursor = null;
    for (let page = 0; page < 1000; page++) {
      const r = await this.control(op, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      check(r.status === 200 && Array.isArray(r.json?.[key]), `${path}: ${brief(r)}`);
      items.push(...r.json[key]);
      cursor = r.json.next;
      if (!cursor) return items;
    }
    throw new Fail(`${path}: more than 1000 pages`);
  }

  async countPayouts(clientRefId) {
    const all = await this.listAll('payouts', `/merchants/${this.id}/payouts`, 'payouts');
    return all.filter((p) => p.client_ref_id === clientRefId).length;
  }

  /**
   * Initialize that survives a fault safely: after a 5xx or no answer, look the payout up by its
   * client_ref_id; only when it is not there, send the same request again (same client_ref_id: a
   * Duplicate answer then means it was made, and is looked up). Never a new id.
   */
  async safeInitialize(version, body, { before } = {}) {
    const answers = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0 && before) await before();
      const r = await this.initialize(version, body);
      answers.push(r);
      if (r.status === 200) return { answers, refId: String(r.json.data.ref_id), via: 'answer' };
      const duplicate = r.status === 400 && r.json?.error?.message === 'Duplicate Client Reference ID';
      check(r.status === 0 || r.status >= 500 || duplicate, `initialize ${body.client_ref_id}: ${brief(r)}`);
      const look = await this.status(body.client_ref_id, { byRef: false });
      if (look.status === 200) {
        const tx = look.json.data.transaction;
        this.track(body.client_ref_id, tx.ref_id);
        return { answers, refId: String(tx.ref_id), via: 'lookup', lookup: tx };
      }
      envelopeB(look, 'GENERIC_EXCEPTION', NOT_FOUND, `look-up of ${body.client_ref_id} after ${brief(r)}`);
    }
    throw new Fail(`initialize ${body.client_ref_id}: no payout after 3 attempts`);
  }
}

// --- the flows --------------------------------------------------------------------------------

const PAYEE = {
  beneficiary_name: 'Ravi Kumar',
  beneficiary_email: 'ravi.kumar@example.com',
  beneficiary_mobile: '9812345670',
  account_number: '50100012345678',
  ifsc_code: 'HDFC0001234',
};

/** An initialize body: to a registered beneficiary when `extra.beneficiary_id` names one, else to the inline payee. */
function payoutBody(m, clientRefId, amount, method, extra = {}) {
  return {
    client_ref_id: clientRefId,
    transfer_type: 'BANK',
    amount,
    payment_method: method,
    debit_from: m.account,
    ...(extra.beneficiary_id ? {} : PAYEE),
    purpose: 'VENDOR_PAYOUT',
    remarks: `fleet ${clientRefId}`,
    ...extra,
  };
}

/** Initialize (expect 200 and `initial`), poll to `final`, check the record; the statuses seen. */
async function payout(m, cref, { version, amount, method, final, initial = 'Pending', extra = {}, first } = {}) {
  const body = payoutBody(m, cref, amount, method, extra);
  const r = await m.initialize(version, body);
  check(r.status === 200 && r.json?.success === true, `initialize ${version} ${amount}: ${brief(r)}`);
  const d = r.json.data;
  check(d.client_ref_id === cref && /^\d{10}$/.test(d.ref_id) && d.status === initial, `initialize ${version} ${amount}: answered ${JSON.stringify(d)}`);
  const { tx, statuses } = await m.poll(cref, { first });
  check(tx.status === final, `${cref} (${amount}) ended ${tx.status}, expected ${final} (${statuses.join(' → ')})`);
  check(tx.amount === amount && tx.payment_method === method && String(tx.ref_id) === d.ref_id, `${cref}: record ${JSON.stringify(tx).slice(0, 200)}`);
  if (final === 'Success') check(/^\d{12}$/.test(tx.bank_ref_number), `${cref}: Success without a 12-digit UTR`);
  return { ref: d.ref_id, tx, statuses };
}

const MAGIC_REJECTIONS = [
  [1001.01, 'TRANSACTION_LIMIT_EXCEEDED', 'Transaction limit exceeded. Please retry with a smaller amount.'],
  [1001.02, 'INSUFFICIENT_BALANCE', 'Insufficient balance in the account.'],
  [1001.03, 'ACCOUNT_NOT_ACTIVE', 'Account is not active to do real transactions.'],
  // docs/api.md gives the natural message of this code, not the magic one (which names no mode): the sandbox's text.
  [1001.04, 'TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE', 'Transaction amount is not compatible with the selected payment mode.'],
  [1001.05, 'INVALID_BENEFICIARY', 'Beneficiary does not have valid account details for the transaction.'],
  [1001.06, 'INVALID_TRANSFER_ID', 'Transfer id is not valid.'],
  [1001.07, 'GENERIC_EXCEPTION', 'Bank is unavailable at the moment. Please try again later.'],
];
const CHAOS_MODES = ['drop', 'error_500', 'unavailable_503'];

/** Each flow: (merchant, flow index, client_ref_id maker) → resolves when green, throws a reason when red. */
const FLOWS = {
  'v2-imps-success': (m, { id }) => payout(m, id('A'), { version: 'v2', amount: 1500.5, method: '1001', final: 'Success' }),
  'v1-neft-success': (m, { id }) => payout(m, id('A'), { version: 'v1', amount: 250, method: '1002', final: 'Success' }),
  'v2-rtgs-success': (m, { id }) => payout(m, id('A'), { version: 'v2', amount: 250000, method: '1003', final: 'Success' }),

  async 'v1-imps-failed-refunded'(m, { id }) {
    const before = await m.balance();
    const cref = id('A');
    const r = await m.initialize('v1', payoutBody(m, cref, 2002.01, '1001'));
    check(r.status === 200, `initialize 2002.01: ${brief(r)}`);
    const debited = await m.balance();
    check(rupees(before - debited) === rupees(2002.01 + 5 + 0.9), `2002.01 debited ${before - debited}, expected amount + fee + tax`);
    const { tx } = await m.poll(cref);
    check(tx.status === 'Failed' && tx.bank_res_msg === 'Invalid account number', `2002.01 ended ${tx.status} "${tx.bank_res_msg}"`);
    check(rupees(await m.balance()) === rupees(before), 'the failed payout was not refunded');
  },

  async 'v2-neft-pending-30m'(m, { id }) {
    const { statuses } = await payout(m, id('A'), { version: 'v2', amount: 2002.02, method: '1002', final: 'Success' });
    check(statuses.filter((s) => s === 'Pending').length >= 3, `2002.02: Success too soon (${statuses.join(' → ')})`);
  },

  async 'v2-unknown-then-success'(m, { id }) {
    const { statuses } = await payout(m, id('A'), { version: 'v2', amount: 2002.03, method: '1001', final: 'Success' });
    check(statuses.includes('Unknown'), `2002.03 never Unknown (${statuses.join(' → ')})`);
  },

  async 'v1-unknown-then-failed'(m, { id }) {
    const { statuses } = await payout(m, id('A'), { version: 'v1', amount: 2002.04, method: '1002', final: 'Failed' });
    check(statuses.includes('Unknown'), `2002.04 never Unknown (${statuses.join(' → ')})`);
  },

  async 'v2-success-then-reversal'(m, { id }) {
    const before = await m.balance();
    const cref = id('A');
    await payout(m, cref, { version: 'v2', amount: 2002.05, method: '1001', final: 'Success' });
    await m.advance('1h');
    const r = await m.status(cref);
    check(r.status === 200 && r.json.data.transaction.status === 'Failed', `2002.05 an hour after Success: ${brief(r)}`);
    m.payouts.get(cref).final = 'Failed';
    check(rupees(await m.balance()) === rupees(before), 'the reversed payout was not refunded');
    check(
      m.receiver.has(m.payouts.get(cref).ref_id, 'Success') || (await waitWebhooks(m, [[m.payouts.get(cref).ref_id, 'Success']], 10_000)),
      'no webhook of the Success before the reversal',
    );
  },

  async 'v1-new-pending-success'(m, { id }) {
    const { statuses } = await payout(m, id('A'), { version: 'v1', amount: 2002.06, method: '1001', final: 'Success', initial: 'NEW' });
    check(statuses[0] === 'Pending', `2002.06 first checked ${statuses[0]}, expected Pending (NEW → Pending at 5 s)`);
  },

  async 'v2-read-after-write-lag'(m, { id }) {
    const cref = id('A');
    const r = await m.initialize('v2', payoutBody(m, cref, 2002.08, '1001'));
    check(r.status === 200, `initialize 2002.08: ${brief(r)}`);
    // Made, but not yet visible: "not found" here must not be read as "not created".
    envelopeB(await m.status(cref, { byRef: false }), 'GENERIC_EXCEPTION', NOT_FOUND, 'status right after 2002.08');
    const { tx } = await m.poll(cref);
    check(tx.status === 'Success', `2002.08 ended ${tx.status}`);
  },

  async 'v2-poll-driven'(m, { id }) {
    const { statuses } = await payout(m, id('A'), { version: 'v2', amount: 2002.09, method: '1001', final: 'Success' });
    check(statuses.join() === 'Pending,Success', `2002.09: ${statuses.join(' → ')}, expected Success on the 2nd check`);
  },

  async 'magic-rejections'(m, { id }) {
    const before = await m.balance();
    for (const [i, [amount, code, message]] of MAGIC_REJECTIONS.entries()) {
      const version = i % 2 ? 'v1' : 'v2';
      const r = await m.initialize(version, payoutBody(m, id(`R${i}`), amount, '1001'));
      envelopeB(r, code, message, `initialize ${version} ${amount}`);
      check(r.headers['x-sandbox-rule'] === String(amount), `${amount}: X-Sandbox-Rule ${r.headers['x-sandbox-rule']}`);
    }
    check(rupees(await m.balance()) === rupees(before), 'a rejection debited the account');
  },

  async 'natural-errors'(m, { id }) {
    const cref = id('A');
    const ok = await m.initialize('v1', payoutBody(m, cref, 100, '1001'));
    check(ok.status === 200, `initialize: ${brief(ok)}`);
    envelopeB(await m.initialize('v2', payoutBody(m, cref, 100, '1001')), 'GENERIC_EXCEPTION', 'Duplicate Client Reference ID', 'the same client_ref_id again');
    envelopeB(
      await m.initialize('v2', payoutBody(m, id('B'), 250000, '1001')),
      'TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE',
      'Transaction amount is not compatible with payment mode IMPS: allowed 1 to 200000.',
      'IMPS of 250000',
    );
    envelopeB(
      await m.initialize('v1', payoutBody(m, id('C'), 1500000, '1002')),
      'TRANSACTION_LIMIT_EXCEEDED',
      'Transaction limit exceeded: the per-transaction limit is 1000000. Please retry with a smaller amount.',
      'NEFT of 1500000',
    );
    envelopeB(
      await m.initialize('v2', payoutBody(m, id('D'), 100, '1001', { beneficiary_id: 'BENENOSUCH0000000000' })),
      'INVALID_BENEFICIARY',
      'Beneficiary does not have valid account details for the transaction.',
      'an unknown beneficiary_id',
    );
    envelopeA(
      await m.initialize('v2', payoutBody(m, id('E'), 100, '1001', { debit_from: 'VAN123' })),
      400,
      'The debit from field must be 20 characters.',
      'a short debit_from',
    );
    envelopeB(await m.status(id('F'), { byRef: false }), 'GENERIC_EXCEPTION', NOT_FOUND, 'status of an id never used');
    envelopeA(
      await m.api('status', 'GET', '/api/v1/public/payment/transfer/status'),
      400,
      'The ref id field is required when client ref id is not present',
      'status with no id',
    );
    const wrong = await m.client.request('balance', 'GET', `/api/v1/public/balance/check?account_no=${m.account}`, {
      headers: { ...m.headers, 'x-api-secret': 'sbx_secret_not_this_merchant' },
    });
    envelopeA(wrong, 401, 'Credentials are not valid', 'a wrong secret');
    const { tx } = await m.poll(cref);
    check(tx.status === 'Success', `${cref} ended ${tx.status}`);
  },

  async 'fault-500-created'(m, { id }) {
    const cref = id('A');
    const res = await m.safeInitialize('v2', payoutBody(m, cref, 3003.01, '1001'));
    envelopeA(res.answers[0], 500, 'Something went wrong on our side. Please try again.', 'initialize 3003.01');
    check(
      res.via === 'lookup' && res.answers.length === 1,
      `3003.01: the 500's payout was not found by client_ref_id (${res.via}, ${res.answers.length} attempts)`,
    );
    const { tx } = await m.poll(cref);
    check(tx.status === 'Success', `3003.01 ended ${tx.status}`);
    check((await m.countPayouts(cref)) === 1, `3003.01: not exactly one payout ${cref}`);
  },

  async 'fault-drop-created'(m, { id }) {
    const cref = id('A');
    const res = await m.safeInitialize('v1', payoutBody(m, cref, 3003.04, '1002'));
    check(res.answers[0].status === 0, `3003.04: expected the connection closed with no answer, got ${brief(res.answers[0])}`);
    check(res.via === 'lookup' && res.answers.length === 1, `3003.04: the dropped payout was not found by client_ref_id (${res.via})`);
    const { tx } = await m.poll(cref);
    check(tx.status === 'Success', `3003.04 ended ${tx.status}`);
    check((await m.countPayouts(cref)) === 1, `3003.04: not exactly one payout ${cref}`);
  },

  async 'fault-injected-retry'(m, { n, id }) {
    const mode = CHAOS_MODES[(INDEX + n) % CHAOS_MODES.length];
    const put = await m.control('chaos', 'PUT', `/merchants/${m.id}/chaos`, { percent: 100, modes: [mode], operations: ['initializePayout'], seed: INDEX + 1 });
    check(put.status === 200, `PUT chaos: ${brief(put)}`);
    const cref = id('A');
    let cleared = false;
    const res = await m.safeInitialize('v2', payoutBody(m, cref, 640.25, '1001'), {
      before: async () => {
        if (cleared) return;
        cleared = true; // the outage is over: the retry goes through
        const del = await m.control('chaos', 'DELETE', `/merchants/${m.id}/chaos`);
        check(del.status === 200, `DELETE chaos: ${brief(del)}`);
      },
    });
    const first = res.answers[0];
    if (mode === 'drop') check(first.status === 0, `chaos drop: got ${brief(first)}`);
    if (mode === 'error_500') envelopeA(first, 500, 'Something went wrong on our side. Please try again.', 'chaos error_500');
    if (mode === 'unavailable_503') {
      envelopeA(first, 503, 'Service temporarily unavailable. Please try again later.', 'chaos unavailable_503');
      check(Number(first.headers['retry-after']) > 0, 'chaos 503 without Retry-After');
    }
    check(
      res.via === 'answer' && res.answers.length === 2,
      `the injected ${mode}: expected nothing made, then one retry with the same client_ref_id (${res.via}, ${res.answers.length})`,
    );
    const { tx } = await m.poll(cref);
    check(tx.status === 'Success', `${cref} ended ${tx.status}`);
    check((await m.countPayouts(cref)) === 1, `${mode}: not exactly one payout ${cref}`);
  },

  async 'fault-held-answer'(m, { id }) {
    const cref = id('A');
    let answered = null;
    const held = m.initialize('v2', payoutBody(m, cref, 3003.02, '1001'), { op: 'initialize_v2_held' }).then((r) => (answered = r));
    // The client gave up waiting: look the payout up (it was made; its answer is held 35 s of sandbox time).
    let found = null;
    for (let i = 0; i < 50 && !found && !answered; i++) {
      const look = await m.status(cref, { byRef: false });
      if (look.status === 200) found = look.json.data.transaction;
      else {
        envelopeB(look, 'GENERIC_EXCEPTION', NOT_FOUND, 'look-up of the held payout');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    check(found || answered, '3003.02: the payout was never found');
    for (let i = 0; i < 5 && !answered; i++) {
      await m.advance('36s');
      let timer;
      await Promise.race([held, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
    }
    check(answered?.status === 200, `3003.02: the held answer ${answered ? brief(answered) : 'never came'}`);
    if (found) check(String(found.ref_id) === String(answered.json.data.ref_id), '3003.02: the held answer names another payout than the look-up');
    const { tx } = await m.poll(cref, { first: null });
    check(tx.status === 'Success', `3003.02 ended ${tx.status}`);
    check((await m.countPayouts(cref)) === 1, `3003.02: not exactly one payout ${cref}`);
  },

  async 'beneficiary-activation'(m, { n, id }) {
    const account = `7${String(INDEX).padStart(5, '0')}${String(n).padStart(6, '0')}`;
    const body = {
      transfer_type: 'BANK',
      beneficiary_name: 'Anita Desai',
      beneficiary_email: 'anita@example.com',
      beneficiary_mobile: '9123456780',
      account_number: account,
      ifsc_code: 'ICIC0001234',
    };
    const r = await m.api('beneficiary_create', 'POST', '/api/v1/public/beneficiary/create', body);
    check(
      r.status === 200 &&
        r.json?.message === 'Beneficiary created successfully. It will be active within 24 hours.' &&
        /^[A-Z0-9]{20}$/.test(r.json.data?.beneficiary_id),
      `create beneficiary: ${brief(r)}`,
    );
    const bene = r.json.data.beneficiary_id;
    m.beneficiaries.add(bene);
    const again = await m.api('beneficiary_create', 'POST', '/api/v1/public/beneficiary/create', { ...body, beneficiary_name: 'Anita D' });
    check(
      again.status === 200 && again.json.message === 'Beneficiary already exists' && again.json.data.beneficiary_id === bene,
      `create again: ${brief(again)}`,
    );
    const pending = await m.api('beneficiary_get', 'POST', '/api/v1/public/beneficiary/get', { beneficiary_id: bene });
    check(pending.status === 200 && pending.json.data.bene_id === bene && pending.json.data.status === 'Pending', `get new beneficiary: ${brief(pending)}`);
    envelopeB(
      await m.initialize('v2', payoutBody(m, id('X'), 750, '1002', { beneficiary_id: bene })),
      'INVALID_BENEFICIARY',
      'Beneficiary does not have valid account details for the transaction.',
      'a payout to a Pending beneficiary',
    );
    await m.advance('11s');
    const active = await m.api('beneficiary_get', 'POST', '/api/v1/public/beneficiary/get', { beneficiary_name: 'anita desai', account_number: account });
    check(active.status === 200 && active.json.data.bene_id === bene && active.json.data.status === 'Active', `get after 11 s: ${brief(active)}`);
    const { tx } = await payout(m, id('A'), { version: 'v2', amount: 750, method: '1002', final: 'Success', extra: { beneficiary_id: bene } });
    check(tx.beneficiary.id === bene && tx.beneficiary.name === 'Anita Desai', `payout to ${bene}: beneficiary ${JSON.stringify(tx.beneficiary)}`);
  },

  async verification(m) {
    const before = await m.balance();
    const verify = async (type, member, valid) => {
      const key = type.toLowerCase();
      const r = await m.api('verify', 'POST', '/api/v1/public/verification/', { debit_from: m.account, verification_type: type, [key]: member });
      const d = r.json?.data;
      check(
        r.status === 200 && d?.verification_status === 'Success' && d.source_type === type && /^VRF[A-Z0-9]{17}$/.test(d.verification_id),
        `verify ${type}: ${brief(r)}`,
      );
      check(d.verify_response.valid === valid, `verify ${type} ${JSON.stringify(member)}: valid ${d.verify_response.valid}, expected ${valid}`);
      m.verifications.add(d.verification_id);
      return d;
    };
    const pan = await verify('PAN', { pan_number: 'ABCPE1234F', name: 'Anita Desai' }, true);
    check(pan.commission === 2 && pan.tax === 0.36, `PAN charged ${pan.commission} + ${pan.tax}`);
    const bank = await verify('BANK', { account_no: '50100012345678', ifsc_code: 'HDFC0001234' }, true);
    check(bank.verify_response.account_exists === true && bank.commission === 3, `BANK: ${JSON.stringify(bank).slice(0, 200)}`);
    await verify('PAN', { pan_number: 'ZZZZZ0000Z' }, false);
    const got = await m.api('verification_get', 'GET', `/api/v1/public/verification/${pan.verification_id}`);
    check(
      got.status === 200 && got.json.data.verification_id === pan.verification_id && got.json.data.doc_number === 'ABCPE1234F',
      `get verification: ${brief(got)}`,
    );
    const charged = before - (await m.balance());
    check(rupees(charged) === rupees(2.36 + 3.54 + 2.36), `three verifications charged ${charged}, expected 8.26`);
  },

  async 'rate-limit-429'(m, { id }) {
    const cref = id('A');
    const r = await m.initialize('v1', payoutBody(m, cref, 300, '1001'));
    check(r.status === 200, `initialize: ${brief(r)}`);
    await m.advance('6s');
    const opened = m.clock; // the payout's window opens at the first check, on the merchant's clock
    // Deliberately past the reference's 3 status checks a minute of one payout: the 4th is the documented 429.
    for (let i = 0; i < 3; i++) {
      const s = await m.status(cref, { gate: false });
      check(s.status === 200 && s.json.data.transaction.status === 'Success', `status ${i + 1}: ${brief(s)}`);
    }
    const limited = await m.status(cref, { gate: false, byRef: false, expect429: true });
    envelopeA(limited, 429, 'Too many attempts', 'a 4th status check within the minute');
    const retryAfter = Number(limited.headers['retry-after']);
    check(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${limited.headers['retry-after']}`);
    // Retry-After is the fewer of the seconds left on the merchant's clock and in real time
    // (docs/fidelity.md): once real time has passed since the window opened, advancing the manual
    // clock by it alone falls short of the window. This client advances to the window's end on the
    // merchant's clock (never less than Retry-After), and notes when Retry-After was less.
    const clockLeft = Math.ceil((opened + 60_000 - m.clock) / 1000);
    if (retryAfter < clockLeft) m.notes.push({ kind: 'retry-after-below-clock-window', retry_after_s: retryAfter, clock_window_left_s: clockLeft });
    await m.advance(`${Math.max(retryAfter, clockLeft)}s`);
    m.windows.set(`status:${cref}`, { start: m.clock, count: 1 });
    const after = await m.status(cref, { gate: false });
    check(after.status === 200 && after.json.data.transaction.status === 'Success', `after the window: ${brief(after)}`);
    m.payouts.get(cref).final = 'Success';
  },
};

/** Waits (bounded) until the receiver has a verified webhook for each [ref_id, status], moving the clock on when nothing comes (retries). */
async function waitWebhooks(m, wanted, ms) {
  const deadline = performance.now() + ms;
  let quiet = 0;
  for (;;) {
    const missing = wanted.filter(([ref, status]) => !m.receiver.has(ref, status));
    if (missing.length === 0) return true;
    if (performance.now() > deadline) return false;
    const got = await m.receiver.next(Math.min(500, Math.max(1, deadline - performance.now())));
    quiet = got ? 0 : quiet + 1;
    // An attempt that timed out is retried on the merchant's clock (10 s, 1 min, …): move it on.
    if (quiet >= 2) {
      await m.advance('1m');
      quiet = 0;
    }
  }
}

// --- the shard --------------------------------------------------------------------------------

async function startOwnSandbox() {
  const dir = join(opt.dir, `shard-${INDEX}`);
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const child = spawn(opt.binary, ['--port', '0', '--data', join(dir, 'db.json'), '--log-level', 'silent', ...opt['sandbox-arg']], {
    cwd: dir,
    env: sandboxEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  ownChild = child;
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  await send({ type: 'server-started', pid: child.pid }); // for the orchestrator to stop it should this shard die
  // 64 executables starting at once on 2 cores take a while (each compiles and loads the whole sandbox).
  const base = await bannerUrl(child, 180_000);
  return { child, base, startMs: performance.now() - started, cpuReady: cpuSeconds(child.pid), stderr: () => stderr };
}

let ownChild = null;
// The orchestrator gone (killed, or its deadline passed): stop our executable and go too.
process.once('disconnect', () => {
  ownChild?.kill('SIGTERM');
  process.exit(1);
});

async function main() {
  const result = { index: INDEX, flows: [], violations: [], missing_webhooks: [], probes: 0, server: null, error: null, timeline_ms: {}, cpu_ms: {} };
  // Each step: when (ms since this process started) and this process's CPU so far (ms).
  const mark = (name) => {
    result.timeline_ms[name] = Math.round(performance.now());
    const cpu = process.cpuUsage();
    result.cpu_ms[name] = Math.round((cpu.user + cpu.system) / 1000);
  };
  mark('main');
  let own = null;
  let client = null;
  let merchant = null;
  const receiver = new Receiver();
  try {
    if (opt.mode === 'per-shard') {
      own = await startOwnSandbox();
    }
    client = new Client(own ? own.base : opt.base, { label: `shard ${INDEX}`, thinkMs: Number(opt['think-ms']) });
    result.think_ms = client.thinkMs;
    result.node_args = process.execArgv;
    const m = new Merchant(client, receiver);
    merchant = m;
    const webhookUrl = await receiver.listen();
    // The sandbox first (bench/fleet.js, --shard-nice): set after this shard's executable started,
    // which keeps its niceness. What the system refuses stays as it is; the results say.
    yieldCpu(Number(opt.nice));
    result.niceness = threadNiceness();
    // Warm, as a CI job is before its tests: it has waited for the sandbox's health, and its
    // receiver is running. The shard asks for the health once and sends its receiver one delivery
    // of its own, before the barrier, so that its first timed request and the first delivery do
    // not find its own code cold (timed apart, as the warm-up).
    if (!opt['no-warm-up']) {
      client.phase = 'warm-up';
      const health = await client.request('health', 'GET', '/__sandbox/health');
      check(health.status === 200 && health.json?.ok === true, `the sandbox's health: ${brief(health)}`);
      await receiver.warmUp(webhookUrl, client.warmUpSamples);
      // A test client opens its own connection after the wait: the flows' first request is timed
      // with its connect, and no connection idles past the sandbox's keep-alive until the go.
      client.destroy();
      client.phase = 'flows';
    }
    // Ready: wait for the whole fleet to be (the orchestrator's go), so that no shard's requests
    // are timed while other shards' processes are still starting on the same two cores.
    mark('ready');
    const go = message('go');
    await send({ type: 'ready' });
    await go;
    mark('go');
    result.first_request_epoch_ms = performance.timeOrigin + performance.now();
    await m.create(webhookUrl, 1e9);
    result.merchant_id = m.id;
    mark('merchant');

    for (let n = 0; n < FLOW_COUNT; n++) {
      const kind = FLOW_KINDS[n % FLOW_KINDS.length];
      m.flow = n;
      const id = (suffix) => `${PREFIX}F${String(n).padStart(3, '0')}${suffix}`;
      const started = performance.now();
      if (n === 0) mark('first_flow');
      try {
        await FLOWS[kind](m, { n, id });
        result.flows.push({ flow: n, kind, green: true, reason: null, ms: Math.round(performance.now() - started) });
      } catch (err) {
        result.flows.push({
          flow: n,
          kind,
          green: false,
          reason: err instanceof Fail ? err.message : String(err?.stack ?? err),
          ms: Math.round(performance.now() - started),
        });
      }
    }

    mark('flows');
    // Every payout that reached a final status: its webhook, delivered and verified (bounded wait).
    const wanted = [...m.payouts.values()].filter((p) => p.final).map((p) => [p.ref_id, p.final]);
    await waitWebhooks(m, wanted, 30_000);
    for (const p of m.payouts.values()) {
      if (p.final && !receiver.has(p.ref_id, p.final)) {
        const f = result.flows.find((x) => x.flow === p.flow);
        if (f?.green) Object.assign(f, { green: false, reason: `no verified webhook for ${p.client_ref_id} (${p.ref_id}) ${p.final}` });
      }
    }

    mark('flows_and_webhooks');
    // Phase 1 done: tell the orchestrator what this shard made, for the other shards to probe.
    const mine = [...m.payouts.values()];
    const sample = (arr, k) => arr.filter((_, i) => i % Math.max(1, Math.floor(arr.length / k)) === 0).slice(0, k);
    const phase2 = message('phase2');
    await send({
      type: 'flows-done',
      sample: {
        payouts: sample(mine, 2).map((p) => ({ client_ref_id: p.client_ref_id, ref_id: p.ref_id })),
        beneficiaries: sample([...m.beneficiaries], 1),
        verifications: sample([...m.verifications], 1),
      },
    });
    const { foreign } = await phase2;
    mark('phase2');
    client.phase = 'audit'; // the audit's requests, timed apart from the flows'

    // Phase 2: exhaustive isolation checks of this merchant, then other shards' ids with our credentials.
    const listedPayouts = await m.listAll('payouts', `/merchants/${m.id}/payouts`, 'payouts');
    const bens = await m.control('beneficiaries', 'GET', `/merchants/${m.id}/beneficiaries?limit=1000`);
    const vers = await m.control('verifications', 'GET', `/merchants/${m.id}/verifications?limit=1000`);
    const dels = await m.control('webhooks', 'GET', `/webhooks?merchant_id=${m.id}&limit=1000`);
    check(bens.status === 200 && vers.status === 200 && dels.status === 200, 'control lists of the merchant');
    check(
      bens.json.beneficiaries.length < 1000 && vers.json.verifications.length < 1000 && dels.json.deliveries.length < 1000,
      'a control list may be cut at 1000',
    );
    const probes = [];
    for (const f of foreign) {
      for (const p of f.payouts) {
        const byCref = await m.status(p.client_ref_id, { byRef: false });
        probes.push({ what: 'client_ref_id', id: p.client_ref_id, leaked: !isNotFound(byCref), answer: brief(byCref) });
        await m.gate(`status:${p.ref_id}`, 3);
        const byRef = await m.api('status', 'GET', `/api/v1/public/payment/transfer/status?ref_id=${p.ref_id}`);
        probes.push({ what: 'ref_id', id: p.ref_id, leaked: !isNotFound(byRef), answer: brief(byRef) });
      }
      for (const b of f.beneficiaries) {
        const r = await m.api('beneficiary_get', 'POST', '/api/v1/public/beneficiary/get', { beneficiary_id: b });
        const want = JSON.stringify({ success: false, http_code: 400, message: 'Beneficiary not found in the system using the provided details' });
        probes.push({ what: 'beneficiary', id: b, leaked: !(r.status === 400 && JSON.stringify(r.json) === want), answer: brief(r) });
      }
      for (const v of f.verifications) {
        const r = await m.api('verification_get', 'GET', `/api/v1/public/verification/${v}`);
        const want = JSON.stringify({
          status: false,
          message: 'Unable to find verification using provided ID',
          error: { code: 'GENERIC_EXCEPTION', message: 'Unable to find verification using provided ID' },
        });
        probes.push({ what: 'verification', id: v, leaked: !(r.status === 400 && JSON.stringify(r.json) === want), answer: brief(r) });
      }
    }
    result.probes = probes.length;
    result.violations = isolationViolations({
      created: { payouts: mine, beneficiaries: [...m.beneficiaries], verifications: [...m.verifications] },
      listed: {
        payouts: listedPayouts.map((p) => ({ client_ref_id: p.client_ref_id, ref_id: String(p.ref_id), status: p.status })),
        beneficiaries: bens.json.beneficiaries.map((b) => b.bene_id),
        verifications: vers.json.verifications.map((v) => v.verification_id),
        deliveries: dels.json.deliveries,
      },
      webhooks: receiver.got,
      probes,
    }).map((v) => `shard ${INDEX}: ${v.kind}: ${v.detail}`);
    result.missing_webhooks = missingWebhooks(
      listedPayouts.map((p) => ({ ...p, ref_id: String(p.ref_id) })),
      receiver.got,
    ).map((p) => `shard ${INDEX}: ${p.client_ref_id} (${p.ref_id}) ${p.status}`);
    result.final_payouts = listedPayouts.filter((p) => FINAL.has(p.status)).length;
    result.checked = true;
    mark('checked');
  } catch (err) {
    result.error = err instanceof Fail ? err.message : String(err?.stack ?? err);
  }
  const cpu = process.cpuUsage();
  result.cpu_s = (cpu.user + cpu.system) / 1e6;
  result.webhooks = { received: receiver.got.length, unverified: receiver.got.filter((w) => !w.verified).length };
  if (client)
    Object.assign(result, {
      samples: client.samples,
      warm_up_samples: client.warmUpSamples,
      audit_samples: client.auditSamples,
      samples_by_connection: client.byConnection,
      http429: client.http429,
      requests: client.requests,
    });
  result.notes = merchant?.notes ?? [];
  if (own) {
    const mem = memoryKiB(own.child.pid);
    const cpuEnd = cpuSeconds(own.child.pid);
    const niceness = threadNiceness(own.child.pid);
    const code = await stopChild(own.child);
    await send({ type: 'server-stopped', pid: own.child.pid });
    result.server = {
      pid: own.child.pid,
      start_ms: Math.round(own.startMs),
      cpu_ready: own.cpuReady,
      cpu_end: cpuEnd,
      hwm_kib: mem.hwm,
      rss_kib: mem.rss,
      exit_code: code,
      niceness,
    };
    if (code !== 0) result.server.stderr = own.stderr();
  }
  if (!own && ownChild) {
    // It never listened (or this shard failed on the way): stopped all the same.
    await stopChild(ownChild, 5_000);
    await send({ type: 'server-stopped', pid: ownChild.pid });
  }
  client?.destroy();
  receiver.server.close();
  receiver.server.closeAllConnections();
  mark('end');
  await send({ type: 'result', result });
  process.exit(0);
}

function isNotFound(r) {
  const want = JSON.stringify({ status: false, message: NOT_FOUND, error: { code: 'GENERIC_EXCEPTION', message: NOT_FOUND } });
  return r.status === 400 && JSON.stringify(r.json) === want;
}

await main();

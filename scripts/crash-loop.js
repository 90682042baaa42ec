// Crash safety of the file store, on the real CLI: each round starts the sandbox on one data
// file, drives concurrent initializes with unique client_ref_ids, SIGKILLs it mid-load, restarts
// it on the same file and checks that every acknowledged payout is there with its status, that
// nothing unacknowledged is half-applied (balance = opening − whole debits of the payouts stored,
// ledger balanced), and that the restart needed no manual step.
//
//   node scripts/crash-loop.js [--rounds 20] [--json]      (npm run crash-loop)
//
// Prints one line per round and "N acknowledged lost" at the end; exits 1 when anything was lost
// or half-applied. With --json, prints the rounds as one JSON document instead (for the test).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/payout-sandbox.js', import.meta.url));
const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 20;
const JSON_OUT = args.includes('--json');
const WORKERS = 16;
const OPENING = 100_000_000; // paise: the VAN's opening balance
const DEBIT = 10_590; // paise: ₹100 + ₹5 fee + ₹0.90 tax

const MERCHANT = { email: 'crash@payout-sandbox.test', key: 'crash_key', secret: 'crash_secret' };
const VAN = 'CRASHVAN000000000001';
const fixtures = {
  merchants: [
    {
      merchant_id: 'SBXCRASH001',
      name: 'Crash Test',
      email: MERCHANT.email,
      api_key: MERCHANT.key,
      api_secret: MERCHANT.secret,
      access_token: 'crash_token',
      fees: { 1001: 5, 1002: 2.5, 1003: 25 },
      tax_rate_percent: 18,
      per_transaction_limit: 1000000,
      accounts: [{ account_no: VAN, status: 'ACTIVE', balance: OPENING / 100 }],
    },
  ],
};
const headers = { 'x-merchant-email': MERCHANT.email, 'x-api-key': MERCHANT.key, 'x-api-secret': MERCHANT.secret, 'content-type': 'application/json' };

function start(data, fixturesFile) {
  const child = spawn(
    process.execPath,
    [BIN, '--port', '0', '--data', data, '--fixtures', fixturesFile, '--clock', 'manual', '--no-rate-limits', '--log-level', 'silent'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /API base URL:\s+(\S+)/.exec(out);
      if (m) resolve({ child, base: m[1], output: () => out });
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code} before listening:\n${out}`)));
  });
}

function body(ref) {
  return JSON.stringify({
    client_ref_id: ref,
    transfer_type: 'BANK',
    amount: 100,
    payment_method: '1001',
    debit_from: VAN,
    beneficiary_email: 'b@example.com',
    beneficiary_mobile: '9876543210',
    beneficiary_name: 'Crash Payee',
    account_number: '123456789012',
    ifsc_code: 'HDFC0000001',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'crash',
  });
}

/**
 * Sends initializes from WORKERS loops until `killAfter` are acknowledged, then SIGKILLs the sandbox
 * mid-load. Resolves once every request has its outcome, not waiting for the killed process to be
 * reaped (`exited`): the restart comes at once, as a suite that kills and restarts does.
 */
async function load(base, child, round, killAfter) {
  const acked = new Map();
  const sent = [];
  let n = 0;
  let killed = false;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  async function worker() {
    while (!killed) {
      const ref = `R${round}N${String(n++).padStart(6, '0')}`;
      sent.push(ref);
      try {
        const res = await fetch(`${base}/api/v2/public/payment/transfer`, { method: 'POST', headers, body: body(ref) });
        const json = await res.json();
        if (res.status === 200 && json.success === true) acked.set(ref, json.data.ref_id);
      } catch {
        // Cut off by the kill: not acknowledged.
      }
      if (!killed && acked.size >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  }
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return { acked, sent, exited };
}

/** After the restart: what is stored of what was sent, and whether balance and ledger agree with it. */
async function check(base, acked, sent) {
  const get = (path) => fetch(`${base}${path}`, { headers }).then((r) => r.json());
  let lost = 0;
  let stored = 0;
  for (const ref of sent) {
    const res = await get(`/api/v1/public/payment/transfer/status?client_ref_id=${ref}`);
    const found = res.success === true && ['Pending', 'Success', 'NEW'].includes(res.data.transaction.status);
    if (found) stored += 1;
    if (acked.has(ref) && (!found || String(res.data.transaction.ref_id) !== String(acked.get(ref)))) lost += 1;
  }
  const ledger = await fetch(`${base}/__sandbox/accounts/${VAN}/ledger`).then((r) => r.json());
  const balance = Math.round(ledger.balance * 100);
  return { lost, stored, balanceOk: balance === OPENING - stored * DEBIT && ledger.balanced === true, ledgerEntries: ledger.entries.length };
}

const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-crash-'));
const data = join(dir, 'db.json');
const fixturesFile = join(dir, 'fixtures.json');
const { writeFileSync } = await import('node:fs');
writeFileSync(fixturesFile, JSON.stringify(fixtures));
const rounds = [];
let allSent = [];
const allAcked = new Map();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const { child, base } = await start(data, fixturesFile);
    const { acked, sent, exited } = await load(base, child, round, 40 + ((round * 37) % 120));
    allSent = allSent.concat(sent);
    for (const [k, v] of acked) allAcked.set(k, v);
    const restarted = await start(data, fixturesFile);
    await exited;
    const result = await check(restarted.base, allAcked, allSent);
    restarted.child.kill('SIGKILL');
    await new Promise((resolve) => restarted.child.once('exit', resolve));
    rounds.push({ round, acknowledged: acked.size, sent: sent.length, ...result });
    if (!JSON_OUT)
      console.log(
        `round ${round}: ${acked.size} acknowledged of ${sent.length} sent; ${result.stored} stored in all; lost ${result.lost}; balance and ledger ${result.balanceOk ? 'agree' : 'DISAGREE'}`,
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const lost = rounds.reduce((m, r) => Math.max(m, r.lost), 0);
const bad = rounds.filter((r) => !r.balanceOk).length;
if (JSON_OUT) console.log(JSON.stringify({ rounds, lost, bad }));
else console.log(`${lost} acknowledged lost, ${bad} rounds with balance or ledger disagreeing, over ${ROUNDS} rounds (${allAcked.size} acknowledged in all)`);
process.exit(lost === 0 && bad === 0 ? 0 : 1);

// The file store on a disk that fills up, on the real CLI: the data file on a small tmpfs, 16
// clients initializing until the answers turn to errors (the disk is full); space comes back while
// the sandbox runs (the tmpfs is made larger): it answers again, every acknowledged payout is
// there, and the payouts settle with no new request. Then the disk fills again and the sandbox is
// stopped while full: it stays up and says why; space comes back: it writes and exits 0. A restart
// on the same file finds every payout that was answered 200, and balance and ledger agree.
//
//   node scripts/disk-full.js [--json]          (npm run disk-full; needs root: it mounts a tmpfs)
//
// Exits 0 when nothing acknowledged was lost, 1 otherwise, 77 when a tmpfs cannot be mounted here.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/payout-sandbox.js', import.meta.url));
const JSON_OUT = process.argv.includes('--json');
const WORKERS = 16;
const SMALL = '4m';
const LARGE = '64m';
const OPENING = 100_000_000; // paise
const DEBIT = 10_590; // paise: ₹100 + ₹5 fee + ₹0.90 tax

const MERCHANT = { email: 'disk@payout-sandbox.test', key: 'disk_key', secret: 'disk_secret' };
const VAN = 'DISKVAN0000000000001';
const fixtures = {
  merchants: [
    {
      merchant_id: 'SBXDISK0001',
      name: 'Disk Test',
      email: MERCHANT.email,
      api_key: MERCHANT.key,
      api_secret: MERCHANT.secret,
      access_token: 'disk_token',
      fees: { 1001: 5, 1002: 2.5, 1003: 25 },
      tax_rate_percent: 18,
      per_transaction_limit: 1000000,
      accounts: [{ account_no: VAN, status: 'ACTIVE', balance: OPENING / 100 }],
    },
  ],
};
const headers = { 'x-merchant-email': MERCHANT.email, 'x-api-key': MERCHANT.key, 'x-api-secret': MERCHANT.secret, 'content-type': 'application/json' };

class Failed extends Error {}

function fail(message) {
  throw new Failed(message);
}

function start(data, fixturesFile) {
  const child = spawn(
    process.execPath,
    [BIN, '--port', '0', '--data', data, '--fixtures', fixturesFile, '--speed', '10', '--no-rate-limits', '--log-level', 'silent'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const listening = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /API base URL:\s+(\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code} before listening:\n${out}${err}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, listening, exited, stderr: () => err };
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
    beneficiary_name: 'Disk Payee',
    account_number: '123456789012',
    ifsc_code: 'HDFC0000001',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'disk',
  });
}

/** Initializes from WORKERS loops until `refusals` answers in a row were not 200 (the disk is full). */
async function fill(base, tag, acked, answers) {
  let n = 0;
  let refusedInARow = 0;
  async function worker() {
    while (refusedInARow < 40) {
      const ref = `${tag}${String(n++).padStart(6, '0')}`;
      try {
        const res = await fetch(`${base}/api/v2/public/payment/transfer`, { method: 'POST', headers, body: body(ref) });
        const json = await res.json();
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        if (res.status === 200 && json.success === true) {
          acked.set(ref, json.data.ref_id);
          refusedInARow = 0;
        } else {
          refusedInARow += 1;
        }
      } catch {
        answers.dropped = (answers.dropped ?? 0) + 1;
        refusedInARow += 1;
      }
    }
  }
  await Promise.all(Array.from({ length: WORKERS }, worker));
}

const statusOf = (base, ref) =>
  fetch(`${base}/api/v1/public/payment/transfer/status?client_ref_id=${ref}`, { headers }).then(async (r) => ({ code: r.status, json: await r.json() }));

/** Waits (at most `ms`) until `check` is true, asking again 10 ms after each answer (not a tight loop on the sandbox). */
async function until(what, check, ms = 20_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  fail(`timed out waiting for ${what}`);
}

function mount(dir, size) {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
}

const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-diskfull-'));
const disk = join(dir, 'disk');
const fixturesFile = join(dir, 'fixtures.json');
writeFileSync(fixturesFile, JSON.stringify(fixtures));
execFileSync('mkdir', ['-p', disk]);
try {
  mount(disk, SMALL);
} catch (err) {
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`disk-full: cannot mount a tmpfs here (${String(err.stderr ?? err.message).trim()}); the test needs root and mount\n`);
  process.exit(77);
}
const data = join(disk, 'db.json');
const report = { phases: [] };
const children = [];
/** Whatever happens (a failure, a signal), the sandboxes are stopped and the tmpfs unmounted. */
function cleanUp() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  try {
    execFileSync('umount', ['-l', disk]);
  } catch {
    // Already unmounted.
  }
  rmSync(dir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanUp();
    process.exit(1);
  });
}
let failure = null;
try {
  // 1. The disk fills while the sandbox runs; space comes back; it goes on by itself.
  const first = start(data, fixturesFile);
  children.push(first.child);
  const base = await first.listening;
  const acked = new Map();
  const answers = {};
  await fill(base, 'A', acked, answers);
  const health = await fetch(`${base}/__sandbox/health`);
  const refusedWhileFull = health.status === 503;
  execFileSync('mount', ['-o', `remount,size=${LARGE}`, disk]);
  await until('health after space came back', async () => (await fetch(`${base}/__sandbox/health`)).status === 200);
  let lost = 0;
  for (const [ref, refId] of acked) {
    const s = await statusOf(base, ref);
    if (s.code !== 200 || String(s.json.data.transaction.ref_id) !== String(refId)) lost += 1;
  }
  // Every payout settles (Success 5 s after initialize: 0.5 s at --speed 10) with no new initialize.
  const last = [...acked.keys()].at(-1);
  await until('the last acknowledged payout to settle', async () => (await statusOf(base, last)).json.data.transaction.status === 'Success');
  report.phases.push({ phase: 'full while running', acknowledged: acked.size, answers, refusedWhileFull, lost });

  // 2. Full again (room for 1 MiB more than is used), then SIGTERM: the process stays up until it can write, then exits 0.
  const fs = statfsSync(disk);
  execFileSync('mount', ['-o', `remount,size=${(fs.blocks - fs.bfree) * fs.bsize + 1024 * 1024}`, disk]);
  const answers2 = {};
  await fill(base, 'B', acked, answers2);
  first.child.kill('SIGTERM');
  await until('the "cannot stop yet" message', async () => first.stderr().includes('cannot stop yet'));
  const upWhileFull = first.child.exitCode === null;
  execFileSync('mount', ['-o', `remount,size=${LARGE}`, disk]);
  const code = await first.exited;
  report.phases.push({ phase: 'stopped while full', acknowledged: acked.size, answers: answers2, upWhileFull, exitCode: code });

  // 3. A restart finds every acknowledged payout; balance and ledger agree with what is stored.
  const again = start(data, fixturesFile);
  children.push(again.child);
  const base2 = await again.listening;
  let lostAfter = 0;
  for (const [ref, refId] of acked) {
    const s = await statusOf(base2, ref);
    if (s.code !== 200 || String(s.json.data.transaction.ref_id) !== String(refId)) lostAfter += 1;
  }
  const ledger = await fetch(`${base2}/__sandbox/accounts/${VAN}/ledger`).then((r) => r.json());
  const payouts = (ledger.entries.length - 1) / 3;
  const balanceOk = ledger.balanced === true && Math.round(ledger.balance * 100) === OPENING - payouts * DEBIT + 0;
  again.child.kill('SIGTERM');
  const code2 = await again.exited;
  report.phases.push({ phase: 'restart', acknowledged: acked.size, lost: lostAfter, stored: payouts, balanceOk, exitCode: code2 });
  report.lost = lost + lostAfter;
  report.ok = report.lost === 0 && refusedWhileFull && upWhileFull && code === 0 && code2 === 0 && balanceOk && payouts >= acked.size;
} catch (err) {
  if (!(err instanceof Failed)) throw err;
  failure = err.message;
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  cleanUp();
}
if (failure !== null) {
  process.stderr.write(`disk-full: ${failure}\n`);
  process.exit(1);
}
if (JSON_OUT) console.log(JSON.stringify(report));
else {
  for (const p of report.phases) console.log(JSON.stringify(p));
  console.log(report.ok ? `ok: ${report.lost} acknowledged lost` : `FAILED: ${report.lost} acknowledged lost`);
}
process.exit(report.ok ? 0 : 1);

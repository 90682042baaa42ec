import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Har, HarAppender, type HarEntry, readHarFile, readHarText } from '../src/fidelity/har.js';
import { RecordError, startRecorder } from '../src/fidelity/record.js';
import { Scrubber } from '../src/fidelity/scrub.js';
import { type StartedSandbox, startSandbox } from '../src/index.js';
import { BIN } from './cli-helpers.js';

/**
 * `payout-sandbox record` (docs/fidelity.md): a recording proxy in front of a second sandbox on
 * 127.0.0.1 standing in for the real service (hence --allow-loopback-upstream). The session and
 * the crash go through the real CLI (needs `npm run build`); the rest runs in-process.
 */

const require = createRequire(import.meta.url);
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> };

const DEMO = { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001' };
const CHECKOUT = { MerchantId: 'SBXDEMO0001', AccessToken: 'sbx_token_demo_0001' };
const ACCOUNT = '001234567890';
const MOBILE = '9123456780';

let upstream: StartedSandbox;
const procs = new Set<ChildProcess>();
const dir = () => mkdtempSync(join(tmpdir(), 'payout-sandbox-record-'));

beforeAll(async () => {
  upstream = await startSandbox({ clock: 'manual', seed: 34, checkoutPort: 0 });
});
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await upstream?.stop();
});

interface RecorderProcess {
  proc: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** `payout-sandbox record …` until its banner names the URL it listens on (at most 15 s). */
function recordCli(args: string[], env: Record<string, string> = {}): Promise<RecorderProcess> {
  const proc = spawn(process.execPath, [BIN, 'record', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.add(proc);
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 15 s:\n${out}`)), 15_000);
    proc.stdout.on('data', () => {
      const m = /Recording: every request to (\S+) is forwarded to/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ proc, url: m[1], output: () => out, exited });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`record exited ${code} before its banner:\n${out}`));
    });
  });
}

/** `payout-sandbox record …` to its end: the exit code and what it printed. */
function runRecord(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const proc = spawn(process.execPath, [BIN, 'record', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Resolves once `file` exists (a watch on its folder, not a timer). */
function fileAppears(file: string): Promise<void> {
  return new Promise((resolve) => {
    const folder = join(file, '..');
    const watcher = watch(folder, () => {
      if (existsSync(file)) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(file)) {
      watcher.close();
      resolve();
    }
  });
}

/** A port nothing listens on (taken, then let go). */
async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

interface Call {
  method: string;
  path: string;
  status: number;
  text: string;
}

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Call> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { method, path, status: res.status, text: await res.text() };
}

const transfer = (clientRefId: string, amount: number) => ({
  client_ref_id: clientRefId,
  transfer_type: 'BANK',
  amount,
  payment_method: '1001',
  debit_from: 'DEMOVAN0000000000001',
  beneficiary_id: 'BENEDEMO000000000001',
  purpose: 'VENDOR_PAYOUT',
  remarks: 'recorded',
});

/** A merchant client's session: initialize, status check, a refusal, balance, a beneficiary created then read, a checkout status. */
async function session(base: string): Promise<Call[]> {
  const calls: Call[] = [];
  calls.push(await call(base, 'POST', '/api/v1/public/payment/transfer', DEMO, transfer('REC-0001', 1500.5)));
  calls.push(await call(base, 'GET', '/api/v1/public/payment/transfer/status?client_ref_id=REC-0001', DEMO));
  calls.push(await call(base, 'POST', '/api/v1/public/payment/transfer', DEMO, transfer('REC-0002', 1001.02)));
  calls.push(await call(base, 'GET', '/api/v1/public/balance/check?account_no=DEMOVAN0000000000001', DEMO));
  const created = await call(base, 'POST', '/api/v1/public/beneficiary/create', DEMO, {
    transfer_type: 'BANK',
    beneficiary_name: 'Anita Desai',
    beneficiary_email: 'anita@example.com',
    beneficiary_mobile: MOBILE,
    account_number: ACCOUNT,
    ifsc_code: 'ICIC0001234',
  });
  calls.push(created);
  const beneficiaryId = (JSON.parse(created.text) as { data: { beneficiary_id: string } }).data.beneficiary_id;
  calls.push(await call(base, 'POST', '/api/v1/public/beneficiary/get', DEMO, { beneficiary_id: beneficiaryId }));
  calls.push(await call(base, 'GET', '/api/v1/payment/transaction/PAY00000000000001/status', CHECKOUT));
  return calls;
}

describe('a session recorded through the CLI', () => {
  let har: Har;
  let raw: string;
  let calls: Call[];
  let output: string;

  beforeAll(async () => {
    const out = join(dir(), 'session.har');
    const rec = await recordCli([
      '--upstream',
      upstream.url,
      '--checkout-upstream',
      upstream.checkoutUrl,
      '--port',
      '0',
      '--out',
      out,
      '--scrub',
      'account_number,beneficiary_mobile',
      '--allow-loopback-upstream',
    ]);
    calls = await session(rec.url);
    rec.proc.kill('SIGTERM');
    expect(await rec.exited).toBe(0);
    output = rec.output();
    raw = readFileSync(out, 'utf8');
    const read = readHarText(raw);
    if ('problem' in read) throw new Error(read.problem);
    expect(read.repaired).toBe(false);
    har = read.har;
  }, 30_000);

  test('the banner says plainly where the calls go, where the HAR goes and what is scrubbed; the stop says how many were written', () => {
    expect(output).toMatch(
      /Recording: every request to http:\/\/127\.0\.0\.1:\d+ is forwarded to http:\/\/127\.0\.0\.1:\d+ \(the real service: real calls, real data\)/,
    );
    expect(output).toContain(`is forwarded to ${upstream.checkoutUrl}`);
    expect(output).toMatch(/HAR: +\S+session\.har/);
    expect(output).toMatch(
      /Scrubbed: +the headers x-api-key, x-api-secret, AccessToken, Authorization, x-merchant-email, MerchantId.*the fields account_number, beneficiary_mobile \(and, by their other names, bank_account_number, bank.account_no, bene_mobile_no, mobile_no\)/,
    );
    expect(output).toContain('Stopped: 7 exchanges recorded in');
  });

  test('the file is HAR 1.2 (har-validator), one entry per exchange in order, each with the upstream URL and its answer', async () => {
    await expect(harValidator.har(har)).resolves.toBeTruthy();
    expect(har.log.creator.name).toBe('payout-sandbox record');
    expect(har.log._payout_sandbox).toMatchObject({
      upstream: upstream.url,
      checkout_upstream: upstream.checkoutUrl,
      scrubbed: {
        fields: ['account_number', 'beneficiary_mobile'],
        aliases: ['bank_account_number', 'bank.account_no', 'bene_mobile_no', 'mobile_no'],
      },
    });
    const { entries } = har.log;
    expect(entries.map((e) => [e.request.method, e.response.status])).toEqual(calls.map((c) => [c.method, c.status]));
    expect(calls.map((c) => c.status)).toEqual([200, 200, 400, 200, 200, 200, 404]);
    for (const [i, e] of entries.entries()) {
      const base = i === 6 ? upstream.checkoutUrl : upstream.url;
      expect(e.request.url).toBe(`${base}${calls[i].path}`);
      expect(e.timings.send + e.timings.wait + e.timings.receive).toBeCloseTo(e.time, 2);
      expect(e.time).toBeGreaterThan(0);
      expect(e).not.toHaveProperty('_error');
    }
    // Answers that hold nothing scrubbed are kept as the client got them.
    for (const i of [0, 2, 3, 4]) expect(entries[i].response.content.text).toBe(calls[i].text);
    // The status answer names the payee's mobile as mobile_no: beneficiary_mobile's other name, scrubbed with it.
    expect(entries[1].response.content.text).toBe(calls[1].text.replace('"mobile_no":"9812345670"', '"mobile_no":"9000000001"'));
    expect(JSON.parse(entries[2].response.content.text as string)).toMatchObject({ error: { code: 'INSUFFICIENT_BALANCE' } });
    expect(entries[1].request.queryString).toEqual([{ name: 'client_ref_id', value: 'REC-0001' }]);
  });

  test('no credential and no scrubbed value is anywhere in the file', () => {
    for (const secret of [...Object.values(DEMO), ...Object.values(CHECKOUT), ACCOUNT, MOBILE, encodeURIComponent(DEMO['x-merchant-email'])]) {
      expect(raw).not.toContain(secret);
    }
    // The session did carry them: the client's answers show the account and the merchant's e-mail.
    expect(calls[5].text).toContain(ACCOUNT);
    expect(calls[5].text).toContain(DEMO['x-merchant-email']);
  });

  test('each value has one placeholder, of its shape, in every entry: identities still join up', () => {
    const header = (e: HarEntry, name: string) => e.request.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
    const [first, , , , create, get, checkout] = har.log.entries;
    for (const e of har.log.entries.slice(0, 6)) {
      expect(header(e, 'x-merchant-email')).toBe('scrubbed-1@scrubbed.invalid');
      expect(header(e, 'x-api-key')).toBe('scrubbed-x-api-key-1');
      expect(header(e, 'x-api-secret')).toBe('scrubbed-x-api-secret-1');
    }
    expect(header(checkout, 'MerchantId')).toBe('scrubbed-merchantid-1');
    expect(header(checkout, 'AccessToken')).toBe('scrubbed-accesstoken-1');
    expect(header(first, 'host')).toBe(new URL(upstream.url).host);
    const sent = JSON.parse(create.request.postData?.text as string) as Record<string, string>;
    // Numbered in the order met (the demo payee's mobile_no came first, then this mobile, first in the body); the e-mail and IFSC were not named with --scrub.
    expect(sent).toMatchObject({
      beneficiary_mobile: '9000000002',
      account_number: '900000000003',
      beneficiary_email: 'anita@example.com',
      ifsc_code: 'ICIC0001234',
    });
    // The next entry's answer names the same account and mobile under other keys, and the merchant's e-mail: the same placeholders.
    const answered = (JSON.parse(get.response.content.text as string) as { data: Record<string, string> }).data;
    expect(answered).toMatchObject({ bank_account_number: '900000000003', bene_mobile_no: '9000000002', email_id: 'scrubbed-1@scrubbed.invalid' });
  });
});

describe('refusals at start', () => {
  test('a loopback upstream without --allow-loopback-upstream, a non-http one, an unwritable --out, an existing one: exit 2 saying why', async () => {
    const d = dir();
    const out = join(d, 'x.har');
    const loopback = await runRecord(['--upstream', 'http://127.0.0.1:9', '--out', out, '--port', '0']);
    expect(loopback.code).toBe(2);
    expect(loopback.stderr).toMatch(/--upstream http:\/\/127\.0\.0\.1:9 is a loopback or unspecified address.*--allow-loopback-upstream/);
    const ftp = await runRecord(['--upstream', 'ftp://uat.example.com', '--out', out, '--port', '0']);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toMatch(/must be an http or https URL/);
    const nowhere = await runRecord(['--upstream', upstream.url, '--allow-loopback-upstream', '--out', join(d, 'missing', 'x.har'), '--port', '0']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/--out .*x\.har cannot be written \(no such directory\)/);
    writeFileSync(out, 'an earlier recording');
    const existing = await runRecord(['--upstream', upstream.url, '--allow-loopback-upstream', '--out', out, '--port', '0']);
    expect(existing.code).toBe(2);
    expect(existing.stderr).toMatch(/exists: a recording of real calls is not replaced unless you say so \(--force\)/);
    expect(readFileSync(out, 'utf8')).toBe('an earlier recording');
  }, 30_000);

  test("the recorder's own address and port is refused, flag or not (exit 2)", async () => {
    const port = await freePort();
    const own = await runRecord(['--upstream', `http://localhost:${port}`, '--allow-loopback-upstream', '--port', String(port), '--out', join(dir(), 'x.har')]);
    expect(own.code).toBe(2);
    expect(own.stderr).toMatch(/is this recorder's own address and port: it would forward every request to itself/);
  });

  test('in-process: every loopback or unspecified form, and a checkout upstream as well; nothing is written', async () => {
    const out = join(dir(), 'x.har');
    for (const url of [
      'http://127.0.0.1:9',
      'http://127.9.9.9',
      'http://[::1]:9',
      'http://0.0.0.0:9',
      'http://localhost:9',
      'http://api.localhost',
      'http://[::ffff:127.0.0.1]',
    ]) {
      const refused = startRecorder({ upstream: url, out, port: 0 });
      await expect(refused).rejects.toBeInstanceOf(RecordError);
      await expect(refused).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/--allow-loopback-upstream/) });
    }
    await expect(startRecorder({ upstream: 'https://user:pw@uat.example.com', out, port: 0 })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/must not carry credentials/),
    });
    const port = await freePort();
    await expect(
      startRecorder({ upstream: upstream.url, checkoutUpstream: `http://127.0.0.1:${port}`, port, allowLoopbackUpstream: true, out }),
    ).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/--checkout-upstream .* own address and port/) });
    expect(existsSync(out)).toBe(false);
  });

  test('--force replaces an existing file, and the recorder says so', async () => {
    const out = join(dir(), 'x.har');
    writeFileSync(out, 'an earlier recording');
    const rec = await startRecorder({ upstream: upstream.url, allowLoopbackUpstream: true, port: 0, out, force: true });
    expect(rec.replaced).toBe(true);
    await rec.close();
    const read = await readHarFile(out);
    expect(read).toMatchObject({ repaired: false, har: { log: { entries: [] } } });
  });
});

describe('an upstream that does not answer', () => {
  test('connection refused: the client gets a 502 naming it, the entry status 0 and an _error', async () => {
    const out = join(dir(), 'refused.har');
    const closed = await freePort();
    const rec = await startRecorder({ upstream: `http://127.0.0.1:${closed}`, allowLoopbackUpstream: true, port: 0, out });
    const res = await fetch(`${rec.url}/api/v1/public/balance/check?account_no=DEMOVAN0000000000001`, { headers: DEMO });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { success: boolean; http_code: number; message: string };
    expect(body).toMatchObject({ success: false, http_code: 502 });
    expect(body.message).toMatch(new RegExp(`payout-sandbox record: the upstream http://127.0.0.1:${closed} did not answer: .*ECONNREFUSED`));
    await rec.close();
    const read = await readHarFile(out);
    if ('problem' in read) throw new Error(read.problem);
    await expect(harValidator.har(read.har)).resolves.toBeTruthy();
    const [entry] = read.har.log.entries;
    expect(entry.response).toMatchObject({ status: 0, statusText: '', bodySize: -1 });
    expect(entry._error).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(entry)).not.toContain(DEMO['x-api-secret']);
  });

  test('a time-out (--timeout) is reported, not hidden', async () => {
    const sockets = new Set<Socket>();
    const silent: NetServer = createNetServer((s) => sockets.add(s.on('error', () => {})));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const out = join(dir(), 'timeout.har');
    const rec = await startRecorder({
      upstream: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      allowLoopbackUpstream: true,
      port: 0,
      out,
      timeoutMs: 200,
    });
    const res = await fetch(`${rec.url}/api/v1/public/balance/check`, { headers: DEMO });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { message: string }).message).toMatch(/did not answer: no answer within 200ms/);
    await rec.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
    const read = await readHarFile(out);
    if ('problem' in read) throw new Error(read.problem);
    expect(read.har.log.entries[0]).toMatchObject({ response: { status: 0 }, _error: 'no answer within 200ms' });
  });
});

test('a stop lets the exchange in flight finish: the client gets its answer and the file holds it', async () => {
  let held: ServerResponse | null = null;
  let arrived!: () => void;
  const arrival = new Promise<void>((r) => {
    arrived = r;
  });
  const slow = createHttpServer((_req, res) => {
    held = res;
    arrived();
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  const out = join(dir(), 'stop.har');
  const rec = await startRecorder({ upstream: slowUrl, allowLoopbackUpstream: true, port: 0, out });
  const pending = fetch(`${rec.url}/slow`);
  await arrival;
  const closed = rec.close();
  (held as unknown as ServerResponse).writeHead(200, { 'content-type': 'text/plain' }).end('at last');
  const res = await pending;
  expect(await res.text()).toBe('at last');
  await closed;
  slow.close();
  const read = await readHarFile(out);
  if ('problem' in read) throw new Error(read.problem);
  expect(read.har.log.entries.map((e) => [e.request.url, e.response.status, e.response.content.text])).toEqual([[`${slowUrl}/slow`, 200, 'at last']]);
});

test('killed with SIGKILL mid-write: the file reads back with every entry but the one being written (repaired)', async () => {
  const d = dir();
  const out = join(d, 'crash.har');
  const marker = join(d, 'torn');
  const rec = await recordCli(['--upstream', upstream.url, '--allow-loopback-upstream', '--port', '0', '--out', out], {
    PAYOUT_SANDBOX_TEST_PAUSE: `record-append-4:${marker}`,
  });
  const balance = () => fetch(`${rec.url}/api/v1/public/balance/check?account_no=DEMOVAN0000000000001`, { headers: DEMO });
  for (let i = 0; i < 3; i++) expect((await balance()).status).toBe(200);
  // Between two writes the file is whole HAR as it stands.
  const between = readHarText(readFileSync(out, 'utf8'));
  expect(between).toMatchObject({ repaired: false });
  expect('har' in between && between.har.log.entries).toHaveLength(3);

  const inFlight = balance().catch((err: Error) => err);
  await fileAppears(marker);
  rec.proc.kill('SIGKILL');
  await rec.exited;
  // The client of the exchange in flight got no answer (fetch failed): it is the one the file lacks.
  expect(await inFlight).toHaveProperty('message', 'fetch failed');
  const text = readFileSync(out, 'utf8');
  expect(() => JSON.parse(text)).toThrow();
  const read = readHarText(text);
  if ('problem' in read) throw new Error(read.problem);
  expect(read.repaired).toBe(true);
  expect(read.har.log.entries.map((e) => e.response.status)).toEqual([200, 200, 200]);
  await expect(harValidator.har(read.har)).resolves.toBeTruthy();
}, 30_000);

describe('the file, as written and as read', () => {
  const entry = (n: number): HarEntry => ({
    startedDateTime: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    time: 3,
    request: {
      method: 'GET',
      url: `https://uat.example.com/x?n=${n}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      queryString: [{ name: 'n', value: String(n) }],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: 8, mimeType: 'text/plain', text: 'line\none' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 8,
    },
    cache: {},
    timings: { send: 1, wait: 1, receive: 1 },
  });
  const head = { version: '1.2' as const, creator: { name: 'payout-sandbox record', version: '0' } };

  test('valid HAR after every append: the head line, one line an entry, the closing line', async () => {
    const file = join(dir(), 'a.har');
    const appender = await HarAppender.create(file, head);
    await expect(harValidator.har(JSON.parse(readFileSync(file, 'utf8')))).resolves.toBeTruthy();
    for (let n = 1; n <= 3; n++) {
      await appender.append(entry(n));
      const text = readFileSync(file, 'utf8');
      await expect(harValidator.har(JSON.parse(text))).resolves.toBeTruthy();
      const lines = text.split('\n');
      expect(lines[0].endsWith('"entries":[')).toBe(true);
      expect(lines.slice(1)).toHaveLength(n + 2);
      expect(lines.at(-2)).toBe(']}}');
      expect(lines.at(-1)).toBe('');
      if (n > 1) expect(lines[n].startsWith(',{')).toBe(true);
    }
    await appender.close();
    await expect(HarAppender.create(file, head)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  test('a torn last line is dropped; every cut of the last append reads back the entries before it', async () => {
    const file = join(dir(), 'b.har');
    const appender = await HarAppender.create(file, head);
    await appender.append(entry(1));
    await appender.append(entry(2));
    await appender.close();
    const whole = readFileSync(file, 'utf8');
    const closing = whole.length - ']}}\n'.length;
    const next = `,${JSON.stringify(entry(3))}\n]}}\n`;
    // A positional write torn after k bytes: its first k bytes over the closing line, the closing line's remainder after them.
    for (let k = 0; k <= next.length; k++) {
      const torn = whole.slice(0, closing) + next.slice(0, k) + whole.slice(closing + k);
      const read = readHarText(torn);
      if ('problem' in read) throw new Error(`cut at ${k}: ${read.problem}`);
      // The entry's line is whole once its last brace is written, with or without its newline.
      expect(read.har.log.entries.length).toBe(k >= next.length - ']}}\n'.length - 1 ? 3 : 2);
    }
  });

  test('damaged text is named, not read', () => {
    expect(readHarText('hello')).toEqual({ problem: expect.stringMatching(/^not JSON .*not a file cut short by payout-sandbox record/) });
    expect(readHarText('')).toEqual({ problem: expect.stringMatching(/empty/) });
    expect(readHarText('{"trace":1}')).toEqual({ problem: 'not a HAR: no "log" object' });
    expect(readHarText(JSON.stringify({ log: { version: '1.1', creator: { name: 'x', version: '1' }, entries: [] } }))).toEqual({
      problem: 'a HAR of version "1.1": only HAR 1.2 is read',
    });
    const noRequest = { ...entry(2), request: undefined };
    expect(readHarText(JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [entry(1), noRequest] } }))).toEqual({
      problem: 'entry 2 has no request',
    });
    // A recorder's file broken in the middle is damage, not a crash: named, not repaired.
    const headLine = `${JSON.stringify({ log: { ...head, entries: [] } }).slice(0, -3)}`;
    const middle = [headLine, JSON.stringify(entry(1)), ',{"broken', `,${JSON.stringify(entry(3))}`, ''].join('\n');
    expect(readHarText(middle)).toEqual({ problem: expect.stringMatching(/^line 3: entry 2 is not JSON \(damaged in the middle, not cut short\)/) });
    const tornWithoutRequest = [headLine, JSON.stringify(entry(1)), `,${JSON.stringify(noRequest)}`, ']}}', ''].join('\n');
    expect(readHarText(tornWithoutRequest)).toEqual({ problem: expect.stringMatching(/entry 2 has no request/) });
  });

  test('a file that cannot be read is a problem too', async () => {
    expect(await readHarFile(join(dir(), 'none.har'))).toEqual({ problem: expect.stringMatching(/cannot read .*none\.har \(no such file\)/) });
    const folder = join(dir(), 'folder.har');
    mkdirSync(folder);
    expect(await readHarFile(folder)).toHaveProperty('problem');
  });
});

describe('the scrubber', () => {
  const exchange = (over: {
    url?: string;
    headers?: Record<string, string>;
    body?: string;
    mime?: string;
    answer?: string;
    answerHeaders?: Record<string, string>;
  }): HarEntry => ({
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: over.body === undefined ? 'GET' : 'POST',
      url: over.url ?? 'https://uat.example.com/api',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(over.headers ?? {}).map(([name, value]) => ({ name, value })),
      queryString: [],
      ...(over.body === undefined ? {} : { postData: { mimeType: over.mime ?? 'application/json', text: over.body } }),
      headersSize: -1,
      bodySize: over.body?.length ?? 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(over.answerHeaders ?? {}).map(([name, value]) => ({ name, value })),
      content: { size: 0, mimeType: 'application/json', ...(over.answer === undefined ? {} : { text: over.answer }) },
      redirectURL: '',
      headersSize: -1,
      bodySize: 0,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  });
  const headersOf = (e: HarEntry) => Object.fromEntries(e.request.headers.map((h) => [h.name, h.value]));

  test('credential headers: a placeholder per header and value, the e-mail as an e-mail, Authorization keeping its scheme', () => {
    const s = new Scrubber([]);
    const a = s.entry(
      exchange({
        headers: { 'X-Api-Key': 'key-one', 'x-merchant-email': 'm@shop.in', Authorization: 'Bearer tok-123456', AccessToken: 'acc-1', 'x-other': 'kept' },
      }),
    );
    expect(headersOf(a)).toEqual({
      'X-Api-Key': 'scrubbed-x-api-key-1',
      'x-merchant-email': 'scrubbed-1@scrubbed.invalid',
      Authorization: 'Bearer scrubbed-authorization-1',
      AccessToken: 'scrubbed-accesstoken-1',
      'x-other': 'kept',
    });
    const b = s.entry(exchange({ headers: { 'x-api-key': 'key-two', Authorization: 'Bearer tok-123456' } }));
    expect(headersOf(b)).toEqual({ 'x-api-key': 'scrubbed-x-api-key-2', Authorization: 'Bearer scrubbed-authorization-1' });
  });

  test('fields keep their shape: digits of the same length (a JSON number stays one), an e-mail, an IFSC, else a named placeholder', () => {
    const s = new Scrubber(['account_number', 'email', 'ifsc', 'name', 'ref']);
    const body =
      '{ "account_number": "001234567890",\n  "nested": [{ "email": "a.b@example.com", "ifsc": "HDFC0001234" }],\n  "name": "Anita Desai", "ref": 123456, "amount": 1500.50 }';
    const out = s.entry(exchange({ body })).request.postData?.text;
    expect(out).toBe(
      '{ "account_number": "900000000001",\n  "nested": [{ "email": "scrubbed-1@scrubbed.invalid", "ifsc": "HDFC0000001" }],\n  "name": "scrubbed-name-1", "ref": 900002, "amount": 1500.50 }',
    );
  });

  test('a value once known is replaced everywhere after: URL, query, other headers, answers, inside longer strings, URL-encoded', () => {
    const s = new Scrubber(['account_number', 'email']);
    s.entry(exchange({ body: JSON.stringify({ account_number: '50100012345678', email: 'ravi@example.com' }) }));
    const later = s.entry(
      exchange({
        url: 'https://uat.example.com/accounts/50100012345678?q=ravi%40example.com&note=acct-50100012345678',
        headers: { 'x-trace': 'for 50100012345678' },
        answer: JSON.stringify({ message: 'Account 50100012345678 of ravi@example.com', bank_account_number: 50100012345678 }),
      }),
    );
    expect(later.request.url).toBe('https://uat.example.com/accounts/90000000000001?q=scrubbed-1%40scrubbed.invalid&note=acct-90000000000001');
    expect(later.request.queryString).toEqual([
      { name: 'q', value: 'scrubbed-1@scrubbed.invalid' },
      { name: 'note', value: 'acct-90000000000001' },
    ]);
    expect(headersOf(later)['x-trace']).toBe('for 90000000000001');
    expect(JSON.parse(later.response.content.text as string)).toEqual({
      message: 'Account 90000000000001 of scrubbed-1@scrubbed.invalid',
      bank_account_number: 90000000000001,
    });
  });

  test('form bodies and query parameters are fields too; a value under 4 characters is replaced only in its own field', () => {
    const s = new Scrubber(['account_number', 'pin']);
    const e = s.entry(
      exchange({
        url: 'https://uat.example.com/get?account_number=123456789012&x=12',
        body: 'pin=12&remarks=pin+12+for+123456789012&amount=12',
        mime: 'application/x-www-form-urlencoded',
      }),
    );
    expect(e.request.url).toBe('https://uat.example.com/get?account_number=900000000001&x=12');
    expect(e.request.postData?.text).toBe('pin=92&remarks=pin%2012%20for%20900000000001&amount=12');
  });

  test('JSON nested deeper than the scanner reaches is not kept: its fields could not be found', () => {
    const deep = `{"account_number":"123456789012","deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const e = new Scrubber(['account_number']).entry(exchange({ body: deep, answer: deep }));
    expect(e.request.postData).toBeUndefined();
    expect(e.response.content.text).toBeUndefined();
    expect(e).toMatchObject({ _request_body: 'JSON nested too deep to scrub: not kept', _response_body: 'JSON nested too deep to scrub: not kept' });
    expect(JSON.stringify(e)).not.toContain('123456789012');
  });

  test("naming a field scrubs the reference's other names for it; a form's nested key matches on its last segment", () => {
    const s = new Scrubber(['account_number', 'beneficiary_email', 'aadhaar_number']);
    const e = s.entry(
      exchange({
        body: 'aadhaar%5Baadhaar_number%5D=123412341234&bank.account_no=50100012345678&otp=1234',
        mime: 'application/x-www-form-urlencoded',
        answer: JSON.stringify({ data: { bank_account_number: '60200012345678', email_id: 'Ravi.K@Example.com', name: 'kept' } }),
      }),
    );
    expect(e.request.postData?.text).toBe('aadhaar%5Baadhaar_number%5D=900000000001&bank.account_no=90000000000002&otp=1234');
    expect(JSON.parse(e.response.content.text as string)).toEqual({
      data: { bank_account_number: '90000000000003', email_id: 'scrubbed-1@scrubbed.invalid', name: 'kept' },
    });
    expect(s.scrubbed.aliases).toEqual(['bank_account_number', 'bank.account_no', 'bene_email', 'email_id']);
    // In JSON too, under its parent only: the balance check's account_no is the merchant's VAN.
    const json = s.entry(exchange({ url: 'https://uat.example.com/balance?account_no=VAN00012345', body: '{"bank":{"account_no":"70300012345678"}}' }));
    expect(json.request.postData?.text).toBe('{"bank":{"account_no":"90000000000004"}}');
    expect(json.request.url).toBe('https://uat.example.com/balance?account_no=VAN00012345');
  });

  test('an e-mail once known is replaced in whatever case it is written again', () => {
    const s = new Scrubber(['beneficiary_email']);
    s.entry(exchange({ body: JSON.stringify({ beneficiary_email: 'Ravi.K@Example.com' }) }));
    const later = s.entry(exchange({ url: 'https://uat.example.com/x?q=ravi.k%40example.com', answer: '{"message":"RAVI.K@EXAMPLE.COM is taken"}' }));
    expect(later.request.url).toBe('https://uat.example.com/x?q=scrubbed-1%40scrubbed.invalid');
    expect(later.response.content.text).toBe('{"message":"scrubbed-1@scrubbed.invalid is taken"}');
  });

  test('a body neither JSON nor a form that names a scrubbed field is not kept: its value cannot be found in it', () => {
    const s = new Scrubber(['account_number']);
    const e = s.entry(
      exchange({ body: '<req><account_number>123456789012</account_number></req>', mime: 'application/xml', answer: 'plain text, nothing named' }),
    );
    expect(e.request.postData).toBeUndefined();
    expect(e._request_body).toBe('neither JSON nor a form, and it names a scrubbed field: not kept');
    expect(e.response.content.text).toBe('plain text, nothing named');
    expect(JSON.stringify(e)).not.toContain('123456789012');
  });

  test('an error text and a comment are scrubbed as well; HAR fields of its own are not touched', () => {
    const s = new Scrubber(['account_number']);
    const e = s.entry({ ...exchange({ body: '{"account_number":"2026"}' }), _error: 'refused for 2026', comment: 'account 2026' });
    expect(e).toMatchObject({ _error: 'refused for 9001', comment: 'account 9001', startedDateTime: '2026-01-01T00:00:00.000Z' });
  });
});

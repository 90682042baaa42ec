import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll, type Running, startCli } from './cli-helpers.js';
import { useTempDir } from './helpers.js';
import { startReceiver } from './receiver.js';

/**
 * docs/any-language.md as a reader uses it: the Python and Java payout snippets, the Python
 * receiver's script and the shell check of a signature, run against a real sandbox; every
 * receiver the docs show is the example's file (`<!-- file: PATH -->` blocks equal the file) and
 * verifies V2; no doc shows the older X-Sandbox-Signature as the way to verify, outside the
 * section of webhooks.md that explains it.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The sandbox serves every test of the file (killAll after each test would stop it): stopped in afterAll.
const dir = useTempDir();
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const page = read('docs/any-language.md');

/** The fenced block after `<!-- snippet: NAME -->`. */
function snippet(name: string): string {
  const at = page.indexOf(`<!-- snippet: ${name} -->`);
  if (at < 0) throw new Error(`no snippet ${name}`);
  return /```\w*\n([\s\S]*?)```/.exec(page.slice(at))![1];
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A python3 that has `requests` (the snippets' one dependency): on PATH, or Debian's with python3-requests. */
const python = ['python3', '/usr/bin/python3'].find((p) => spawnSync(p, ['-c', 'import requests'], { stdio: 'ignore' }).status === 0);

let sandbox: Running;
let port: string;
beforeAll(async () => {
  sandbox = await startCli(['--port', '0', '--data', 'memory', '--clock', 'manual']);
  port = new URL(sandbox.url).port;
}, 30_000);
afterAll(async () => {
  await sandbox.stop();
  killAll();
});

const local = (code: string) => code.replaceAll('127.0.0.1:4010', `127.0.0.1:${port}`);

describe('the payout snippets, run', () => {
  const pythonTest = python !== undefined || inCi ? test : test.skip;
  if (python === undefined && !inCi)
    process.stderr.write('test/any-language.test.ts: no python3 with requests here: the Python snippets are not run (in CI they are).\n');

  pythonTest('Python: a payout, its status after 5 s of sandbox time, a magic rejection', () => {
    expect(python).toBeDefined();
    const file = join(dir(), 'payout.py');
    writeFileSync(file, local(snippet('python-payout')));
    const r = spawnSync(python!, [file], { encoding: 'utf8', timeout: 30_000 });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^200 \{'success': True, 'http_code': 200, .*'client_ref_id': 'PY-ORDER-0001', 'status': 'Pending'\}\}\n200 Success\n400 INSUFFICIENT_BALANCE\n$/,
    );
  });

  test('Java: the same with java.net.http alone (java Payout.java)', () => {
    const file = join(dir(), 'Payout.java');
    writeFileSync(file, local(snippet('java-payout')));
    const r = spawnSync('java', [file], { encoding: 'utf8', timeout: 60_000 });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^200 \{"success":true,"http_code":200,.*"client_ref_id":"JAVA-ORDER-0001","status":"Pending"\}\}\n200 Success\n400 INSUFFICIENT_BALANCE\n$/,
    );
  }, 60_000);

  pythonTest("Python: the example's receiver, used as the page shows, gets the payout's webhook verified", async () => {
    expect(python).toBeDefined();
    const hooks = await freePort();
    copyFileSync(join(ROOT, 'examples/python/webhook_receiver.py'), join(dir(), 'webhook_receiver.py'));
    writeFileSync(join(dir(), 'receiver_demo.py'), local(snippet('python-receiver-run')).replace('port=3000', `port=${hooks}`));
    const r = spawnSync(python!, ['receiver_demo.py'], { cwd: dir(), encoding: 'utf8', timeout: 30_000 });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^webhook: \d{10} Success \| refused: 0\n$/);
  });
});

test('Python with urllib alone: the request the page shows (Content-Type set) makes the payout; without the header urllib sends a form and the answer names the missing field', () => {
  const py = ['python3', '/usr/bin/python3'].find((p) => spawnSync(p, ['-c', '0'], { stdio: 'ignore' }).status === 0);
  expect(py).toBeDefined();
  const program = (ref: string, withHeader: boolean) => {
    const req = snippet('python-urllib').trim();
    return [
      'import json, urllib.request, urllib.error',
      `BASE = "http://127.0.0.1:${port}"`,
      'HEADERS = {"x-merchant-email": "demo@payout-sandbox.test", "x-api-key": "sbx_key_demo_0001", "x-api-secret": "sbx_secret_demo_0001"}',
      `body = {"client_ref_id": "${ref}", "transfer_type": "BANK", "amount": 321.5, "payment_method": "1001", "debit_from": "DEMOVAN0000000000001", "beneficiary_id": "BENEDEMO000000000001", "purpose": "VENDOR_PAYOUT", "remarks": "urllib"}`,
      withHeader ? req : req.replace(', "Content-Type": "application/json"', ''),
      'try:',
      '    with urllib.request.urlopen(req) as r: print(r.status, json.load(r)["data"]["status"])',
      'except urllib.error.HTTPError as e:',
      '    print(e.code, json.load(e)["message"])',
    ].join('\n');
  };
  const run = (code: string) => spawnSync(py!, ['-c', code], { encoding: 'utf8', timeout: 30_000 });
  expect(run(program('URLLIB-0001', true)).stdout).toBe('200 Pending\n');
  expect(run(program('URLLIB-0002', false)).stdout).toBe('400 The client ref id field is required.\n');
});

test("the Python example's verify_v2 refuses, never raises on, a header with non-ASCII characters (compare_digest refuses such str) or a non-ASCII digit", () => {
  const py = ['python3', '/usr/bin/python3'].find((p) => spawnSync(p, ['-c', '0'], { stdio: 'ignore' }).status === 0);
  expect(py).toBeDefined();
  copyFileSync(join(ROOT, 'examples/python/webhook_receiver.py'), join(dir(), 'webhook_receiver.py'));
  const r = spawnSync(
    py!,
    ['-c', "from webhook_receiver import verify_v2\nprint(verify_v2('t=1,v1=\\u00e9', b'{}', 's', now=1), verify_v2('t=\\u00b2,v1=ab', b'{}', 's', now=1))"],
    { cwd: dir(), encoding: 'utf8' },
  );
  expect({ code: r.status, out: r.stdout, err: r.stderr }).toEqual({ code: 0, out: 'False False\n', err: '' });
});

test('the shell check of a signature: a real delivery verifies; a changed body, a stale timestamp or the older header alone do not', async () => {
  const receiver = await startReceiver();
  const control = `${sandbox.url}/__sandbox`;
  const json = { 'content-type': 'application/json' };
  expect(
    (await fetch(`${control}/merchants/demo@payout-sandbox.test`, { method: 'PATCH', headers: json, body: JSON.stringify({ webhook_url: receiver.url }) }))
      .status,
  ).toBe(200);
  const h = { ...json, 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001' };
  const body = {
    client_ref_id: 'SH-HOOK-0001',
    transfer_type: 'BANK',
    amount: 300,
    payment_method: '1001',
    debit_from: 'DEMOVAN0000000000001',
    beneficiary_id: 'BENEDEMO000000000001',
    purpose: 'VENDOR_PAYOUT',
    remarks: 'shell',
  };
  expect((await fetch(`${sandbox.url}/api/v1/public/payment/transfer`, { method: 'POST', headers: h, body: JSON.stringify(body) })).status).toBe(200);
  await fetch(`${control}/clock/advance`, { method: 'POST', headers: json, body: '{"by":"5s"}' });
  await receiver.waitFor(1);
  await receiver.close();
  const delivery = receiver.received[0];
  const header = String(delivery.headers['x-sandbox-signature-v2']);
  const check = (signature: string, raw: string, secret = 'sbx_secret_demo_0001') => {
    writeFileSync(join(dir(), 'body.json'), raw);
    const script = snippet('shell-verify').replace('sbx_secret_demo_0001', secret);
    return spawnSync('bash', ['-c', script], { cwd: dir(), env: { PATH: process.env.PATH, SIGNATURE_V2: signature }, encoding: 'utf8' });
  };
  expect(check(header, delivery.body)).toMatchObject({ status: 0, stdout: 'verified\n' });
  expect(check(header, delivery.body.replace('"Success"', '"Failed"')).status).toBe(1);
  expect(check(header, delivery.body, 'another_secret').status).toBe(1);
  // Correctly signed, but ten minutes old: a replay.
  const old = Math.floor(Date.now() / 1000) - 600;
  const stale = `t=${old},v1=${createHmac('sha256', 'sbx_secret_demo_0001').update(`${old}.${delivery.body}`).digest('hex')}`;
  expect(check(stale, delivery.body).status).toBe(1);
  // A rotation's two v1 entries: either verifies.
  const t = /t=(\d+)/.exec(header)![1];
  expect(check(`t=${t},v1=${'0'.repeat(64)},${header.split(',').find((p) => p.startsWith('v1='))}`, delivery.body).status).toBe(0);
  // The older header's value is not a V2 signature.
  expect(check(String(delivery.headers['x-sandbox-signature']), delivery.body).status).toBe(1);
}, 30_000);

test("every `<!-- file: PATH -->` block of the docs is that file, as it is (the docs' receivers are the examples' receivers)", () => {
  const docs = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const shown: string[] = [];
  for (const doc of docs) {
    for (const m of read(doc).matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)```/g)) {
      shown.push(m[1]);
      expect({ doc, file: m[1], text: m[2] }).toEqual({ doc, file: m[1], text: `${read(m[1]).replace(/\n+$/, '')}\n` });
    }
  }
  expect(shown).toEqual(
    expect.arrayContaining(['examples/python/webhook_receiver.py', 'examples/java/src/main/java/com/example/payouts/WebhookReceiver.java']),
  );
});

test('no doc shows the older X-Sandbox-Signature as the way to verify, outside the section that explains it', () => {
  const docs = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
    ...['examples/python/README.md', 'examples/java/README.md'].filter((f) => existsSync(join(ROOT, f))),
  ];
  const offenders: string[] = [];
  for (const doc of docs) {
    let text = read(doc);
    // webhooks.md's "The older header" is where V1 is explained (and said not to be used).
    if (doc === 'docs/webhooks.md') text = text.replace(/### The older header[\s\S]*?(?=\n## )/, '');
    for (const [, code] of text.matchAll(/```\w*\n([\s\S]*?)```/g)) {
      for (const line of code.split('\n')) {
        // Reading the older header in code (a header lookup by name), not its mention in prose.
        if (/x-sandbox-signature(?!-v2)['"]/i.test(line) || /signBody\(/.test(line)) offenders.push(`${doc}: ${line.trim()}`);
      }
    }
  }
  expect(offenders).toEqual([]);
});

test('the receivers the docs show all read X-Sandbox-Signature-V2 and X-Sandbox-Delivery-Id', () => {
  for (const file of [
    'examples/python/webhook_receiver.py',
    'examples/java/src/main/java/com/example/payouts/WebhookReceiver.java',
    'examples/jest/webhook-handler.ts',
  ]) {
    const text = read(file);
    expect({ file, v2: /X-Sandbox-Signature-V2/i.test(text), delivery: /X-Sandbox-Delivery-Id/i.test(text), tolerance: /300/.test(text) }).toEqual({
      file,
      v2: true,
      delivery: true,
      tolerance: true,
    });
  }
  const webhooks = read('docs/webhooks.md');
  for (const lang of ['### Node', '### Python']) {
    const section = webhooks.slice(webhooks.indexOf(lang), webhooks.indexOf('\n### ', webhooks.indexOf(lang) + 4));
    expect({ lang, v2: section.includes('X-Sandbox-Signature-V2'), delivery: section.includes('X-Sandbox-Delivery-Id') }).toEqual({
      lang,
      v2: true,
      delivery: true,
    });
  }
});

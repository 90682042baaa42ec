// `npm run test:image`: the container image as a user runs it (after `npm run build:image`).
// Without a token it refuses to start, saying which variable to set; with SANDBOX_ADMIN_TOKEN it
// answers on a published port, its HEALTHCHECK (the executable's own `wait`) passes, the
// dashboard loads, one payout settles and its signed webhook reaches a receiver on this host
// (through the engine's host gateway), and SIGTERM stops it with exit 0. Then under another uid
// (`--user`): a report directory it cannot write refused at start, the data and reports written to
// bind mounts it owns, the image's own volume. Exit 1 on any failure.
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { containerEngine } from './container-engine.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const IMAGE = `payout-sandbox:${version}`;
const MAX_MIB = 160;
const DEMO = { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'sbx_key_demo_0001', 'x-api-secret': 'sbx_secret_demo_0001' };

const engine = containerEngine();
const started = Date.now();
const say = (line) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`);

function fail(message) {
  throw new Error(message);
}

/** Runs the engine: its exit code and output. */
function run(args, timeout = 60_000) {
  const r = spawnSync(engine.cmd, [...engine.global, ...args], { encoding: 'utf8', timeout });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function freePort() {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A webhook receiver on this host, on every address: the container reaches it through the engine's host gateway. */
async function receiver() {
  const received = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '0.0.0.0', resolve));
  return { port: server.address().port, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, seconds, check) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) fail(`${what}: not within ${seconds} s`);
    await sleep(100);
  }
}

/** The V2 signature check a receiver makes: `t=<s>,v1=<hex HMAC-SHA256 of "t.body">`. */
function signedBy(secret, header, body) {
  const parts = Object.fromEntries(
    String(header ?? '')
      .split(',')
      .map((p) => p.trim().split('=')),
  );
  return parts.v1 === createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex');
}

async function main() {
  if (engine === null) fail('neither podman nor docker is available (Debian: apt-get install podman runc)');
  const size = Number(run(['image', 'inspect', '--format', '{{.Size}}', IMAGE]).out.trim());
  if (!Number.isFinite(size) || size === 0) fail(`no image ${IMAGE}: run npm run build:image`);
  const mib = size / 2 ** 20;
  say(`${IMAGE}: ${mib.toFixed(1)} MiB (at most ${MAX_MIB})`);
  if (mib >= MAX_MIB) fail(`the image is ${mib.toFixed(1)} MiB, not under ${MAX_MIB} MiB`);

  // 1. Listening on 0.0.0.0 with neither a token nor the opt-out: refused, naming the variables.
  const refused = run(['run', '--rm', ...engine.runFlags, IMAGE]);
  if (refused.code !== 2 || !/SANDBOX_ADMIN_TOKEN/.test(refused.out) || !/SANDBOX_INSECURE_OPEN_CONTROL=1/.test(refused.out)) {
    fail(`without a token the image should exit 2 naming SANDBOX_ADMIN_TOKEN and SANDBOX_INSECURE_OPEN_CONTROL=1; it exited ${refused.code}:\n${refused.out}`);
  }
  say('without a token: exit 2, naming SANDBOX_ADMIN_TOKEN and SANDBOX_INSECURE_OPEN_CONTROL=1');

  // 2. With a token, on a published port.
  const hooks = await receiver();
  const port = await freePort();
  const token = randomBytes(12).toString('hex');
  const name = `payout-sandbox-test-${process.pid}`;
  const gateway = engine.cmd === 'podman' ? 'host.containers.internal' : 'host.docker.internal';
  const hostFlags = engine.cmd === 'docker' ? ['--add-host', 'host.docker.internal:host-gateway'] : [];
  const base = `http://127.0.0.1:${port}`;
  const control = (path, init = {}) =>
    fetch(`${base}/__sandbox${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
  try {
    const up = run([
      'run',
      '-d',
      '--name',
      name,
      ...engine.runFlags,
      ...hostFlags,
      '-p',
      `127.0.0.1:${port}:4010`,
      '-e',
      `SANDBOX_ADMIN_TOKEN=${token}`,
      IMAGE,
      '--clock',
      'manual',
    ]);
    if (up.code !== 0) fail(`${engine.cmd} run failed:\n${up.out}`);
    const health = await until('healthy on the published port', 30, async () => (await fetch(`${base}/__sandbox/health`)).json());
    say(`healthy on ${base}: ${JSON.stringify(health)}`);
    // The image's HEALTHCHECK, run by the engine inside the container (podman runs it on demand;
    // docker on its own schedule).
    if (engine.cmd === 'podman') {
      const check = run(['healthcheck', 'run', name]);
      if (check.code !== 0) fail(`podman healthcheck run: exit ${check.code}\n${check.out}`);
    } else {
      await until('docker health status healthy', 60, async () => run(['inspect', '--format', '{{.State.Health.Status}}', name]).out.trim() === 'healthy');
    }
    say('HEALTHCHECK (payout-sandbox wait, inside the container): healthy');

    if ((await fetch(`${base}/__sandbox/clock`)).status !== 401) fail('the control API answered without the token');
    const ui = await fetch(`${base}/__sandbox/ui/`);
    if (ui.status !== 200 || !/payout-sandbox dashboard/.test(await ui.text())) fail(`the dashboard did not load (HTTP ${ui.status})`);
    say('control API needs the token; dashboard served from inside the executable');

    // 3. One payout, its webhook to the receiver on this host.
    const target = `http://${gateway}:${hooks.port}/hooks`;
    const patched = await control('/merchants/demo@payout-sandbox.test', { method: 'PATCH', body: JSON.stringify({ webhook_url: target }) });
    if (!patched.ok) fail(`PATCH webhook_url: HTTP ${patched.status} ${await patched.text()}`);
    const init = await fetch(`${base}/api/v1/public/payment/transfer`, {
      method: 'POST',
      headers: { ...DEMO, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_ref_id: `IMAGE${process.pid}`,
        transfer_type: 'BANK',
        amount: 1500.5,
        payment_method: '1001',
        debit_from: 'DEMOVAN0000000000001',
        beneficiary_id: 'BENEDEMO000000000001',
        purpose: 'VENDOR_PAYOUT',
        remarks: 'image test',
      }),
    });
    const { data } = await init.json();
    if (init.status !== 200 || data?.status !== 'Pending') fail(`initialize: HTTP ${init.status}`);
    const advanced = await control('/clock/advance', { method: 'POST', body: JSON.stringify({ by: '5s' }) });
    if (!advanced.ok) fail(`clock advance: HTTP ${advanced.status}`);
    const hook = await until(`the webhook at ${target}`, 20, async () => hooks.received.find((r) => r.body.includes(data.ref_id)));
    const event = JSON.parse(hook.body);
    const status = (event.transaction ?? event.data?.transaction)?.status;
    if (status !== 'Success') fail(`the webhook said ${status}, not Success`);
    if (!signedBy(DEMO['x-api-secret'], hook.headers['x-sandbox-signature-v2'], hook.body)) fail('the webhook signature did not verify');
    say(`payout ${data.ref_id}: Pending, then Success; its signed webhook reached ${target}`);

    // 4. SIGTERM (what stop sends): a clean stop, exit 0.
    const stopped = run(['stop', '-t', '15', name]);
    if (stopped.code !== 0) fail(`${engine.cmd} stop: ${stopped.out}`);
    const code = run(['inspect', '--format', '{{.State.ExitCode}}', name]).out.trim();
    if (code !== '0') fail(`after SIGTERM the container exited ${code}:\n${run(['logs', name]).out}`);
    say('stopped by SIGTERM: exit 0');
  } catch (err) {
    process.stdout.write(`--- container log ---\n${run(['logs', name]).out}\n`);
    throw err;
  } finally {
    run(['rm', '-f', '-v', name]);
    await hooks.close();
  }
  await anyUid();
  say('image test passed');
}

/**
 * 5. Under a uid that is not the image's (`--user`), as a CI runs it to get files it owns: a report
 * directory that uid cannot write is refused at start (exit 2, naming it, with the --user hint);
 * with a bind-mounted /data and report directory of its own, the data file and the reports are
 * written there, by that uid; and the image's own /data volume works under any uid too.
 */
async function anyUid() {
  const root = process.getuid() === 0;
  // As root, any uid will do; otherwise the user's own, kept as it is inside (rootless podman maps it away otherwise).
  const uid = root ? 54321 : process.getuid();
  const gid = root ? 54321 : process.getgid();
  const user = ['--user', `${uid}:${gid}`, ...(!root && engine.cmd === 'podman' ? ['--userns', 'keep-id'] : [])];
  const work = mkdtempSync(join(tmpdir(), 'payout-sandbox-image-'));
  chmodSync(work, 0o755);
  const [data, out, closed] = ['data', 'out', 'closed'].map((d) => join(work, d));
  for (const d of [data, out]) {
    mkdirSync(d);
    if (root) chownSync(d, uid, gid);
  }
  mkdirSync(closed, { mode: 0o555 });
  chmodSync(closed, 0o555);
  const name = `payout-sandbox-uid-${process.pid}`;
  const open = ['-e', 'SANDBOX_INSECURE_OPEN_CONTROL=1'];
  try {
    const refused = run(['run', '--rm', ...engine.runFlags, ...user, ...open, '-v', `${closed}:/out`, IMAGE, '--review-report', '/out/review.md']);
    if (
      refused.code !== 2 ||
      !/--review-report \/out\/review\.md: cannot be written: \/out: permission denied \(EACCES\)/.test(refused.out) ||
      !refused.out.includes('--user "$(id -u):$(id -g)"')
    ) {
      fail(`a report directory uid ${uid} cannot write should exit 2 at start, naming it, with the --user hint; it exited ${refused.code}:\n${refused.out}`);
    }
    say(`--user ${uid}:${gid}, a report directory it cannot write: exit 2 at start, naming /out/review.md, with the --user hint`);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const up = run([
      'run',
      '-d',
      '--name',
      name,
      ...engine.runFlags,
      ...user,
      ...open,
      '-p',
      `127.0.0.1:${port}:4010`,
      '-v',
      `${data}:/data`,
      '-v',
      `${out}:/out`,
      IMAGE,
      '--review-report',
      '/out/review.md',
      '--coverage-report',
      '/out/coverage.xml',
    ]);
    if (up.code !== 0) fail(`${engine.cmd} run --user ${uid}:${gid} failed:\n${up.out}`);
    await until(`healthy under --user ${uid}:${gid}`, 30, async () => (await fetch(`${base}/__sandbox/health`)).ok);
    const init = await fetch(`${base}/api/v1/public/payment/transfer`, {
      method: 'POST',
      headers: { ...DEMO, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_ref_id: `UID${process.pid}`,
        transfer_type: 'BANK',
        amount: 100,
        payment_method: '1001',
        debit_from: 'DEMOVAN0000000000001',
        beneficiary_id: 'BENEDEMO000000000001',
        purpose: 'VENDOR_PAYOUT',
        remarks: 'any uid',
      }),
    });
    if (init.status !== 200) fail(`initialize under --user ${uid}:${gid}: HTTP ${init.status}`);
    const stopped = run(['stop', '-t', '15', name]);
    if (stopped.code !== 0) fail(`${engine.cmd} stop: ${stopped.out}`);
    const code = run(['inspect', '--format', '{{.State.ExitCode}}', name]).out.trim();
    if (code !== '0') fail(`under --user ${uid}:${gid} the container exited ${code}:\n${run(['logs', name]).out}`);
    for (const file of [join(data, 'db.json'), join(out, 'review.md'), join(out, 'coverage.xml')]) {
      if (!existsSync(file)) fail(`${file} was not written under --user ${uid}:${gid}`);
      if (statSync(file).uid !== uid) fail(`${file} belongs to uid ${statSync(file).uid}, not ${uid}`);
    }
    if (!readFileSync(join(data, 'db.json'), 'utf8').includes(`UID${process.pid}`)) fail('the payout is not in the bind-mounted data file');
    say(`--user ${uid}:${gid} with /data and /out bind-mounted: the payout in data/db.json, review.md and coverage.xml written, all owned by uid ${uid}`);
    run(['rm', '-f', '-v', name]);

    // The image's own /data volume, under a uid the image does not know.
    const other = run(['run', '-d', '--name', name, ...engine.runFlags, '--user', '23456:23456', ...open, '-p', `127.0.0.1:${port}:4010`, IMAGE]);
    if (other.code !== 0) fail(`${engine.cmd} run --user 23456:23456 failed:\n${other.out}`);
    await until('healthy under --user 23456:23456 on its own volume', 30, async () => (await fetch(`${base}/__sandbox/health`)).ok);
    run(['stop', '-t', '15', name]);
    const otherCode = run(['inspect', '--format', '{{.State.ExitCode}}', name]).out.trim();
    if (otherCode !== '0') fail(`under --user 23456:23456 the container exited ${otherCode}:\n${run(['logs', name]).out}`);
    say("--user 23456:23456 on the image's own /data volume: healthy, stopped with exit 0");
  } catch (err) {
    process.stdout.write(`--- container log ---\n${run(['logs', name]).out}\n`);
    throw err;
  } finally {
    run(['rm', '-f', '-v', name]);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`test:image FAILED: ${err.message}\n`);
  process.exit(1);
});

// Start → healthy (issue 26): how long from starting the sandbox to the first 200 from
// GET /__sandbox/health, for each way of running it, against bare `node -e 0` (start → exit).
// Run: npm run bench:startup (builds dist/ and the executable first), or node bench/startup.js
// [runs] on a built tree. Each command runs `runs` times (5 by default), the commands taking
// turns so that a busy moment of the machine spreads over all of them; the median is the figure.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT_DIR } from './lib.js';

const RUNS = Number(process.argv[2] ?? 5);
const BINARY = join(ROOT_DIR, `dist/payout-sandbox-${process.platform}-${process.arch}`);
const OPTIONS = ['--data', 'memory', '--log-level', 'silent'];

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One GET of the health check: whether it answered 200 (a fresh connection each time). */
function healthy(port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/__sandbox/health', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `cmd args --port P …`, polls the health check every 2 ms: ms from spawn to the first 200. */
async function startToHealthy({ cmd, args, env }) {
  const port = await freePort();
  const started = performance.now();
  // A process group of its own: npm does not pass SIGTERM on to the sandbox it started.
  const child = spawn(cmd, [...args, '--port', String(port), ...OPTIONS], { cwd: ROOT_DIR, env, stdio: 'ignore', detached: true });
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  exit.then(() => (exited = true));
  while (!(await healthy(port))) {
    if (exited) throw new Error(`${cmd} ${args.join(' ')} exited before it was healthy`);
    if (performance.now() - started > 30_000) throw new Error(`${cmd} ${args.join(' ')}: not healthy after 30 s`);
    await sleep(2);
  }
  const ms = performance.now() - started;
  process.kill(-child.pid, 'SIGTERM');
  await exit;
  return ms;
}

/** `node -e 0`: start → exit, the floor any Node program starts from. */
async function bareNode() {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return performance.now() - started;
}

const rows = [
  { name: '`node -e 0` (start → exit)', run: bareNode },
  { name: '`npm start`', run: () => startToHealthy({ cmd: 'npm', args: ['start', '--silent', '--'], env: process.env }) },
  { name: '`node bin/payout-sandbox.js`', run: () => startToHealthy({ cmd: process.execPath, args: ['bin/payout-sandbox.js'], env: process.env }) },
];
if (existsSync(BINARY)) {
  rows.push({ name: '`env -i dist/payout-sandbox-linux-x64` (the executable)', run: () => startToHealthy({ cmd: BINARY, args: [], env: {} }) });
} else {
  process.stdout.write(`(no ${BINARY}: npm run build:binary makes it)\n`);
}

const times = rows.map(() => []);
for (let i = 0; i < RUNS; i++) {
  for (const [j, row] of rows.entries()) times[j].push(await row.run());
}
const median = (list) => {
  const s = [...list].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
process.stdout.write(`\n| command | start → healthy, median of ${RUNS} | min | max |\n|---|---|---|---|\n`);
for (const [j, row] of rows.entries()) {
  const t = times[j];
  process.stdout.write(`| ${row.name} | ${median(t).toFixed(0)} ms | ${Math.min(...t).toFixed(0)} ms | ${Math.max(...t).toFixed(0)} ms |\n`);
}

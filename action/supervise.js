// Runs the sandbox for the action (started detached by main.js, outliving it) and writes the
// sandbox's exit code to a file when it ends, so that the post step, which can signal the sandbox
// but cannot wait for a process it did not start, learns whether a gate failed (3: coverage,
// 4: review). Usage: node supervise.js EXIT_FILE LOG_FILE COMMAND [ARGS…]
import { spawn } from 'node:child_process';
import { appendFileSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';

const [exitFile, logFile, command, ...args] = process.argv.slice(2);
const log = openSync(logFile, 'a');

function done(code) {
  writeFileSync(`${exitFile}.tmp`, `${code}\n`);
  renameSync(`${exitFile}.tmp`, exitFile);
  process.exit(0);
}

const child = spawn(command, args, { stdio: ['ignore', log, log] });
child.on('error', (err) => {
  appendFileSync(logFile, `payout-sandbox action: cannot run ${command}: ${err.message}\n`);
  done(127);
});
child.on('exit', (code, signal) => done(code ?? 128 + (constants.signals[signal] ?? 0)));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));

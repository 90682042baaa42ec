// Shared by the benchmark scripts: starting the CLI as a child process and reading its banner.
import { spawn } from 'node:child_process';

const ROOT = new URL('..', import.meta.url);

/** Resolves with the first match of `pattern` in the child's stdout. */
export async function firstLine(child, pattern) {
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    const m = pattern.exec(out);
    if (m) return m;
  }
  throw new Error(`process ended before printing ${pattern}: ${out}`);
}

/** Starts `bin/payout-sandbox.js` with `args` (through `launcher`, e.g. taskset, when given) and waits for its API base URL. */
export async function startCliProcess(args, launcher = []) {
  const [cmd, ...pre] = launcher.length ? launcher : [process.execPath];
  const child = spawn(cmd, [...pre, ...(launcher.length ? [process.execPath] : []), 'bin/payout-sandbox.js', ...args], { cwd: ROOT });
  const [, base] = await firstLine(child, /API base URL:\s+(\S+)/);
  return { child, base };
}

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/payout-sandbox.js', import.meta.url));

const running = new Set<ChildProcess>();

/** Kills whatever a test left running (a failed assertion before its stop), so Jest can exit. */
export function killAll(): void {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  running.clear();
}

export interface Running {
  proc: ChildProcess;
  url: string;
  output: () => string;
  /** Sends the signal and resolves to the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

function exited(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) resolve(proc.exitCode);
    else proc.once('exit', (code) => resolve(code));
  });
}

/** Starts the real CLI and waits (at most 15 s) for its banner. */
export function startCli(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`no banner within 15 s:\n${out}`));
    }, 15_000);
    const onData = () => {
      const m = /API base URL:\s+(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout!.off('data', onData);
        resolve({
          proc,
          url: m[1],
          output: () => out,
          stop: (signal = 'SIGTERM') => {
            proc.kill(signal);
            return exited(proc);
          },
        });
      }
    };
    proc.stdout!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before the banner:\n${out}`));
    });
  });
}

/** Runs the CLI to its end (at most 15 s): exit code and everything it printed. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

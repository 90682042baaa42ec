import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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

/** Starts the real CLI (`nodeArgs`: node's own, before the script) and waits (at most 15 s) for its banner. */
export function startCli(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Running> {
  const proc = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
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

/** How many of process `pid`'s descriptors are the listening socket on `port` (Linux: /proc/net/tcp and tcp6, /proc/<pid>/fd). */
export function listeningDescriptors(pid: number, port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local address:port, …, state 0A = LISTEN, …, inode (the tenth field)
      if (f.length > 9 && f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A') inodes.add(f[9] as string);
    }
  }
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1] as string)) n += 1;
    } catch {
      // closed since it was listed
    }
  }
  return n;
}

/** Reads `read` until `done` says so, at most 10 s; answers what it read last. */
async function settled<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 10_000;
  let value = read();
  while (!done(value) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    value = read();
  }
  return value;
}

/** Waits (at most 10 s) until process `pid` has `n` descriptors of its listening socket on `port`; answers how many it has then. */
export function settledDescriptors(pid: number, port: number, n: number): Promise<number> {
  return settled(
    () => listeningDescriptors(pid, port),
    (seen) => seen === n,
  );
}

/** Waits (at most 10 s) until what a started CLI printed matches `pattern`; answers whether it did. */
export async function settledOutput(r: Running, pattern: RegExp): Promise<boolean> {
  return pattern.test(
    await settled(
      () => r.output(),
      (out) => pattern.test(out),
    ),
  );
}

/** The process ids of process `pid`'s children (Linux: /proc/<pid>/task/<tid>/children). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.push(
        ...readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
          .split(/\s+/)
          .filter((x) => x !== '')
          .map(Number),
      );
    } catch {
      // the thread ended since it was listed
    }
  }
  return out;
}

/** Waits (at most 10 s) until process `pid` has no child process left; answers the children it has then. */
export function settledChildren(pid: number): Promise<number[]> {
  return settled(
    () => childrenOf(pid),
    (children) => children.length === 0,
  );
}

import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flags the command sets on its own process before it opens anything
 * (docs/performance.md, "V8's allocation-site pretenuring"):
 *
 * - `--no-allocation-site-pretenuring`: V8 watches where objects are made, and a place whose
 *   objects all outlive a young-generation collection (a payout's records, the review's facts)
 *   is switched to making them in the old generation. Under a stream of initializes, with the
 *   journal and the review on, that doubled the time spent in young-generation collections
 *   (1.4 s of every 7 s against 0.7 s) and their pauses (25 ms against 11 to 15 at the 90th
 *   percentile); initialize's p99 was 1.5 to 2 times bare Express's.
 *
 * Only the command (node, the executable, the image) sets them: `startSandbox()` runs in its
 * caller's process, whose V8 is the caller's own. A flag of the same name given to node by the
 * user (`node --allocation-site-pretenuring bin/payout-sandbox.js`) wins.
 */
export const COMMAND_V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

const applied: string[] = [];

/** The flag's name without its `--` and `no-` (`allocation-site-pretenuring`), `_` read as `-` as V8 does. */
const nameOf = (flag: string) => flag.replace(/^--(no-?)?/, '').replace(/_/g, '-');

/** Sets COMMAND_V8_FLAGS on this process, each unless node was given the same flag (`execArgv`); once. */
export function tuneV8(execArgv: readonly string[] = process.execArgv): void {
  const given = new Set(execArgv.filter((a) => a.startsWith('--')).map((a) => nameOf(a.split('=')[0])));
  for (const flag of COMMAND_V8_FLAGS) {
    if (applied.includes(flag) || given.has(nameOf(flag))) continue;
    setFlagsFromString(flag);
    applied.push(flag);
  }
}

/** The flags tuneV8() set on this process (none in a process that never called it): `GET /__sandbox/health` tells them. */
export function v8FlagsSet(): readonly string[] {
  return applied;
}

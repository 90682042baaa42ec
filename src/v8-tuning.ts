import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flags the command sets on its own process, after reading its options and before it opens
 * its store and servers (docs/performance.md, "V8's allocation-site pretenuring"):
 *
 * - `--no-allocation-site-pretenuring`: V8 watches where objects are made, and a place whose
 *   objects all outlive a young-generation collection (a payout's records, the review's facts) is
 *   switched to making them in the old generation. In `bench:http`'s load (status and balance
 *   checks, then a stream of initializes, with the journal and the review on) that doubled the
 *   time spent in young-generation collections while initialize ran (1.1 to 1.2 s of 5 s against
 *   0.6 to 0.7 s, `npm run bench:young-gc`) and their pauses (24 to 25 ms at the 90th percentile
 *   against 10 to 11); initialize's p99 was worse than bare Express's in ten `bench:http` runs of
 *   eighteen.
 *
 * Only the command (node, the executable, the image) sets them: `startSandbox()` runs in its
 * caller's process, whose V8 is the caller's own. Left alone: with `--v8-defaults`
 * (`SANDBOX_V8_DEFAULTS`), and each flag node was given itself under any of its spellings
 * (`node --allocation-site-pretenuring bin/payout-sandbox.js`).
 */
export const COMMAND_V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

const applied: string[] = [];

/** A V8 flag's name as V8 reads it: its dashes, `no`/`no-` and any `=value` off, `_` as `-` (`--no_allocation_site_pretenuring` → `allocation-site-pretenuring`). */
export function flagName(arg: string): string {
  return arg.replace(/^--?/, '').split('=')[0].replace(/_/g, '-').replace(/^no-?/, '');
}

/** Which of COMMAND_V8_FLAGS to set, given node's own arguments (`process.execArgv`): those node was not given. */
export function flagsToSet(execArgv: readonly string[]): string[] {
  const given = new Set(execArgv.filter((a) => a.startsWith('-')).map(flagName));
  return COMMAND_V8_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/** Sets on this process the flags flagsToSet() names (once each). */
export function tuneV8(execArgv: readonly string[] = process.execArgv): void {
  for (const flag of flagsToSet(execArgv)) {
    if (applied.includes(flag)) continue;
    setFlagsFromString(flag);
    applied.push(flag);
  }
}

/** The flags tuneV8() set on this process (none in a process that never called it): `GET /__sandbox/health` tells them. */
export function v8FlagsSet(): string[] {
  return [...applied];
}

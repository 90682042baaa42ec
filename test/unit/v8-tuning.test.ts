// The command's V8 flags (src/v8-tuning.ts): which it sets, given the flags node was started with.
// A flag node was given under any spelling V8 reads (one dash or two, `_` or `-`, `no` or `no-`)
// leaves the command's own alone; nothing else does.
import { COMMAND_V8_FLAGS, flagName, flagsToSet } from '../../src/v8-tuning.js';

test('a flag is named as V8 reads it, whatever its spelling', () => {
  for (const spelling of [
    '--allocation-site-pretenuring',
    '--no-allocation-site-pretenuring',
    '--noallocation-site-pretenuring',
    '--allocation_site_pretenuring',
    '--no_allocation_site_pretenuring',
    '-allocation-site-pretenuring',
    '-no-allocation-site-pretenuring',
    '--allocation-site-pretenuring=false',
  ])
    expect([spelling, flagName(spelling)]).toEqual([spelling, 'allocation-site-pretenuring']);
  expect(flagName('--max-old-space-size=4096')).toBe('max-old-space-size');
});

test('the command sets its flags unless node was given the same flag', () => {
  expect(COMMAND_V8_FLAGS).toEqual(['--no-allocation-site-pretenuring']);
  expect(flagsToSet([])).toEqual(['--no-allocation-site-pretenuring']);
  expect(flagsToSet(['--expose-gc', '--max-old-space-size=4096', '--import', './x.js'])).toEqual(['--no-allocation-site-pretenuring']);
  for (const given of ['--allocation-site-pretenuring', '--no_allocation_site_pretenuring', '-allocation-site-pretenuring', '--noallocation-site-pretenuring'])
    expect([given, flagsToSet(['--expose-gc', given])]).toEqual([given, []]);
  // An argument of another option that happens to read like the name is not a flag.
  expect(flagsToSet(['--import', 'allocation-site-pretenuring'])).toEqual(['--no-allocation-site-pretenuring']);
});

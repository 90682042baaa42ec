import { DIRECTIVE_PREFIX, parseDirective } from '../../src/scenario/directive.js';

/** `sbx:STATUS@DURATION(>STATUS@DURATION)*` in a payout's remarks: its own timeline. */

const refusal = (why: string) =>
  `The remarks field has an invalid sandbox directive: ${why}. Expected sbx:STATUS@DURATION>STATUS@DURATION…, e.g. sbx:Unknown@5s>Success@1h.`;

test('the prefix is sbx:', () => {
  expect(DIRECTIVE_PREFIX).toBe('sbx:');
});

describe('not a directive: null', () => {
  test.each(['', 'invoice 42', 'sbx', 'sbx;Success@5s', ' sbx:Success@5s', 'note sbx:Success@5s', 'sb:Success@5s'])('%p', (remarks) => {
    expect(parseDirective(remarks)).toBeNull();
  });
});

describe('well-formed', () => {
  test('one step, starting Pending', () => {
    expect(parseDirective('sbx:Success@5s')).toEqual({
      ok: true,
      plan: { rule: 'inline', initialStatus: 'Pending', steps: [{ afterMs: 5_000, status: 'Success' }] },
    });
  });

  test('several steps, each duration counted from the one before', () => {
    expect(parseDirective('sbx:Unknown@5s>Success@1h')).toEqual({
      ok: true,
      plan: {
        rule: 'inline',
        initialStatus: 'Pending',
        steps: [
          { afterMs: 5_000, status: 'Unknown' },
          { afterMs: 3_600_000, status: 'Success' },
        ],
      },
    });
  });

  test('the prefix and the statuses are matched without regard to case; the canonical status is kept', () => {
    expect(parseDirective('SBX:success@500ms>FAILED@1.5m')).toEqual({
      ok: true,
      plan: {
        rule: 'inline',
        initialStatus: 'Pending',
        steps: [
          { afterMs: 500, status: 'Success' },
          { afterMs: 90_000, status: 'Failed' },
        ],
      },
    });
    expect(parseDirective('Sbx:new@0s>pending@1d')).toEqual({
      ok: true,
      plan: { rule: 'inline', initialStatus: 'NEW', steps: [{ afterMs: 86_400_000, status: 'Pending' }] },
    });
  });

  test('spaces around the body, around the steps and after @ are allowed', () => {
    expect(parseDirective('sbx:  Unknown@ 5s  >  Success@1h  ')).toEqual({
      ok: true,
      plan: {
        rule: 'inline',
        initialStatus: 'Pending',
        steps: [
          { afterMs: 5_000, status: 'Unknown' },
          { afterMs: 3_600_000, status: 'Success' },
        ],
      },
    });
  });

  test('a first step at 0 to NEW or Pending sets the status the payout is created in, and is not a step', () => {
    expect(parseDirective('sbx:NEW@0s>Pending@5s>Success@5s')).toEqual({
      ok: true,
      plan: {
        rule: 'inline',
        initialStatus: 'NEW',
        steps: [
          { afterMs: 5_000, status: 'Pending' },
          { afterMs: 5_000, status: 'Success' },
        ],
      },
    });
    expect(parseDirective('sbx:Pending@0ms>Failed@2s')).toEqual({
      ok: true,
      plan: { rule: 'inline', initialStatus: 'Pending', steps: [{ afterMs: 2_000, status: 'Failed' }] },
    });
    // Only the status: a payout that stays where it was created.
    expect(parseDirective('sbx:NEW@0s')).toEqual({ ok: true, plan: { rule: 'inline', initialStatus: 'NEW', steps: [] } });
  });

  test('a first step at 0 to another status is a step (the payout starts Pending and moves at once)', () => {
    expect(parseDirective('sbx:Success@0s')).toEqual({
      ok: true,
      plan: { rule: 'inline', initialStatus: 'Pending', steps: [{ afterMs: 0, status: 'Success' }] },
    });
  });

  test('NEW or Pending later than 0, or not first, stays a step', () => {
    expect(parseDirective('sbx:NEW@1s')).toEqual({
      ok: true,
      plan: { rule: 'inline', initialStatus: 'Pending', steps: [{ afterMs: 1_000, status: 'NEW' }] },
    });
    expect(parseDirective('sbx:Unknown@0s>Pending@0s')).toEqual({
      ok: true,
      plan: {
        rule: 'inline',
        initialStatus: 'Pending',
        steps: [
          { afterMs: 0, status: 'Unknown' },
          { afterMs: 0, status: 'Pending' },
        ],
      },
    });
  });
});

describe('malformed: refused, naming the step and what is wrong', () => {
  test.each([
    ['sbx:', 'no steps'],
    ['sbx:   ', 'no steps'],
    ['SBX:', 'no steps'],
    ['sbx:Success', 'step 1 "Success" is not STATUS@DURATION'],
    ['sbx:Success@', 'step 1 "Success@" is not STATUS@DURATION'],
    ['sbx:@5s', 'step 1 "@5s" is not STATUS@DURATION'],
    ['sbx:Success @5s', 'step 1 "Success @5s" is not STATUS@DURATION'],
    ['sbx:Success@5s>', 'step 2 "" is not STATUS@DURATION'],
    ['sbx:>Success@5s', 'step 1 "" is not STATUS@DURATION'],
    ['sbx:Success@5s>>Failed@1s', 'step 2 "" is not STATUS@DURATION'],
    ['sbx:Status1@5s', 'step 1 "Status1@5s" is not STATUS@DURATION'],
    [
      'sbx:Success@5s,Failed@1s',
      'step 1 "Success@5s,Failed@1s" has the invalid duration "5s,Failed@1s" (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M)',
    ],
    ['sbx:Done@5s', 'step 1 "Done@5s" has the unknown status "Done" (use NEW, Pending, Success, Failed, Unknown)'],
    ['sbx:Success@5s>Refunded@1h', 'step 2 "Refunded@1h" has the unknown status "Refunded" (use NEW, Pending, Success, Failed, Unknown)'],
    [
      'sbx:Success@5',
      'step 1 "Success@5" has the invalid duration "5" (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M)',
    ],
    [
      'sbx:Success@-5s',
      'step 1 "Success@-5s" has the invalid duration "-5s" (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M)',
    ],
    [
      'sbx:Success@1w',
      'step 1 "Success@1w" has the invalid duration "1w" (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M)',
    ],
    [
      'sbx:Success@5s@6s',
      'step 1 "Success@5s@6s" has the invalid duration "5s@6s" (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M)',
    ],
    [
      'sbx:Unknown@5s>Success@soon',
      'step 2 "Success@soon" has the invalid duration "soon" (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M)',
    ],
  ])('%p: %s', (remarks, why) => {
    expect(parseDirective(remarks)).toEqual({ ok: false, message: refusal(why) });
  });

  test('the first bad step is the one named', () => {
    expect(parseDirective('sbx:Bad@5s>Success@x')).toEqual({
      ok: false,
      message: refusal('step 1 "Bad@5s" has the unknown status "Bad" (use NEW, Pending, Success, Failed, Unknown)'),
    });
  });
});

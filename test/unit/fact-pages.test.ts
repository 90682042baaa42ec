import { describe, expect, test } from '@jest/globals';
import { type Fact, type FactPage, FactPages, type PageSink } from '../../src/observe/review/facts.js';

const fact = (seq: number): Fact => ({ seq, at: seq, op: 'getBalance', request_id: `r${seq}`, status: 200, key: 'getBalance' });

/** A state's collection of pages and what the sink was told, as the Review keeps them. */
function stateSink() {
  const stored: Record<string, unknown> = {};
  const told: string[] = [];
  const sink: PageSink = {
    opened: (p) => {
      stored[p.id] = p;
      told.push(`opened ${p.id}`);
    },
    dropped: (id) => {
      delete stored[id];
      told.push(`dropped ${id}`);
    },
  };
  return { stored, told, sink };
}

describe('FactPages', () => {
  test("keeps each merchant's newest facts up to the bound, dropping the oldest page once the others hold it", () => {
    const pages = new FactPages(7, 3);
    const { stored, told, sink } = stateSink();
    for (let seq = 1; seq <= 50; seq++) {
      if (pages.add('M1', fact(seq), sink)) told.push('grew');
      if (seq % 3 === 0) pages.add('M2', fact(1000 + seq), sink);
    }
    expect(pages.of('M1').map((f) => f.seq)).toEqual([44, 45, 46, 47, 48, 49, 50]);
    // The pages left: the newest 7 facts need the last three pages (49–50, 46–48, 43–45).
    const m1 = Object.values(stored as Record<string, FactPage>).filter((p) => p.merchant_id === 'M1');
    expect(m1.map((p) => p.facts.map((f) => f.seq))).toEqual([
      [43, 44, 45],
      [46, 47, 48],
      [49, 50],
    ]);
    expect(told.slice(0, 4)).toEqual(['opened M1/1', 'grew', 'grew', 'opened M2/1003']);
    expect(told).toContain('dropped M1/1');
    expect(pages.of('M2')).toHaveLength(7);
    expect(pages.of('nobody')).toEqual([]);
  });

  test('a rebuild finds the pages in order and keeps the bound; the max seq comes back', () => {
    const { stored, sink } = stateSink();
    const page = (first: number, n: number): FactPage => ({ id: `M/${first}`, merchant_id: 'M', facts: Array.from({ length: n }, (_, i) => fact(first + i)) });
    for (const p of [page(7, 3), page(1, 3), page(4, 3), page(10, 2)]) stored[p.id] = p;
    const pages = new FactPages(5, 3);
    expect(pages.rebuild(stored, sink)).toBe(11);
    expect(pages.of('M').map((f) => f.seq)).toEqual([7, 8, 9, 10, 11]);
    expect(Object.keys(stored).sort()).toEqual(['M/10', 'M/7']);
    // The next fact goes on the newest page, not a new one.
    pages.add('M', fact(12), sink);
    expect((stored['M/10'] as FactPage).facts.map((f) => f.seq)).toEqual([10, 11, 12]);
  });

  test('facts of an older version (one record each) are made into pages at the rebuild, in seq order', () => {
    const { stored, sink } = stateSink();
    for (const seq of [3, 1, 2]) stored[`M/${seq}`] = { ...fact(seq), id: `M/${seq}`, merchant_id: 'M' };
    const pages = new FactPages(100, 2);
    expect(pages.rebuild(stored, sink)).toBe(3);
    expect(stored).toEqual({
      'M/1': { id: 'M/1', merchant_id: 'M', facts: [fact(1), fact(2)] },
      'M/3': { id: 'M/3', merchant_id: 'M', facts: [fact(3)] },
    });
    expect(pages.of('M').map((f) => f.seq)).toEqual([1, 2, 3]);
  });

  test('many pages dropped: the list is cut, and what is left stays in order', () => {
    const pages = new FactPages(10, 2);
    const { stored, sink } = stateSink();
    for (let seq = 1; seq <= 1000; seq++) pages.add('M', fact(seq), sink);
    expect(pages.of('M').map((f) => f.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 991 + i));
    expect(Object.keys(stored)).toHaveLength(5);
  });
});

describe('FactPages.repeat', () => {
  const check = (seq: number, status: number | null, payout_status: string | undefined, key = 'getPayoutStatus|ref_id 1'): Fact => ({
    seq,
    at: seq,
    op: 'getPayoutStatus',
    request_id: `r${seq}`,
    status,
    key,
    payout_status,
  });

  test('a read answered as the latest of its key is counted on that fact: repeats, the last time and request id', () => {
    const pages = new FactPages(100, 10);
    const { sink } = stateSink();
    pages.add('M', check(1, 200, 'Pending'), sink);
    pages.add('M', check(2, 200, 'Pending', 'getPayoutStatus|ref_id 2'), sink);
    expect(pages.repeat('M', 'getPayoutStatus|ref_id 1', 'Pending', 30, 'r3')?.id).toBe('M/1');
    expect(pages.repeat('M', 'getPayoutStatus|ref_id 1', 'Pending', 40, 'r4')?.id).toBe('M/1');
    expect(pages.of('M')[0]).toMatchObject({ seq: 1, repeats: 2, last_at: 40, last_request_id: 'r4' });
    // Another answer (the payout moved on) is not a repeat; after it, repeats count on it.
    expect(pages.repeat('M', 'getPayoutStatus|ref_id 1', 'Success', 50, 'r5')).toBeNull();
    pages.add('M', check(5, 200, 'Success'), sink);
    expect(pages.repeat('M', 'getPayoutStatus|ref_id 1', 'Success', 60, 'r6')).not.toBeNull();
    expect(pages.of('M').map((f) => [f.seq, f.repeats])).toEqual([
      [1, 2],
      [2, undefined],
      [5, 1],
    ]);
    expect(pages.repeat('nobody', 'getPayoutStatus|ref_id 1', 'Success', 60, 'r7')).toBeNull();
  });

  test('never onto a 429 (what follows a Retry-After is recorded for the rule), nor past the newest page', () => {
    const pages = new FactPages(100, 2);
    const { sink } = stateSink();
    pages.add('M', check(1, 429, undefined), sink);
    expect(pages.repeat('M', 'getPayoutStatus|ref_id 1', undefined, 2, 'r2')).toBeNull();
    pages.add('M', check(2, 200, 'Pending'), sink);
    pages.add('M', check(3, 200, 'Pending', 'getPayoutStatus|ref_id 9'), sink);
    // A new page opened: the key's latest fact is on an older page, so this one is recorded.
    expect(pages.repeat('M', 'getPayoutStatus|ref_id 1', 'Pending', 4, 'r4')).toBeNull();
  });

  test('after a rebuild, repeats go on counting on the newest page', () => {
    const { stored, sink } = stateSink();
    const first = new FactPages(100, 10);
    first.add('M', check(1, 200, 'Pending'), sink);
    const again = new FactPages(100, 10);
    again.rebuild(stored, sink);
    expect(again.repeat('M', 'getPayoutStatus|ref_id 1', 'Pending', 9, 'r9')).not.toBeNull();
    expect((stored['M/1'] as FactPage).facts[0]?.repeats).toBe(1);
  });
});

test('a merchant with pages and facts of one record each (a file merged by hand) gets its pages made again, every fact in seq order', () => {
  const { stored, sink } = stateSink();
  stored['M/4'] = { id: 'M/4', merchant_id: 'M', facts: [fact(4), fact(6)] };
  stored['M/5'] = { ...fact(5), id: 'M/5', merchant_id: 'M' };
  stored['N/1'] = { id: 'N/1', merchant_id: 'N', facts: [fact(1)] };
  const pages = new FactPages(100, 2);
  expect(pages.rebuild(stored, sink)).toBe(6);
  expect(pages.of('M').map((f) => f.seq)).toEqual([4, 5, 6]);
  expect(stored).toEqual({
    'M/4': { id: 'M/4', merchant_id: 'M', facts: [fact(4), fact(5)] },
    'M/6': { id: 'M/6', merchant_id: 'M', facts: [fact(6)] },
    'N/1': { id: 'N/1', merchant_id: 'N', facts: [fact(1)] },
  });
});

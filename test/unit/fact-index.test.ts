import { describe, expect, test } from '@jest/globals';
import { type Fact, FactIndex } from '../../src/observe/review/facts.js';

const fact = (merchant: string, seq: number): Fact => ({
  id: `${merchant}/${seq}`,
  seq,
  merchant_id: merchant,
  at: seq,
  op: 'getBalance',
  request_id: `r${seq}`,
  status: 200,
  key: 'getBalance',
});

describe('FactIndex', () => {
  test('keeps the newest facts of each merchant up to the bound, handing back the oldest, in order, as they overflow', () => {
    const index = new FactIndex();
    const all: Record<string, Fact> = {};
    const gone: string[] = [];
    for (let seq = 1; seq <= 50; seq++) {
      const f = fact('M1', seq);
      all[f.id] = f;
      index.add(f);
      for (const id of index.overflow('M1', 7)) {
        gone.push(id);
        delete all[id];
      }
      if (seq % 3 === 0) index.add(fact('M2', seq));
    }
    expect(gone).toEqual(Array.from({ length: 43 }, (_, i) => `M1/${i + 1}`));
    expect(index.of('M1', all).map((f) => f.seq)).toEqual([44, 45, 46, 47, 48, 49, 50]);
    expect(index.overflow('M1', 7)).toEqual([]);
    expect(index.overflow('M2', 16)).toEqual([]);
    expect(index.of('nobody', all)).toEqual([]);
  });

  test('a rebuild orders by seq and a lower bound afterwards cuts the difference at once', () => {
    const index = new FactIndex();
    const all = Object.fromEntries([5, 1, 3, 2, 4].map((s) => [`M/${s}`, fact('M', s)]));
    index.rebuild(all);
    expect(index.of('M', all).map((f) => f.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(index.overflow('M', 2)).toEqual(['M/1', 'M/2', 'M/3']);
    expect(index.of('M', all).map((f) => f.seq)).toEqual([4, 5]);
  });
});

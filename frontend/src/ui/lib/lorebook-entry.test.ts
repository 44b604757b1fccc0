import { describe, expect, it } from 'vitest';
import type { WorldInfoBook } from '../../abi/types';
import {
  bool,
  duplicateEntry,
  entryTitle,
  matchesEntry,
  newEntry,
  nextUid,
  num,
  optNum,
  positionShort,
  regexKeyProblem,
  setStrategy,
  sortEntries,
  splitKeys,
  strategyOf,
  strs,
  tri,
  type LoreEntry,
} from './lorebook-entry';

function entry(uid: number, fields: Record<string, unknown> = {}): LoreEntry {
  return { uid, key: [], content: '', ...fields };
}

function book(...entries: LoreEntry[]): WorldInfoBook {
  return { entries: Object.fromEntries(entries.map((e) => [String(e.uid), e])) };
}

describe('reading entry fields', () => {
  it('reads a missing field as the backend reads it', () => {
    const e = entry(1);
    expect(num(e, 'position')).toBe(-1);
    expect(num(e, 'depth')).toBe(4);
    expect(num(e, 'groupWeight')).toBe(100);
    expect(num(e, 'order')).toBe(0);
    expect(bool(e, 'constant')).toBe(false);
    expect(tri(e, 'caseSensitive')).toBeNull();
    expect(optNum(e, 'scanDepth')).toBeNull();
    expect(strs(e, 'keysecondary')).toEqual([]);
  });

  it('reads delayUntilRecursion true as level 1, and keeps overrides', () => {
    const e = entry(1, { delayUntilRecursion: true, caseSensitive: false, scanDepth: 0, key: ['a', 3, 'b'] });
    expect(num(e, 'delayUntilRecursion')).toBe(1);
    expect(tri(e, 'caseSensitive')).toBe(false);
    expect(optNum(e, 'scanDepth')).toBe(0);
    expect(strs(e, 'key')).toEqual(['a', 'b']);
  });

  it('tells and sets the strategy', () => {
    const e = entry(1, { vectorized: true });
    expect(strategyOf(e)).toBe('vectorized');
    setStrategy(e, 'constant');
    expect(e).toMatchObject({ constant: true, vectorized: false });
    expect(strategyOf(e)).toBe('constant');
    setStrategy(e, 'normal');
    expect(strategyOf(e)).toBe('normal');
  });

  it('titles an entry by its title, its keys or its uid', () => {
    expect(entryTitle(entry(1, { comment: ' Eldoria ' }))).toBe('Eldoria');
    expect(entryTitle(entry(2, { key: ['river', 'kingdom'] }))).toBe('river, kingdom');
    expect(entryTitle(entry(3))).toBe('Entry 3');
    expect(positionShort(entry(4, { position: 4, depth: 2 }))).toBe('@D 2');
    expect(positionShort(entry(5, { position: 1 }))).toBe('↓Char');
    expect(positionShort(entry(6))).toBe('None');
  });
});

describe('making entries', () => {
  it('numbers a new entry after the largest uid and gives it SillyTavern’s template', () => {
    expect(nextUid({ entries: {} })).toBe(0);
    expect(nextUid(book(entry(3), entry(10), entry(7)))).toBe(11);
    const e = newEntry(11);
    expect(e).toMatchObject({ uid: 11, selective: true, order: 100, position: 0, probability: 100, useProbability: true, depth: 4, groupWeight: 100, scanDepth: null, caseSensitive: null, displayIndex: 11 });
  });

  it('duplicates every field, unknown ones too, without sharing them', () => {
    const src = entry(2, { comment: 'Gate', key: ['gate'], extensions: { x: [1] }, displayIndex: 2, custom: 'kept' });
    const copy = duplicateEntry(src, 9);
    expect(copy).toMatchObject({ uid: 9, displayIndex: 9, comment: 'Gate (copy)', custom: 'kept', key: ['gate'] });
    (copy.key as string[]).push('door');
    expect(src.key).toEqual(['gate']);
  });
});

describe('the entry list', () => {
  const b = book(
    entry(0, { comment: 'Zed', order: 10, content: 'A river city.', displayIndex: 5 }),
    entry(1, { comment: 'alpha', order: 300, keysecondary: ['Moon'], displayIndex: 9 }),
    entry(2, { key: ['Beta'], order: 10, displayIndex: 0 }),
  );

  it('sorts by order, title, uid and display index; ties by uid', () => {
    expect(sortEntries(b, 'order-desc')).toEqual(['1', '0', '2']);
    expect(sortEntries(b, 'order-asc')).toEqual(['0', '2', '1']);
    expect(sortEntries(b, 'title')).toEqual(['1', '2', '0']);
    expect(sortEntries(b, 'uid')).toEqual(['0', '1', '2']);
    expect(sortEntries(b, 'display')).toEqual(['2', '0', '1']);
  });

  it('searches keys, secondary keys, titles and content in any case', () => {
    const hits = (q: string) => Object.keys(b.entries).filter((k) => matchesEntry(b.entries[k]!, q));
    expect(hits('RIVER')).toEqual(['0']);
    expect(hits('moon')).toEqual(['1']);
    expect(hits('beta')).toEqual(['2']);
    expect(hits('  ')).toEqual(['0', '1', '2']);
  });
});

describe('keys', () => {
  it('splits typed text at commas and lines, but not a regex key', () => {
    expect(splitKeys('river, kingdom ,, \n gate')).toEqual(['river', 'kingdom', 'gate']);
    expect(splitKeys('/a,b{1,2}/i')).toEqual(['/a,b{1,2}/i']);
    expect(splitKeys('/not regex, x')).toEqual(['/not regex', 'x']);
  });

  it('explains a regex key that cannot work', () => {
    expect(regexKeyProblem('plain')).toBeNull();
    expect(regexKeyProblem('/dragons?/i')).toBeNull();
    expect(regexKeyProblem('/(unclosed/')).toMatch(/not a valid regular expression/);
    expect(regexKeyProblem('/foo(?=bar)/')).toBeNull();
    expect(regexKeyProblem('/(a)\\1/')).toBeNull();
  });
});

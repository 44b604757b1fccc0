import { describe, expect, it, vi } from 'vitest';
import type { Character, CharacterSummary } from '../../abi/types';
import { findDuplicate, likeness, replacementPatch } from './card-duplicate';

function character(avatar: string, fields: Partial<Character>): Character {
  return { avatar, name: '', description: '', first_mes: '', extensions: {}, createdAt: 1, updatedAt: 1, hasImage: false, ...fields } as Character;
}

function summary(c: Character, lastChatAt: number | null): CharacterSummary {
  return { avatar: c.avatar, name: c.name, tags: [], createdAt: c.createdAt, lastChatAt, chatCount: 0, hasImage: c.hasImage };
}

describe('likeness', () => {
  it('needs the same name and the same description or first message', () => {
    const a = { name: 'Seraphina', description: 'Guardian.\r\n', first_mes: 'Welcome.' };
    expect(likeness(a, { name: ' seraphina ', description: 'Guardian.', first_mes: 'Hi.' })).toEqual({ description: true, firstMessage: false });
    expect(likeness(a, { name: 'SERAPHINA', description: 'Other.', first_mes: ' Welcome.' })).toEqual({ description: false, firstMessage: true });
    expect(likeness(a, { name: 'Seraphina', description: 'Other.', first_mes: 'Hi.' })).toBeNull();
    expect(likeness(a, { name: 'Serafina', description: 'Guardian.', first_mes: 'Welcome.' })).toBeNull();
    // Composed and decomposed accents are one name.
    expect(likeness({ name: 'Zoé', description: '' }, { name: 'Zoe\u0301', description: '' })).toEqual({ description: true, firstMessage: true });
  });
});

describe('findDuplicate', () => {
  it('prefers the character sharing both texts, then the one used last', async () => {
    const one = character('S.png', { name: 'S', description: 'd', first_mes: 'x' });
    const recent = character('S1.png', { name: 'S', description: 'd', first_mes: 'y' });
    const both = character('S2.png', { name: 'S', description: 'd', first_mes: 'g' });
    const byAvatar = new Map([one, recent, both].map((c) => [c.avatar, c]));
    const api = {
      list: vi.fn(async () => [summary(one, 10), summary(recent, 50), summary(both, 1), summary(character('T.png', { name: 'T' }), 99)]),
      get: vi.fn(async (a: string) => byAvatar.get(a)!),
    };
    expect((await findDuplicate(api, { name: 's', description: 'd', first_mes: 'g' }))?.character.avatar).toBe('S2.png');
    expect((await findDuplicate(api, { name: 's', description: 'd', first_mes: 'z' }))?.character.avatar).toBe('S1.png');
    expect(await findDuplicate(api, { name: 'U', description: 'd' })).toBeNull();
    expect(api.get).not.toHaveBeenCalledWith('T.png');
  });
});

describe('replacementPatch', () => {
  it('sends what differs, null for what the file lacks, extensions key by key, and the picture', () => {
    const existing = character('S.png', {
      name: 'S',
      description: 'old',
      first_mes: 'same',
      character_book: { entries: [] },
      extensions: { world: 'Book', depth_prompt: { prompt: 'p', depth: 4, role: 'system' }, mine: { keep: 1, drop: 2 }, gone: true },
    });
    const data = {
      name: 'S',
      description: 'new',
      first_mes: 'same',
      avatar: 'ignored.png',
      image: 'ignored too',
      extensions: { world: 'Book', depth_prompt: { prompt: 'p', depth: 6, role: 'system' }, mine: { keep: 1 }, added: [1] },
    };
    expect(replacementPatch(existing, data, 'iVBORw0K')).toEqual({
      description: 'new',
      character_book: null,
      extensions: { depth_prompt: { depth: 6 }, mine: { drop: null }, gone: null, added: [1] },
      image: 'iVBORw0K',
    });
  });

  it('is empty for the same card without a picture', () => {
    const existing = character('S.png', { name: 'S', tags: ['a'], extensions: { x: { y: [1, 2] } } });
    const data = Object.fromEntries(Object.entries(structuredClone(existing)).filter(([k]) => !['avatar', 'createdAt', 'updatedAt', 'hasImage'].includes(k)));
    expect(replacementPatch(existing, data, null)).toEqual({});
  });
});

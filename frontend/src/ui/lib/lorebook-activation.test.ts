import { describe, expect, it } from 'vitest';
import { activeUids, attachmentsOf, byWorld, disabledKeyWords, fieldMessage, fieldOfError, keyNotes, positionWords, replyLore, type ActivationLike } from './lorebook-activation';

const act: ActivationLike = {
  timestampMs: 1,
  trigger: 'normal',
  entries: [
    { world: 'Eldoria', uid: 3, displayName: 'Gate', constant: false, content: 'x', position: 'before' },
    { world: 'Common', uid: '0', displayName: 'Sun', constant: true, content: 'y', position: 'atDepth' },
    { world: 'Eldoria', uid: '7', displayName: 'River', constant: false, content: 'z' },
  ],
};

describe('activation', () => {
  it('lists the uids of one book, numbers and strings alike', () => {
    expect([...activeUids(act, 'Eldoria')]).toEqual([3, 7]);
    expect(activeUids(act, 'Other').size).toBe(0);
    expect(activeUids(null, 'Eldoria').size).toBe(0);
  });

  it('notes the keys a scan turned off, per entry of one book, in words', () => {
    const checked: ActivationLike = {
      ...act,
      disabledKeys: [
        { world: 'Eldoria', uid: 3, key: '/(a+)+b(?=x)/', reason: 'timeout' },
        { world: 'Eldoria', uid: '3', key: '/c(?=d)/', reason: 'tooMany' },
        { world: 'Common', uid: 3, key: '/e(?=f)/', reason: 'timeout' },
      ],
    };
    const notes = keyNotes(checked, 'Eldoria');
    expect([...notes.keys()]).toEqual([3]);
    expect(notes.get(3)).toEqual({ '/(a+)+b(?=x)/': disabledKeyWords('timeout'), '/c(?=d)/': disabledKeyWords('tooMany') });
    expect(disabledKeyWords('timeout')).toMatch(/took too long .* turned off/);
    expect(disabledKeyWords('tooMany')).toMatch(/more than 200 keys/);
    expect(keyNotes(act, 'Eldoria').size).toBe(0);
    expect(keyNotes(null, 'Eldoria').size).toBe(0);
  });

  it('groups entries by book in the order books appear', () => {
    expect(byWorld(act).map((g) => [g.world, g.entries.length])).toEqual([['Eldoria', 2], ['Common', 1]]);
    expect(positionWords('atDepth')).toBe('in the chat at depth');
    expect(positionWords(undefined)).toBe('placed nowhere');
  });

  it('says how a book reaches a chat, or that it does not', () => {
    const lore = { globalSelect: ['Common', 'Eldoria'], characterWorld: 'Eldoria', chatWorld: 'Notes', personaWorld: 'Mine' };
    expect(attachmentsOf('Eldoria', lore)).toEqual(['global', 'character']);
    expect(attachmentsOf('Notes', lore)).toEqual(['chat']);
    expect(attachmentsOf('Mine', lore)).toEqual(['persona']);
    expect(attachmentsOf('Elsewhere', lore)).toEqual([]);
  });
});

describe('fieldOfError', () => {
  it('reads an entry field, a key index and a quoted key', () => {
    expect(fieldOfError({ code: 'worldinfo.invalid', details: { field: 'entries["12"].content' } })).toEqual({ entryKey: '12', field: 'content' });
    expect(fieldOfError({ details: { field: 'entries["3"].key[2]' } })).toEqual({ entryKey: '3', field: 'key' });
    expect(fieldOfError({ details: { field: 'entries["a\\"b"]' } })).toEqual({ entryKey: 'a"b', field: 'entry' });
  });

  it('reads a setting or the name, and nothing when no field is named', () => {
    expect(fieldOfError({ details: { field: 'world_info_depth' } })).toEqual({ entryKey: null, field: 'world_info_depth' });
    expect(fieldOfError({ details: { field: 'name' } })).toEqual({ entryKey: null, field: 'name' });
    expect(fieldOfError({ code: 'x', message: 'y' })).toBeNull();
    expect(fieldOfError('boom')).toBeNull();
  });
});

describe('fieldMessage', () => {
  it('drops the entry path a host message starts with', () => {
    expect(fieldMessage('entries["0"].key[2] is 17408 bytes; at most 16384 are allowed')).toBe('key[2] is 17408 bytes; at most 16384 are allowed');
    expect(fieldMessage('world_info_budget must be between 1 and 100')).toBe('world_info_budget must be between 1 and 100');
  });
});

describe('replyLore', () => {
  it('reads the entries a reply carried, leaving out what is malformed', () => {
    const extra = {
      api: 'openai',
      hearth: {
        generationId: 'g',
        worldInfo: [
          { world: 'Eldoria', uid: 3, displayName: 'Highmere', position: 'before' },
          { world: 'Eldoria', uid: 4, displayName: '', position: 'atDepth' },
          { world: 7, uid: 1 },
          null,
          'x',
          { world: 'Glade', uid: '2' },
        ],
      },
    };
    expect(replyLore(extra)).toEqual([
      { world: 'Eldoria', uid: 3, displayName: 'Highmere', position: 'before' },
      { world: 'Eldoria', uid: 4, displayName: 'Entry 4', position: 'atDepth' },
    ]);
    expect(replyLore(undefined)).toEqual([]);
    expect(replyLore({ hearth: { worldInfo: 'no' } })).toEqual([]);
    expect(replyLore({ hearth: null })).toEqual([]);
  });

  it('lists at most 200 entries', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ world: 'B', uid: i, displayName: `E${i}`, position: 'before' }));
    expect(replyLore({ hearth: { worldInfo: many } })).toHaveLength(200);
  });
});

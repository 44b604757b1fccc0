import { describe, expect, it } from 'vitest';
import type { Group } from '../../abi/types';
import { checkDraft, draftOf, fieldsOf, moveItem, patchOf, withoutMember } from './group-edit';

const stored: Group = {
  id: 'g',
  name: 'Crew',
  members: ['a.png', 'b.png', 'c.png'],
  disabled_members: ['b.png'],
  activation_strategy: 0,
  generation_mode: 0,
  allow_self_responses: false,
  auto_mode_delay: 5,
  generation_mode_join_prefix: '',
  generation_mode_join_suffix: '',
  avatar_url: 'img/ai4.png',
  fav: false,
  chat_id: 'g',
  chats: ['g'],
  date_added: 1,
  date_last_chat: 0,
  chat_size: 0,
  updatedAt: 1,
};

describe('moveItem', () => {
  it('moves an item, clamping the target; out of range changes nothing', () => {
    expect(moveItem(['a', 'b', 'c'], 0, 2)).toEqual(['b', 'c', 'a']);
    expect(moveItem(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(moveItem(['a', 'b', 'c'], 1, 9)).toEqual(['a', 'c', 'b']);
    expect(moveItem(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveItem(['a', 'b', 'c'], 5, 0)).toEqual(['a', 'b', 'c']);
  });
});

describe('the group draft', () => {
  it('sends a new group its fields, leaving a blank name to the host and muting only members', () => {
    const draft = { ...draftOf(null), members: ['a.png', 'b.png'], muted: ['b.png', 'gone.png'], activation_strategy: 1 as const, auto_mode_delay: ' 7 ' };
    expect(fieldsOf(draft)).toEqual({
      members: ['a.png', 'b.png'],
      disabled_members: ['b.png'],
      activation_strategy: 1,
      generation_mode: 0,
      allow_self_responses: false,
      auto_mode_delay: 7,
      generation_mode_join_prefix: '',
      generation_mode_join_suffix: '',
      fav: false,
    });
    expect(fieldsOf({ ...draft, name: ' Crew ' }).name).toBe('Crew');
  });

  it('patches exactly what changed; nothing for an untouched group', () => {
    const draft = draftOf(stored);
    expect(patchOf(stored, draft)).toEqual({});
    const moved = { ...draft, members: moveItem(draft.members, 2, 0), fav: true, ...{ muted: [] } };
    expect(patchOf(stored, moved)).toEqual({ members: ['c.png', 'a.png', 'b.png'], disabled_members: [], fav: true });
  });

  it('takes a removed member out of the muted ones', () => {
    expect(withoutMember(draftOf(stored), 'b.png')).toEqual({ members: ['a.png', 'c.png'], muted: [] });
  });

  it('refuses no members, a bad delay, and a blank name only when editing', () => {
    const empty = draftOf(null);
    expect(checkDraft(empty, false).map((e) => e.field)).toEqual(['members']);
    expect(checkDraft({ ...draftOf(stored), name: '  ', auto_mode_delay: '0' }, true).map((e) => e.field)).toEqual(['name', 'auto_mode_delay']);
    expect(fieldsOf({ ...draftOf(stored), auto_mode_delay: 12 }).auto_mode_delay).toBe(12);
    for (const bad of ['1000', '2.5', '', 'x', null, 0, 3.5]) expect(checkDraft({ ...draftOf(stored), auto_mode_delay: bad }, true)).toHaveLength(1);
    expect(checkDraft({ ...draftOf(stored), auto_mode_delay: '999' }, true)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Group } from '../../abi/types';
import { groupFixture } from '../stores/group-fixture';
import { checkDraft, draftOf, fieldsOf, moveItem, patchOf, withoutMember } from './group-edit';

const stored: Group = groupFixture('g', 'Crew', { members: ['a.png', 'b.png', 'c.png'], disabled_members: ['b.png'] });

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

  it('takes a removed member out of the muted ones and the overrides', () => {
    const draft = { ...draftOf(stored), overrides: { 'b.png': { presetId: 'p' }, 'c.png': { connectionId: 'c1' } } };
    expect(withoutMember(draft, 'b.png')).toEqual({ members: ['a.png', 'c.png'], muted: [], overrides: { 'c.png': { connectionId: 'c1' } } });
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

describe('the members\u2019 overrides', () => {
  const withHearth: Group = groupFixture('g', 'Crew', {
    members: ['a.png', 'b.png', 'c.png'],
    hearth: { note: 'kept', memberOverrides: { 'b.png': { presetId: 'p' }, 'gone.png': { connectionId: 'x' } } },
  });

  it('drafts only members\u2019 overrides and patches nothing when none changed', () => {
    const draft = draftOf(withHearth);
    expect(draft.overrides).toEqual({ 'b.png': { presetId: 'p' } });
    const emptyBlock = groupFixture('g', 'Crew', { members: ['a.png'], hearth: { memberOverrides: {} } });
    expect(patchOf(emptyBlock, draftOf(emptyBlock))).toEqual({});
    expect(patchOf(stored, draftOf(stored))).toEqual({});
  });

  it('sets an override, keeping the block\u2019s other keys', () => {
    const draft = draftOf(withHearth);
    draft.overrides = { ...draft.overrides, 'a.png': { connectionId: 'c1', presetId: '' } };
    expect(patchOf(withHearth, draft)).toEqual({
      hearth: { note: 'kept', memberOverrides: { 'a.png': { connectionId: 'c1' }, 'b.png': { presetId: 'p' } } },
    });
    expect(fieldsOf({ ...draftOf(null), members: ['a.png'], overrides: { 'a.png': { presetId: 'p' } } }).hearth).toEqual({ memberOverrides: { 'a.png': { presetId: 'p' } } });
    expect(fieldsOf({ ...draftOf(null), members: ['a.png'] })).not.toHaveProperty('hearth');
  });

  it('clears an override back to the chat\u2019s, dropping memberOverrides when none is left', () => {
    const draft = draftOf(withHearth);
    draft.overrides = { 'b.png': { presetId: '' } };
    expect(patchOf(withHearth, draft)).toEqual({ hearth: { note: 'kept' } });
  });

  it('drops a removed member\u2019s override with the member', () => {
    const base = groupFixture('g', 'Crew', { members: ['a.png', 'b.png'], hearth: { note: 'kept', memberOverrides: { 'a.png': { connectionId: 'c1' }, 'b.png': { presetId: 'p' } } } });
    const draft = draftOf(base);
    draft.members = ['a.png'];
    expect(patchOf(base, draft)).toEqual({ members: ['a.png'], hearth: { note: 'kept', memberOverrides: { 'a.png': { connectionId: 'c1' } } } });
  });

  it('sees no change in the same overrides listed in another order', () => {
    const base = groupFixture('g', 'Crew', { members: ['a.png', 'b.png'], hearth: { memberOverrides: { 'b.png': { presetId: 'p', connectionId: 'c' }, 'a.png': { presetId: 'q' } } } });
    expect(patchOf(base, draftOf(base))).toEqual({});
  });
});

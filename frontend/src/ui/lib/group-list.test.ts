import { describe, expect, it } from 'vitest';
import type { CharacterSummary, Group } from '../../abi/types';
import { memberNames, membersLine, mixEntries } from './group-list';

function char(avatar: string, name: string, at: number, tags: string[] = []): CharacterSummary {
  return { avatar, name, tags, createdAt: at, lastChatAt: null, chatCount: 0, hasImage: false };
}

function group(id: string, name: string, members: string[], lastChat: number, added = 1): Group {
  return {
    id,
    name,
    members,
    disabled_members: [],
    activation_strategy: 0,
    generation_mode: 0,
    allow_self_responses: false,
    auto_mode_delay: 5,
    generation_mode_join_prefix: '',
    generation_mode_join_suffix: '',
    avatar_url: 'img/ai4.png',
    fav: false,
    chat_id: '',
    chats: [],
    date_added: added,
    date_last_chat: lastChat,
    chat_size: 0,
    updatedAt: 1,
  };
}

const chars = [char('ann.png', 'Ann', 30, ['elf']), char('bo.png', 'Bö', 10), char('cy.png', 'Cy', 20)];

describe('mixEntries', () => {
  it('mixes groups with characters, newest first, a group by its last chat else its creation', () => {
    const groups = [group('g1', 'Tavern', ['ann.png', 'bo.png'], 25), group('g2', 'Quiet', ['cy.png'], 0, 5)];
    expect(mixEntries(chars, groups).map((e) => e.key)).toEqual(['c:ann.png', 'g:g1', 'c:cy.png', 'c:bo.png', 'g:g2']);
  });

  it('finds a group by its name or a member name, accent-insensitively; a character by name or tag', () => {
    const groups = [group('g1', 'Tavern', ['ann.png', 'bo.png'], 25), group('g2', 'Quiet', ['cy.png'], 0)];
    expect(mixEntries(chars, groups, 'tav').map((e) => e.key)).toEqual(['g:g1']);
    expect(mixEntries(chars, groups, 'bo').map((e) => e.key)).toEqual(['g:g1', 'c:bo.png']);
    expect(mixEntries(chars, groups, 'elf').map((e) => e.key)).toEqual(['c:ann.png']);
    expect(mixEntries(chars, groups, 'cy').map((e) => e.key)).toEqual(['c:cy.png', 'g:g2']);
  });
});

describe('memberNames and membersLine', () => {
  it('names members in order and leaves out one whose character is gone', () => {
    expect(memberNames({ members: ['cy.png', 'gone.png', 'ann.png'] }, chars)).toEqual(['Cy', 'Ann']);
    expect(membersLine(['Cy', 'Ann'])).toBe('2 members: Cy, Ann');
    expect(membersLine(['Cy'])).toBe('1 member: Cy');
    expect(membersLine([])).toBe('No members');
  });
});

import { describe, expect, it } from 'vitest';
import { chatMembers, speakerOf } from './speaker';

const characters = [
  { avatar: 'Ada.png', name: 'Ada', hasImage: true },
  { avatar: 'Bo.png', name: 'Bo', hasImage: false },
];

describe('group speakers', () => {
  it('lists the members in order, muted ones marked, unknown ones by their key', () => {
    expect(chatMembers({ members: ['Bo.png', 'Ada.png', 'Gone.png'], disabled_members: ['Ada.png'] }, characters)).toEqual([
      { avatar: 'Bo.png', name: 'Bo', muted: false, hasImage: false },
      { avatar: 'Ada.png', name: 'Ada', muted: true, hasImage: true },
      { avatar: 'Gone.png', name: 'Gone', muted: false, hasImage: false },
    ]);
  });

  it('finds a message’s speaker by original_avatar, else by name, never for your own', () => {
    const members = chatMembers({ members: ['Ada.png', 'Bo.png'], disabled_members: [] }, characters);
    expect(speakerOf({ name: 'Ada', is_user: false, original_avatar: 'Bo.png' }, members)).toBe('Bo.png');
    // A deleted member's message keeps its key: the row shows its stored name on a placeholder.
    expect(speakerOf({ name: 'Cy', is_user: false, original_avatar: 'Cy.png' }, members)).toBe('Cy.png');
    expect(speakerOf({ name: 'Bo', is_user: false }, members)).toBe('Bo.png');
    expect(speakerOf({ name: 'Bo', is_user: false, original_avatar: '' }, members)).toBe('Bo.png');
    expect(speakerOf({ name: 'Nobody', is_user: false }, members)).toBeNull();
    expect(speakerOf({ name: 'Ada', is_user: true, original_avatar: 'Ada.png' }, members)).toBeNull();
  });
});

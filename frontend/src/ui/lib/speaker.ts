// Who speaks in a group chat: the group's members as the chat shows them
// (name, muted, picture), and which member wrote a message. A group
// message names its speaker by avatar key in original_avatar, as
// SillyTavern writes it; its force_avatar is a /thumbnail URL of
// SillyTavern's server, which Hearth does not serve, so it is never used.
import type { CharacterSummary, Group, StMessage } from '../../abi/types';

/** ChatMember is one member of the open chat's group. */
export interface ChatMember {
  avatar: string;
  /** name is the character's, or the avatar key without its extension while the list does not know it. */
  name: string;
  muted: boolean;
  /** hasImage: avatarUrl(avatar) serves a picture (false for a character the list does not know). */
  hasImage: boolean;
}

/** chatMembers lists group's members, in its speaking order, with what the character list knows of each. */
export function chatMembers(
  group: Pick<Group, 'members' | 'disabled_members'>,
  characters: readonly Pick<CharacterSummary, 'avatar' | 'name' | 'hasImage'>[],
): ChatMember[] {
  const known = new Map(characters.map((c) => [c.avatar, c]));
  const muted = new Set(group.disabled_members ?? []);
  return (group.members ?? []).map((avatar) => {
    const c = known.get(avatar);
    return { avatar, name: c?.name ?? avatar.replace(/\.[a-z0-9]+$/i, ''), muted: muted.has(avatar), hasImage: c?.hasImage ?? false };
  });
}

/**
 * speakerOf is the avatar key of the member who wrote msg: its
 * original_avatar, else (a message from before SillyTavern kept it) the
 * member of its name; null for your messages and for a name no member has.
 * The key may name a character that is gone (its message keeps its name).
 */
export function speakerOf(msg: Readonly<Pick<StMessage, 'name' | 'is_user'>> & { original_avatar?: unknown }, members: readonly Pick<ChatMember, 'avatar' | 'name'>[]): string | null {
  if (msg.is_user) return null;
  if (typeof msg.original_avatar === 'string' && msg.original_avatar !== '') return msg.original_avatar;
  return members.find((m) => m.name === msg.name)?.avatar ?? null;
}

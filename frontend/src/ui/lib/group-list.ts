// Groups among the characters in the character list, as SillyTavern shows
// them: one list, ordered by the newest chat (else creation), searched by
// name — a group's also by its members' names.
import type { CharacterSummary, Group } from '../../abi/types';
import { matchesQuery } from '../stores/characters';

/** ListEntry is one row of the character list: a character, or a group with its members' names. */
export type ListEntry =
  | { kind: 'character'; key: string; character: CharacterSummary }
  | { kind: 'group'; key: string; group: Group; memberNames: string[] };

/** memberNames names a group's members in order, leaving out those whose character is gone. */
export function memberNames(group: Pick<Group, 'members'>, characters: readonly CharacterSummary[]): string[] {
  const byKey = new Map(characters.map((c) => [c.avatar, c.name]));
  return group.members.flatMap((m) => {
    const name = byKey.get(m);
    return name === undefined ? [] : [name];
  });
}

/** recency is when a group was last chatted in, else made (ms), as a character's lastChatAt ?? createdAt. */
function groupRecency(g: Group): number {
  return (g.date_last_chat || g.date_added || 0) as number;
}

/**
 * mixEntries lists characters and groups together, newest chat first (a
 * character's lastChatAt ?? createdAt, a group's date_last_chat ||
 * date_added), then by name; query keeps a character that matches by name
 * or tag and a group that matches by its name or a member's name.
 */
export function mixEntries(characters: readonly CharacterSummary[], groups: readonly Group[], query = ''): ListEntry[] {
  const entries: { entry: ListEntry; at: number; name: string }[] = [];
  for (const c of characters) {
    if (matchesQuery(c, query)) entries.push({ entry: { kind: 'character', key: `c:${c.avatar}`, character: c }, at: c.lastChatAt ?? c.createdAt, name: c.name });
  }
  for (const g of groups) {
    const names = memberNames(g, characters);
    if (matchesQuery({ name: g.name, tags: names }, query)) {
      entries.push({ entry: { kind: 'group', key: `g:${g.id}`, group: g, memberNames: names }, at: groupRecency(g), name: g.name });
    }
  }
  entries.sort((a, b) => b.at - a.at || a.name.localeCompare(b.name));
  return entries.map((e) => e.entry);
}

/** membersLine is a group's secondary text: how many members and who ("3 members: Ann, Bo, Cy"). */
export function membersLine(names: readonly string[]): string {
  if (names.length === 0) return 'No members';
  const count = `${names.length} ${names.length === 1 ? 'member' : 'members'}`;
  return `${count}: ${names.join(', ')}`;
}

// The group editor's draft: what the dialog edits, turned into groups.create
// fields or the groups.update patch of exactly what changed, checked before
// it is sent (the host checks again and has the last word).
import type { Group, GroupActivationStrategy, GroupFields, GroupGenerationMode, GroupMemberOverride } from '../../abi/types';

export interface GroupDraft {
  name: string;
  /** members are avatar keys in speaking order. */
  members: string[];
  /** muted are the members' avatar keys that never speak on their own (disabled_members). */
  muted: string[];
  activation_strategy: GroupActivationStrategy;
  generation_mode: GroupGenerationMode;
  allow_self_responses: boolean;
  /**
   * auto_mode_delay is the field's value: seconds, a whole number from 1 to
   * 999 (a number input bound to it gives a number, or null when empty).
   */
  auto_mode_delay: string | number | null;
  generation_mode_join_prefix: string;
  generation_mode_join_suffix: string;
  fav: boolean;
  /**
   * overrides are members' own connection and preset (hearth.memberOverrides),
   * by avatar key; a member without one, or an empty one, replies with the chat's.
   */
  overrides: Record<string, GroupMemberOverride>;
}

/** FieldError is a problem with one field of the draft (the keys are the group's, as the host's details.field names them). */
export interface FieldError {
  field: string;
  message: string;
}

/** draftOf starts a draft from a group, or a new group's defaults (SillyTavern's). */
export function draftOf(group: Group | null): GroupDraft {
  return {
    name: group?.name ?? '',
    members: [...(group?.members ?? [])],
    muted: [...(group?.disabled_members ?? [])].filter((m) => group?.members.includes(m)),
    activation_strategy: group?.activation_strategy ?? 0,
    generation_mode: group?.generation_mode ?? 0,
    allow_self_responses: group?.allow_self_responses ?? false,
    auto_mode_delay: String(group?.auto_mode_delay ?? 5),
    generation_mode_join_prefix: group?.generation_mode_join_prefix ?? '',
    generation_mode_join_suffix: group?.generation_mode_join_suffix ?? '',
    fav: group?.fav ?? false,
    overrides: overridesOf(group?.hearth?.memberOverrides ?? {}, group?.members ?? []),
  };
}

/**
 * overridesOf is the overrides worth keeping: only members', each with only
 * its non-empty ids, members without any left out (the host refuses an
 * override of a non-member and an empty id).
 */
export function overridesOf(overrides: Readonly<Record<string, GroupMemberOverride>>, members: readonly string[]): Record<string, GroupMemberOverride> {
  const out: Record<string, GroupMemberOverride> = {};
  for (const m of members) {
    const o = overrides[m];
    const kept: GroupMemberOverride = {
      ...(o?.connectionId ? { connectionId: o.connectionId } : {}),
      ...(o?.presetId ? { presetId: o.presetId } : {}),
    };
    if (Object.keys(kept).length > 0) out[m] = kept;
  }
  return out;
}

/**
 * hearthOf is the group's hearth block with the draft's overrides: groups.update
 * replaces the block whole, so its other keys are carried over as they were;
 * with no override left, memberOverrides is left out.
 */
export function hearthOf(group: Group | null, draft: GroupDraft): Record<string, unknown> {
  const { memberOverrides: _old, ...rest } = group?.hearth ?? {};
  const overrides = overridesOf(draft.overrides, draft.members);
  return Object.keys(overrides).length > 0 ? { ...rest, memberOverrides: overrides } : rest;
}

/** canonical is value as JSON with object keys sorted, to compare values whatever their keys' order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** moveItem returns list with the item at from moved to index to (clamped); the same list when nothing moves. */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  const target = Math.max(0, Math.min(list.length - 1, to));
  if (from < 0 || from >= list.length || from === target) return [...list];
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(target, 0, item as T);
  return next;
}

/** withoutMember removes a member, and its mute and override with it. */
export function withoutMember(draft: GroupDraft, avatar: string): Pick<GroupDraft, 'members' | 'muted' | 'overrides'> {
  const { [avatar]: _gone, ...overrides } = draft.overrides;
  return { members: draft.members.filter((m) => m !== avatar), muted: draft.muted.filter((m) => m !== avatar), overrides };
}

function delayText(draft: GroupDraft): string {
  return String(draft.auto_mode_delay ?? '').trim();
}

/** checkDraft finds what the host would refuse, in words; editing also refuses a blank name (a new group gets one from its members). */
export function checkDraft(draft: GroupDraft, editing: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (editing && draft.name.trim() === '') errors.push({ field: 'name', message: 'Give the group a name.' });
  if (draft.members.length === 0) errors.push({ field: 'members', message: 'Add at least one member.' });
  const delay = delayText(draft);
  if (!/^\d+$/.test(delay) || Number(delay) < 1 || Number(delay) > 999) {
    errors.push({ field: 'auto_mode_delay', message: 'A whole number of seconds from 1 to 999.' });
  }
  return errors;
}

/**
 * fieldsOf is what the draft sets, in the group's keys (a blank name is left
 * out: the host names the group after its members; hearth only when a member
 * has an override).
 */
export function fieldsOf(draft: GroupDraft): GroupFields {
  const name = draft.name.trim();
  const hearth = hearthOf(null, draft);
  return {
    ...(name ? { name } : {}),
    members: [...draft.members],
    disabled_members: draft.members.filter((m) => draft.muted.includes(m)),
    activation_strategy: draft.activation_strategy,
    generation_mode: draft.generation_mode,
    allow_self_responses: draft.allow_self_responses,
    auto_mode_delay: Number(delayText(draft)),
    generation_mode_join_prefix: draft.generation_mode_join_prefix,
    generation_mode_join_suffix: draft.generation_mode_join_suffix,
    fav: draft.fav,
    ...(Object.keys(hearth).length > 0 ? { hearth } : {}),
  };
}

/**
 * patchOf is the groups.update patch of what the draft changed in group
 * (empty when nothing did). A changed hearth block goes whole, its keys other
 * than memberOverrides as the group had them.
 */
export function patchOf(group: Group, draft: GroupDraft): Partial<GroupFields> {
  const { hearth: _h, ...fields } = fieldsOf(draft);
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (JSON.stringify(value) !== JSON.stringify(group[key])) patch[key] = value;
  }
  const { memberOverrides, ...rest } = group.hearth ?? {};
  const before = memberOverrides && Object.keys(memberOverrides).length > 0 ? { ...rest, memberOverrides } : rest;
  const hearth = hearthOf(group, draft);
  if (canonical(hearth) !== canonical(before)) patch.hearth = hearth;
  return patch as Partial<GroupFields>;
}

/** STRATEGIES are the activation strategies with the sentence the editor shows for each. */
export const STRATEGIES: readonly { value: GroupActivationStrategy; label: string; hint: string }[] = [
  { value: 0, label: 'Natural', hint: 'A member your message names answers; otherwise members chime in by how talkative their cards are.' },
  { value: 1, label: 'List', hint: 'Every unmuted member answers, one after another, in the order above.' },
  { value: 2, label: 'Manual', hint: 'Nobody answers on their own — you choose who speaks next.' },
  { value: 3, label: 'Pooled', hint: 'One member who hasn’t spoken since your last message answers.' },
];

/** MODES are the generation modes with the sentence the editor shows for each. */
export const MODES: readonly { value: GroupGenerationMode; label: string; hint: string }[] = [
  { value: 0, label: 'Swap', hint: 'Only the speaking member’s card is in the prompt.' },
  { value: 1, label: 'Join, without muted', hint: 'Every unmuted member’s card is in the prompt, each wrapped in the prefix and suffix below.' },
  { value: 2, label: 'Join, with muted', hint: 'Every member’s card is in the prompt, muted ones too, each wrapped in the prefix and suffix below.' },
];

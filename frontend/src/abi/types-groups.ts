// The group types (api.groups, docs/API.md "Groups", HOST-ABI §5.1):
// SillyTavern's group objects as its groups/<id>.json holds them, plus
// Hearth's per-member overrides. types.ts re-exports them.

/** Who speaks next: 0 natural, 1 list, 2 manual, 3 pooled (SillyTavern's group_activation_strategy). */
export type GroupActivationStrategy = 0 | 1 | 2 | 3;

/** How members' cards reach the prompt: 0 swap, 1 join (muted left out), 2 join with muted (group_generation_mode). */
export type GroupGenerationMode = 0 | 1 | 2;

/** One member's own connection and preset (Hearth's; absent: the chat's). */
export interface GroupMemberOverride {
  connectionId?: string;
  presetId?: string;
}

/** A group: SillyTavern's keys (snake_case, numeric enums); keys Hearth does not know are kept. */
export interface Group {
  id: string;
  name: string;
  /** The members' avatar keys, in speaking order. */
  members: string[];
  /** The muted members' avatar keys (never drafted; left out of join mode 1). */
  disabled_members: string[];
  activation_strategy: GroupActivationStrategy;
  generation_mode: GroupGenerationMode;
  allow_self_responses: boolean;
  /** Seconds between auto-mode replies, 1 to 999. */
  auto_mode_delay: number;
  generation_mode_join_prefix: string;
  generation_mode_join_suffix: string;
  /** The group's own picture (a data: URL); SillyTavern's default 'img/ai4.png' means the members' collage. */
  avatar_url: string | null;
  fav: boolean;
  /** The current chat's file name, and every chat's. */
  chat_id: string;
  chats: string[];
  hearth?: { memberOverrides?: Record<string, GroupMemberOverride>; [key: string]: unknown };
  /** Read-only, worked out on each read: created (ms), newest chat change (ms, 0 for none), chats' size in bytes, last change of the group (ms). */
  readonly date_added: number;
  readonly date_last_chat: number;
  readonly chat_size: number;
  readonly updatedAt: number;
  [key: string]: unknown;
}

/** groups.create's fields: members required, the rest SillyTavern's defaults when left out. */
export type GroupFields = Partial<Omit<Group, 'date_added' | 'date_last_chat' | 'chat_size' | 'updatedAt'>> & { members: string[] };

/**
 * A group chat's auto mode (groups.setAutoMode, groups.autoMode): whether
 * the members keep replying by themselves, one group turn every
 * delaySeconds (the group's auto_mode_delay, 1 to 999). It goes off when
 * turned off, when a user's message is added to the chat, when a turn
 * fails, when the chat or group is deleted, and when Hearth quits;
 * GROUP_AUTO_MODE_CHANGED announces every change. The backend does not know
 * which chat a window shows: the window turns it off when it leaves the chat.
 */
export interface GroupAutoMode {
  chatId: string;
  on: boolean;
  delaySeconds: number;
}

export interface GroupsApi {
  /** Every group, by name. */
  list(): Promise<Group[]>;
  /** Rejects group.not_found. */
  get(id: string): Promise<Group>;
  /** Rejects character.not_found (details.avatar) for a member that names no character. */
  create(fields: GroupFields): Promise<Group>;
  /** Shallow merge; setting members drops the removed ones from disabled_members and the overrides unless those are set too. */
  update(id: string, patch: Partial<GroupFields>): Promise<Group>;
  /** The group's chats stay unless deleteChats. */
  delete(id: string, options?: { deleteChats?: boolean }): Promise<void>;
  /**
   * Turns a group chat's auto mode on or off; the first turn comes after the
   * delay. Rejects chat.not_found, validation.invalid_argument for a
   * character's chat or a non-boolean on (nothing changes, no event).
   */
  setAutoMode(chatId: string, on: boolean): Promise<GroupAutoMode>;
  /** A group chat's auto mode now (the toggle's state after a reload); rejects as setAutoMode. */
  autoMode(chatId: string): Promise<GroupAutoMode>;
}

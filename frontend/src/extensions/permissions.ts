// What a sandboxed extension's frame may call, and which events it may
// hear (EXTENSIONS.md §2). Every function of the page's window.__HEARTH__.api
// has a rule here (permissions.test.ts walks the real api and fails on one
// without), so a method added to the ABI is refused to frames until someone
// decides its permission. Anything not listed is refused too: the bridge
// fails closed.
import { EVENT_PERMISSIONS, EVENT_TYPES, type EventPermission } from '../abi/event-registry.gen';
import type { ExtensionPermission } from '../abi/types-extensions';

/**
 * MethodRule says who may call a method from a frame:
 * - a permission: an extension holding it in its current grant;
 * - 'own-storage': every extension, on its own namespace only (the bridge
 *   sets opts.extensionId, whatever the frame passed);
 * - 'never': no frame (auth.denied);
 * - 'not-bridged': the method takes or returns functions, which cannot
 *   cross postMessage; frames are not offered it (api.events is the frame
 *   client's own).
 */
export type MethodRule = ExtensionPermission | 'own-storage' | 'never' | 'not-bridged';

/** PERMISSIONS are the permissions a manifest may declare, in EXTENSIONS.md §2's order. */
export const PERMISSIONS: readonly ExtensionPermission[] = Object.freeze([
  'chat.read',
  'chat.write',
  'state',
  'characters.read',
  'characters.write',
  'worldinfo.read',
  'worldinfo.write',
  'generate',
  'prompt.hooks',
  'agent',
  'ui.panel',
  'notify',
  'network',
] as const);

const rules: Record<string, MethodRule> = {
  // chat.read: messages, metadata, search, the chat list.
  'chat.list': 'chat.read',
  'chat.get': 'chat.read',
  'chat.resolve': 'chat.read',
  'chat.getMessages': 'chat.read',
  'chat.getStMessages': 'chat.read',
  'chat.count': 'chat.read',
  'chat.isMessageHidden': 'chat.read',
  'chat.getMetadata': 'chat.read',
  'chat.tree': 'chat.read',
  'chat.exportJsonl': 'chat.read',
  'chat.search': 'chat.read',
  'chat.undoStatus': 'chat.read',
  'chat.current': 'chat.read',
  'chat.loaded': 'chat.read',
  // chat.write: messages, swipes, metadata, and new chats (all undoable or additive).
  'chat.create': 'chat.write',
  'chat.rename': 'chat.write',
  'chat.addMessages': 'chat.write',
  'chat.updateMessages': 'chat.write',
  'chat.deleteMessages': 'chat.write',
  'chat.patch': 'chat.write',
  'chat.appendMessage': 'chat.write',
  'chat.updateMessage': 'chat.write',
  'chat.deleteMessage': 'chat.write',
  'chat.setMessageHidden': 'chat.write',
  'chat.setMessagesHidden': 'chat.write',
  'chat.swipe': 'chat.write',
  'chat.addSwipe': 'chat.write',
  'chat.deleteSwipe': 'chat.write',
  'chat.saveMetadata': 'chat.write',
  'chat.createCheckpoint': 'chat.write',
  'chat.createBranch': 'chat.write',
  'chat.importJsonl': 'chat.write',
  'chat.uploadMedia': 'chat.write',
  'chat.undo': 'chat.write',
  'chat.redo': 'chat.write',
  // Deleting a whole chat cannot be undone, and no permission names it.
  'chat.delete': 'never',
  // Which chat the window shows is the person's choice, not a data permission.
  'chat.select': 'never',
  // Opens the system's Save dialog and writes a file where the person picks.
  'chat.saveJsonl': 'never',

  'characters.list': 'characters.read',
  'characters.get': 'characters.read',
  'characters.exportCard': 'characters.read',
  'characters.avatarUrl': 'characters.read',
  'characters.create': 'characters.write',
  'characters.update': 'characters.write',
  'characters.importCard': 'characters.write',
  // Deletes the card (and with deleteChats its chats) for good.
  'characters.delete': 'never',
  // The system's Save dialog.
  'characters.saveCard': 'never',
  // Groups are lists of characters: read and written as characters are.
  'groups.list': 'characters.read',
  'groups.get': 'characters.read',
  'groups.create': 'characters.write',
  'groups.update': 'characters.write',
  // Auto mode runs generations, as generate.start does.
  'groups.setAutoMode': 'generate',
  'groups.autoMode': 'generate',
  // Deletes the group (and with deleteChats its chats) for good.
  'groups.delete': 'never',

  // state: chat, floor and character state.
  'state.getChatState': 'state',
  'state.getChatStateBatch': 'state',
  'state.setChatState': 'state',
  'state.deleteChatState': 'state',
  'state.getCharacterState': 'state',
  'state.setCharacterState': 'state',
  // The updater is a function; a floor-state instance is an object of functions.
  'state.updateChatState': 'not-bridged',
  'state.createFloorState': 'not-bridged',

  'worldinfo.list': 'worldinfo.read',
  'worldinfo.get': 'worldinfo.read',
  'worldinfo.exportBook': 'worldinfo.read',
  'worldinfo.lastActivation': 'worldinfo.read',
  'worldinfo.getSettings': 'worldinfo.read',
  'worldinfo.save': 'worldinfo.write',
  'worldinfo.rename': 'worldinfo.write',
  'worldinfo.importBook': 'worldinfo.write',
  'worldinfo.bindToChat': 'worldinfo.write',
  'worldinfo.saveSettings': 'worldinfo.write',
  // Deletes a lorebook for good.
  'worldinfo.delete': 'never',
  // The system's Save dialog.
  'worldinfo.saveBook': 'never',

  // generate: spends the person's tokens; reading presets is part of it
  // (OAI_PRESET_CHANGED_AFTER is a generate event).
  'generate.start': 'generate',
  'generate.run': 'generate',
  'generate.dryRun': 'generate',
  'generate.stop': 'generate',
  'generate.status': 'generate',
  // generate.promptHookReply is on no api: the window's prompt hook alone
  // answers PROMPT_HOOK_REQUEST (an event no frame hears), so a frame can
  // neither see a prompt-hook token nor answer for the window. A frame's
  // generate.start still runs the window's prompt hooks (it starts in this
  // window). A frame granted prompt.hooks takes part in them through the
  // bridge's own hook messages (bridge-hooks.ts), never with the token.
  'presets.list': 'generate',
  'presets.get': 'generate',
  'presets.active': 'generate',
  'presets.export': 'generate',
  // Changing how every reply is generated is the person's settings, not an extension's.
  'presets.save': 'never',
  'presets.delete': 'never',
  'presets.import': 'never',
  'presets.select': 'never',
  'presets.saveFile': 'never',

  // agent: start, read and cancel runs; read profiles and skills.
  'agent.startRunFromLegacyGenerate': 'agent',
  'agent.startRunWithPromptSnapshot': 'agent',
  'agent.cancel': 'agent',
  'agent.getRun': 'agent',
  'agent.listRuns': 'agent',
  'agent.readEvents': 'agent',
  'agent.readWorkspaceFile': 'agent',
  'agent.listWorkspaceFiles': 'agent',
  'agent.listCheckpoints': 'agent',
  'agent.readDiff': 'agent',
  'agent.profiles.list': 'agent',
  'agent.profiles.load': 'agent',
  'agent.profiles.diagnose': 'agent',
  'agent.skills.list': 'agent',
  'agent.skills.read': 'agent',
  // Approving a tool call is the person's decision; a rollback rewrites
  // the workspace and the chat; profiles and skills decide what agents may do.
  'agent.approveToolCall': 'never',
  'agent.rollback': 'never',
  'agent.profiles.save': 'never',
  'agent.profiles.delete': 'never',
  'agent.skills.install': 'never',
  // Its handler is a function (AGENT_RUN_EVENT reaches frames holding agent).
  'agent.subscribe': 'not-bridged',

  // Model connections (base URLs, headers, keys set or not), personas and
  // the library are in no permission.
  'connections.save': 'never',
  'connections.list': 'never',
  'connections.get': 'never',
  'connections.delete': 'never',
  'connections.select': 'never',
  'connections.active': 'never',
  'connections.test': 'never',
  'connections.models': 'never',
  'connections.probe': 'never',
  'personas.list': 'never',
  'personas.get': 'never',
  'personas.active': 'never',
  'personas.effective': 'never',
  'personas.save': 'never',
  'personas.delete': 'never',
  'personas.setActive': 'never',
  'personas.setDefault': 'never',
  'personas.lockToChat': 'never',
  'library.importST': 'never',
  'library.exportST': 'never',
  'library.access': 'never',
  'library.pickFolder': 'never',

  // Managing extensions is the person's (the manager's) alone: a frame could
  // otherwise grant itself more, or turn others off.
  'extensions.list': 'never',
  'extensions.install': 'never',
  'extensions.remove': 'never',
  'extensions.update': 'never',
  'extensions.enable': 'never',
  'extensions.disable': 'never',
  'extensions.grant': 'never',
  'extensions.revoke': 'never',
  'extensions.reportFailure': 'never',
  'extensions.compatReport': 'never',
  'extensions.safeMode': 'never',
  'extensions.setSafeMode': 'never',
  'extensions.storage.get': 'own-storage',
  'extensions.storage.set': 'own-storage',
  'extensions.storage.delete': 'own-storage',
  'extensions.storage.list': 'own-storage',

  'events.on': 'not-bridged',
  'events.once': 'not-bridged',
  'events.off': 'not-bridged',
};

/** METHOD_RULES maps every page api method path to its rule. */
export const METHOD_RULES: ReadonlyMap<string, MethodRule> = new Map(Object.entries(rules));

/**
 * UI_RULES are the frame-only methods (under __HEARTH__.ui in a frame; the
 * page's api has no such paths) and the permission each needs.
 */
export const UI_RULES: ReadonlyMap<string, ExtensionPermission> = new Map([['ui.notify', 'notify']]);

/**
 * STORAGE_OPTS_AT is the position of opts in each extensions.storage call:
 * the bridge puts { extensionId } there and drops anything after it.
 */
export const STORAGE_OPTS_AT: ReadonlyMap<string, number> = new Map([
  ['extensions.storage.get', 1],
  ['extensions.storage.set', 2],
  ['extensions.storage.delete', 1],
  ['extensions.storage.list', 1],
]);

const eventPermissions = new Map<string, EventPermission>(
  (Object.keys(EVENT_TYPES) as (keyof typeof EVENT_TYPES)[]).map((name) => [EVENT_TYPES[name], EVENT_PERMISSIONS[name]]),
);

/**
 * eventPermission is the permission an event type (its wire value, as
 * api.events.on takes it) is delivered under; 'none' for a type the
 * registry does not list (the window's own render events, a type a newer
 * backend added), so an event nobody classified never reaches a frame.
 */
export function eventPermission(type: string): EventPermission {
  return eventPermissions.get(type) ?? 'none';
}

// What the extension manager says about an extension, in plain words:
// its permissions (EXTENSIONS.md §2), its tier, its status and where it
// came from. Pure, so every wording is tested without a page.
import type { ExtensionEntry, ExtensionPermission } from '../../abi/types-extensions';

/** A permission in words: what it lets the extension do, and a line more about it. */
export interface PermissionWords {
  words: string;
  more: string;
}

/**
 * PERMISSIONS says each permission in words. A Record over the union, so
 * a permission added to the ABI does not compile until it has words; the
 * test holds it to the backend's list too.
 */
export const PERMISSIONS: Readonly<Record<ExtensionPermission, PermissionWords>> = {
  'chat.read': { words: 'Read your chats', more: 'Messages and their details, search, and the list of the open character’s chats' },
  'chat.write': { words: 'Change messages in your chats', more: 'Add, edit and delete messages and swipes, and change a chat’s details' },
  state: { words: 'Keep its own notes in chat state', more: 'Chat, message and character state that travels with the chat' },
  'characters.read': { words: 'Read your characters', more: 'Their cards: descriptions, greetings and pictures' },
  'characters.write': { words: 'Change your characters', more: 'Edit, create and delete character cards' },
  'worldinfo.read': { words: 'Read your lorebooks', more: 'World Info books and their entries' },
  'worldinfo.write': { words: 'Change your lorebooks', more: 'Edit, create and delete World Info entries and books' },
  generate: { words: 'Generate text with your model (uses your tokens)', more: 'Start replies and quiet prompts through your connection, at your cost' },
  'prompt.hooks': { words: 'See and change the prompt before it is sent', more: 'Every message of the assembled prompt, on each generation' },
  agent: { words: 'Start, follow and stop agent runs', more: 'Agent runs act with the tools of their profile' },
  'ui.panel': { words: 'Show its own panel', more: 'A panel beside the chat, drawn by the extension' },
  notify: { words: 'Show notifications', more: 'Short notices in the corner of the window' },
  network: { words: 'Talk to sites on the internet', more: 'Only the sites it names; nothing else is reachable' },
};

/** hostOf is an origin without its https:// (what a person reads as the site). */
function hostOf(origin: string): string {
  return origin.replace(/^https:\/\//i, '').replace(/\/$/, '');
}

/**
 * permissionWords says one permission of an extension in words; network
 * names the sites it may reach (network: the manifest's hearth.network).
 */
export function permissionWords(permission: ExtensionPermission, network: readonly string[] = []): PermissionWords {
  const base = PERMISSIONS[permission] ?? { words: permission, more: '' };
  if (permission !== 'network') return base;
  if (network.length === 0) return { words: 'Talk to sites on the internet (it names none, so it reaches none)', more: base.more };
  return { words: `Talk to: ${network.map(hostOf).join(', ')}`, more: base.more };
}

/** A permission as the manager lists it: in words, and whether it is granted now. */
export interface PermissionLine extends PermissionWords {
  permission: ExtensionPermission;
  granted: boolean;
}

/** permissionLines lists what an extension declares, in words, each with whether it is granted now. */
export function permissionLines(e: Pick<ExtensionEntry, 'permissions' | 'granted' | 'network'>): PermissionLine[] {
  const granted = new Set(e.granted);
  return e.permissions.map((p) => ({ permission: p, granted: granted.has(p), ...permissionWords(p, e.network) }));
}

/** MODE_WORDS names the two tiers (the badge) and says what each means. */
export const MODE_WORDS: Readonly<Record<ExtensionEntry['mode'], { badge: string; means: string }>> = {
  sandboxed: { badge: 'Sandboxed', means: 'Runs in a sealed frame and can do only what you allow' },
  page: { badge: 'Full access', means: 'Runs with full access to your chats, characters and settings' },
};

/** What an install asks before an extension is turned on: the tier's warning, and for a sandboxed one what it may do. */
export interface TierWarning {
  /** lead is the sentence above the list (or alone, for the page tier). */
  lead: string;
  lines: PermissionLine[];
  /** fullAccess: the page tier, shown as a warning. */
  fullAccess: boolean;
}

/** tierWarning is what the manager shows before an extension first runs (EXTENSIONS.md, the tiers' "install asks"). */
export function tierWarning(e: Pick<ExtensionEntry, 'mode' | 'permissions' | 'granted' | 'network'>): TierWarning {
  if (e.mode === 'page') {
    return { lead: 'Runs with full access to your chats, characters and settings. Turn it on only if you trust where it came from.', lines: [], fullAccess: true };
  }
  const lines = permissionLines(e);
  return {
    lead: lines.length === 0 ? 'It asks for nothing: it runs in a sealed frame and keeps only its own storage.' : 'Allow:',
    lines,
    fullAccess: false,
  };
}

/** How a status looks: ok (active), off, or trouble (failed or blocked). */
export type StatusTone = 'ok' | 'off' | 'trouble';

/** firstLine is the first line of a possibly long error (a stack trace), for the status line. */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0]?.trim() ?? '';
}

/**
 * statusWords says an extension's status in words: Active, Off, Failed:
 * <error>, Blocked: <reason>. An extension turned on but off for now
 * (safe mode) says why after "Off:".
 */
export function statusWords(e: Pick<ExtensionEntry, 'status' | 'enabled' | 'error'>): { text: string; tone: StatusTone } {
  const why = firstLine(e.error ?? '');
  switch (e.status) {
    case 'active':
      return { text: 'Active', tone: 'ok' };
    case 'failed':
      return { text: why ? `Failed: ${why}` : 'Failed', tone: 'trouble' };
    case 'blocked':
      return { text: why ? `Blocked: ${why}` : 'Blocked', tone: 'trouble' };
    default:
      return { text: e.enabled && why ? `Off: ${why}` : 'Off', tone: 'off' };
  }
}

/** sourceWords says where an extension was installed from. */
export function sourceWords(source: ExtensionEntry['source']): string {
  switch (source.kind) {
    case 'path':
      return `From the folder ${source.value}`;
    case 'url':
      return `From ${source.value}`;
    default:
      return `From the uploaded file ${source.value}`;
  }
}

/** updatable: an extension installed from a folder or a URL can be read again (update); an uploaded zip cannot. */
export function updatable(source: ExtensionEntry['source']): boolean {
  return source.kind === 'path' || source.kind === 'url';
}

/** versionWords is a version as shown by a name ("v1.2.0"); empty when the manifest has none. */
export function versionWords(version: string): string {
  const v = version.trim();
  if (v === '') return '';
  return /^\d/.test(v) ? `v${v}` : v;
}

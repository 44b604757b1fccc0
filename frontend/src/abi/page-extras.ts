// The page tier's additions to getContext() and window.SillyTavern
// (EXTENSIONS.md §5). SillyTavern's context carries members page
// extensions rely on (extensionSettings, renderExtensionTemplateAsync, …)
// and window.SillyTavern carries `libs`; in Hearth they exist only once the
// SillyTavern compat runtime loads, which happens only when a page
// extension is turned on, so a window without one pays nothing. The
// context and the alias read them here: undefined until then.
//
// One window holds one ABI, so this is one slot for the window, filled once
// by extensions/st/runtime.ts.

/** The getContext() members the compat runtime provides. */
export const PAGE_CONTEXT_MEMBERS = [
  'POPUP_RESULT',
  'POPUP_TYPE',
  'addLocaleData',
  'callGenericPopup',
  'extensionSettings',
  'getCurrentLocale',
  'getRequestHeaders',
  'loadWorldInfo',
  'onlineStatus',
  'renderExtensionTemplateAsync',
  'saveMetadata',
  'saveMetadataDebounced',
  'saveSettingsDebounced',
  'saveWorldInfo',
  'substituteParams',
  't',
  'translate',
  'uuidv4',
  'writeExtensionField',
] as const;

export type PageContextMember = (typeof PAGE_CONTEXT_MEMBERS)[number];

/** PageExtras are the members above plus window.SillyTavern.libs. */
export type PageExtras = Readonly<Record<PageContextMember, unknown> & { libs: unknown }>;

let extras: PageExtras | null = null;

/** setPageExtras fills the slot (the compat runtime, once); a member given as a getter stays one, so onlineStatus follows the connection. */
export function setPageExtras(x: PageExtras): void {
  extras = Object.freeze(Object.defineProperties({}, Object.getOwnPropertyDescriptors(x)) as PageExtras);
}

/** pageExtra reads one member: undefined while no page extension runs. */
export function pageExtra(name: PageContextMember | 'libs'): unknown {
  return extras?.[name];
}

/** definePageMembers gives ctx a getter for each member it lacks. */
export function definePageMembers<T extends object>(ctx: T): T {
  for (const name of PAGE_CONTEXT_MEMBERS) {
    if (name in ctx) continue;
    Object.defineProperty(ctx, name, { get: () => pageExtra(name), enumerable: true, configurable: false });
  }
  return ctx;
}

// The extension registry types (api.extensions, EXTENSIONS.md §3,
// docs/API.md "Extensions"). types.ts re-exports them.

/** A permission a sandboxed extension may declare (EXTENSIONS.md §2). */
export type ExtensionPermission =
  | 'chat.read'
  | 'chat.write'
  | 'state'
  | 'characters.read'
  | 'characters.write'
  | 'worldinfo.read'
  | 'worldinfo.write'
  | 'generate'
  | 'prompt.hooks'
  | 'agent'
  | 'ui.panel'
  | 'notify'
  | 'network';

/** Where a package comes from: a folder on the host's machine, an https URL (a repository or a .zip), or an uploaded .zip. */
export type ExtensionSource = { path: string } | { url: string } | { fileName: string; base64: string };

/** One installed extension, as extensions.list() shows it. */
export interface ExtensionEntry {
  id: string;
  displayName: string;
  version: string;
  author: string;
  /** 'sandboxed' runs in a frame with its grant; 'page' in the window with full access. */
  mode: 'sandboxed' | 'page';
  enabled: boolean;
  /** What the manifest declares (none in the page tier). */
  permissions: ExtensionPermission[];
  /** What is granted of it now. */
  granted: ExtensionPermission[];
  /** 'blocked': a dependency is missing or off (error says which); 'failed': the runtime reported error. */
  status: 'active' | 'disabled' | 'failed' | 'blocked';
  error?: string;
  loadingOrder: number;
  dependencies: string[];
  /** The manifest's minimum_client_version (a later SillyTavern than capabilities().stCompat is 'blocked'). */
  minimumClientVersion?: string;
  js?: string;
  css?: string;
  /** hearth.entry: the page a sandboxed extension's frame loads. */
  entry?: string;
  /** The manifest's i18n: locale code ('zh-cn', or 'default') → translation file in the package, read by the page loader. */
  i18n?: Record<string, string>;
  network: string[];
  panel?: Record<string, unknown>;
  source: { kind: 'path' | 'zip' | 'url'; value: string };
  installedAt: number;
  updatedAt: number;
  /** A page extension's compatibility in short (compatReport has it all); absent for a sandboxed one and one not scanned yet. */
  compat?: ExtensionCompatSummary;
}

/**
 * A compatibility verdict (EXTENSIONS.md §5): 'works' — everything it was
 * seen to use is in Hearth; 'partial' — it loads, and some of what it uses
 * is not (or part of it was not read); 'wont_load' — it cannot start (a
 * module it loads imports what Hearth does not provide, it asks for a newer
 * SillyTavern, or a dependency is not installed).
 */
export type ExtensionVerdict = 'works' | 'partial' | 'wont_load';

/** The verdict in short, on each page extension's list entry. */
export interface ExtensionCompatSummary {
  verdict: ExtensionVerdict;
  /** How many things it uses that Hearth does not provide. */
  unsupported: number;
}

/** A page extension's compatibility report: what of SillyTavern its code uses, each judged against Hearth. */
export interface ExtensionCompatReport extends ExtensionCompatSummary {
  /** The SillyTavern version Hearth's compat modules follow (capabilities().stCompat). */
  stVersion: string;
  /**
   * The SillyTavern modules it imports, by resolved path. served: Hearth has a compat module there;
   * linked: a module its entry loads imports it statically (so a failure stops it loading); dynamic: an import('…') does.
   */
  modules: {
    path: string;
    served: boolean;
    linked: boolean;
    dynamic: boolean;
    /** exported by SillyTavern's module; backed by Hearth (else it throws ext.unsupported when called); linked: imported by name statically. */
    names: { name: string; exported: boolean; backed: boolean; linked: boolean }[];
  }[];
  /** getContext() members it reads. */
  context: { name: string; backed: boolean }[];
  /** event_types names it listens to (or names). */
  events: { name: string; supported: boolean }[];
  /** SillyTavern element ids it reaches and does not make itself. */
  domIds: { id: string; supported: boolean }[];
  /** SillyTavern server paths (/api/…) it calls; Hearth has none. */
  apiPaths: { path: string }[];
  /** Other imports: a URL, a bare name, another extension's file, or a file of its own it lacks. */
  others: { specifier: string; kind: 'url' | 'bare' | 'extension' | 'missing'; linked: boolean }[];
  manifest: {
    generateInterceptor?: { name: string; backed: boolean };
    minimumClientVersion?: { version: string; satisfied: boolean };
    dependencies: { id: string; installed: boolean }[];
  };
  notes: string[];
  scanned: { files: number; bytes: number; skipped: { path: string; reason: string }[] };
}

/** Names whose storage a call from the UI or the console uses. */
export interface ExtensionStorageOptions {
  extensionId: string;
}

/** api.extensions.storage: JSON values by key, per extension; 10 MiB each. */
export interface ExtensionStorageApi {
  /** The value under key, or null. */
  get(key: string, opts: ExtensionStorageOptions): Promise<unknown>;
  /** Stores a JSON value; past the quota it rejects extension.quota_exceeded and writes nothing. */
  set(key: string, value: unknown, opts: ExtensionStorageOptions): Promise<void>;
  delete(key: string, opts: ExtensionStorageOptions): Promise<void>;
  /** The keys starting with prefix ('' or null: all), in byte order. */
  list(prefix: string | null | undefined, opts: ExtensionStorageOptions): Promise<string[]>;
}

/**
 * Safe mode: while active, no extension runs (list() shows each enabled one
 * 'disabled' with the reason). atStart keeps it on at every start; flag says
 * this run was started with --safe-mode.
 */
export interface ExtensionSafeMode {
  active: boolean;
  atStart: boolean;
  flag: boolean;
}

/** api.extensions: install, list and manage extensions. */
export interface ExtensionsApi {
  list(): Promise<ExtensionEntry[]>;
  /** Installs a package (off unless enable), granting what its manifest declares. */
  install(source: ExtensionSource, opts?: { enable?: boolean }): Promise<ExtensionEntry>;
  /** Removes an extension; clean drops its storage too. */
  remove(id: string, opts?: { clean?: boolean }): Promise<void>;
  /** Installs again from the same path or URL, keeping storage and the grants still declared. */
  update(id: string): Promise<ExtensionEntry>;
  enable(id: string): Promise<ExtensionEntry>;
  disable(id: string): Promise<ExtensionEntry>;
  /** Grants permissions the manifest declares. */
  grant(id: string, permissions: ExtensionPermission[]): Promise<ExtensionEntry>;
  revoke(id: string, permissions: ExtensionPermission[]): Promise<ExtensionEntry>;
  /** A page extension's compatibility report (a sandboxed one has none: extension.not_page). */
  compatReport(id: string): Promise<ExtensionCompatReport>;
  /** The runtime says the extension failed to load or run a hook: it shows as failed (until enabled again) and EXTENSION_FAILED fires. */
  reportFailure(id: string, error: string): Promise<ExtensionEntry>;
  /** Whether extensions are off for safety now, and whether they start off. */
  safeMode(): Promise<ExtensionSafeMode>;
  /** Turns safe mode on or off now (active) and for later starts (atStart); EXTENSION_SAFE_MODE fires when either changes. */
  setSafeMode(opts: { active?: boolean; atStart?: boolean }): Promise<ExtensionSafeMode>;
  readonly storage: ExtensionStorageApi;
}

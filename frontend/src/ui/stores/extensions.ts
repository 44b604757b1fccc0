// The extension manager's store: the installed extensions, safe mode, and
// the calls behind the manager's controls (api.extensions, EXTENSIONS.md
// §3–4). Once started it follows the EXTENSION_* events, so an install
// from the console or another window shows here too. A refused call is
// kept as a sentence by the extension it was about (failures), for the
// manager to show where the control is, rather than as a toast.
import { get, writable, type Readable } from 'svelte/store';
import type { ExtensionCompatReport, ExtensionEntry, ExtensionPermission, ExtensionSafeMode, ExtensionSource, HearthAbi } from '../../abi/types';
import { describeError } from '../lib/errors';
import { eventType, type EventName } from '../lib/events';
import { failureSentence, type ExplainedFailure } from '../lib/extension-install';
import { createListStore } from './list-store';
import type { ToastStore } from './toasts';

/** The registry's events: any of them reads the list again. */
const LIST_EVENTS: readonly EventName[] = [
  'EXTENSION_INSTALLED',
  'EXTENSION_REMOVED',
  'EXTENSION_ENABLED',
  'EXTENSION_DISABLED',
  'EXTENSION_FAILED',
  'EXTENSION_GRANTED',
];

/**
 * SAFE_MODE_EVENT is EXTENSION_SAFE_MODE { active, atStart }. It is read
 * from api.events.types (the host's registry) with its registry value as
 * the fallback, as lib/events does for the names the window knows.
 */
const SAFE_MODE_EVENT = { name: 'EXTENSION_SAFE_MODE', value: 'extension_safe_mode' } as const;

/** A call that could not be made, and what it was ("Could not turn it on"). */
export interface ActionFailure extends ExplainedFailure {
  action: string;
}

/** What install came to: the new entry, or why it was refused. */
export type InstallOutcome = { entry: ExtensionEntry } | { failure: ExplainedFailure };

/** What asking for a compatibility report came to: the report, or why there is none. */
export type ReportOutcome = { report: ExtensionCompatReport } | { failure: ExplainedFailure };

export interface ExtensionStore {
  /** list is every installed extension in load order. */
  list: Readable<ExtensionEntry[]>;
  loading: Readable<boolean>;
  /** safeMode is null where the host has no safe mode (or it could not be read). */
  safeMode: Readable<ExtensionSafeMode | null>;
  /** pending says what is under way for an extension, by id ("enable", "revoke:chat.read", "update", "remove"). */
  pending: Readable<Readonly<Record<string, string>>>;
  /** failures holds the last refused call about an extension, by id, until another call about it works. */
  failures: Readable<Readonly<Record<string, ActionFailure>>>;
  /** load reads the list and safe mode. */
  load(): Promise<void>;
  /** install installs a package, off (the manager asks before turning it on); name is what the manager calls it ("mood.zip"). */
  install(source: ExtensionSource, name?: string): Promise<InstallOutcome>;
  setEnabled(id: string, on: boolean): Promise<boolean>;
  grant(id: string, permission: ExtensionPermission): Promise<boolean>;
  revoke(id: string, permission: ExtensionPermission): Promise<boolean>;
  /** update installs id again from its folder or URL. */
  update(id: string): Promise<boolean>;
  /** remove uninstalls id (clean: its storage too); the failure, or null when it worked. */
  remove(id: string, clean: boolean): Promise<ExplainedFailure | null>;
  /** setSafeMode turns safe mode on or off now (active) or for later starts (atStart); the failure, or null when it worked. */
  setSafeMode(opts: { active?: boolean; atStart?: boolean }): Promise<ExplainedFailure | null>;
  /** compatReport reads a page extension's compatibility report (api.extensions.compatReport). */
  compatReport(id: string): Promise<ReportOutcome>;
  /** dismiss forgets the failure shown for id. */
  dismiss(id: string): void;
  /** start follows the extension events; returns the unsubscribe. */
  start(): () => void;
}

export function createExtensionStore(hearth: HearthAbi, toasts: ToastStore): ExtensionStore {
  const api = hearth.api.extensions;
  const safeMode = writable<ExtensionSafeMode | null>(null);
  const pending = writable<Record<string, string>>({});
  const failures = writable<Record<string, ActionFailure>>({});
  const store = createListStore<ExtensionEntry>({
    toasts,
    keyOf: (e) => e.id,
    readFailure: 'Could not list the extensions',
    read: () => api.list(),
  });

  /** A refresh asked for while one runs is run once more after it, so a burst of events reads the list twice at most. */
  let refreshing: Promise<void> | null = null;
  let again = false;
  function refreshSoon(): Promise<void> {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        await store.refresh();
      } while (again);
      refreshing = null;
    })();
    return refreshing;
  }

  /** readSafeMode asks the host; a host without safe mode (host.unknown_method) leaves it null, quietly. */
  async function readSafeMode(): Promise<void> {
    try {
      safeMode.set(await api.safeMode());
    } catch (err) {
      safeMode.set(null);
      if (describeError(err).code !== 'host.unknown_method') toasts.error(err, 'Could not read safe mode');
    }
  }

  function without<T>(map: Record<string, T>, id: string): Record<string, T> {
    if (!(id in map)) return map;
    const next = { ...map };
    delete next[id];
    return next;
  }

  /**
   * act runs a call about one extension: what is under way shows in
   * pending, the entry it answers replaces the listed one, and a refusal
   * is kept in failures under action.
   */
  async function act(id: string, what: string, action: string, call: () => Promise<ExtensionEntry | void>): Promise<boolean> {
    if (get(pending)[id]) return false;
    pending.update((p) => ({ ...p, [id]: what }));
    try {
      const entry = await call();
      if (entry) store.put(entry);
      failures.update((f) => without(f, id));
      return true;
    } catch (err) {
      failures.update((f) => ({ ...f, [id]: { ...failureSentence(err), action } }));
      return false;
    } finally {
      pending.update((p) => without(p, id));
      // Another extension's status may follow from this one's (a dependency).
      void refreshSoon();
    }
  }

  return {
    list: store.list,
    loading: store.loading,
    safeMode: { subscribe: safeMode.subscribe },
    pending: { subscribe: pending.subscribe },
    failures: { subscribe: failures.subscribe },
    async load() {
      await store.whileLoading(Promise.all([store.refresh(), readSafeMode()]));
    },
    async install(source, name = '') {
      try {
        const entry = await api.install(source, { enable: false });
        store.put(entry);
        void refreshSoon();
        return { entry };
      } catch (err) {
        return { failure: failureSentence(err, name) };
      }
    },
    setEnabled: (id, on) => act(id, on ? 'enable' : 'disable', on ? 'Could not turn it on' : 'Could not turn it off', () => (on ? api.enable(id) : api.disable(id))),
    grant: (id, p) => act(id, `grant:${p}`, 'Could not grant the permission', () => api.grant(id, [p])),
    revoke: (id, p) => act(id, `revoke:${p}`, 'Could not revoke the permission', () => api.revoke(id, [p])),
    update: (id) => act(id, 'update', 'Could not update it', () => api.update(id)),
    async remove(id, clean) {
      pending.update((p) => ({ ...p, [id]: 'remove' }));
      try {
        await api.remove(id, { clean });
        store.drop(id);
        failures.update((f) => without(f, id));
        return null;
      } catch (err) {
        return failureSentence(err);
      } finally {
        pending.update((p) => without(p, id));
        void refreshSoon();
      }
    },
    async setSafeMode(opts) {
      try {
        const next = await api.setSafeMode(opts);
        safeMode.set(next);
        await refreshSoon();
        return null;
      } catch (err) {
        return failureSentence(err);
      }
    },
    async compatReport(id) {
      try {
        const report = await api.compatReport(id);
        // One installed before reports existed was scanned just now: its card shows the verdict too.
        if (get(store.list).some((e) => e.id === id && e.mode === 'page' && !e.compat)) void refreshSoon();
        return { report };
      } catch (err) {
        return { failure: failureSentence(err) };
      }
    },
    dismiss(id) {
      failures.update((f) => without(f, id));
    },
    start() {
      const offs = LIST_EVENTS.map((name) => hearth.api.events.on(eventType(hearth, name), () => void refreshSoon()));
      const safeType = hearth.api.events.types[SAFE_MODE_EVENT.name] ?? SAFE_MODE_EVENT.value;
      offs.push(
        hearth.api.events.on(safeType, (payload) => {
          const cur = get(safeMode);
          const active = typeof payload.active === 'boolean' ? payload.active : (cur?.active ?? false);
          const atStart = typeof payload.atStart === 'boolean' ? payload.atStart : (cur?.atStart ?? false);
          safeMode.set({ active, atStart, flag: cur?.flag ?? false });
          void refreshSoon();
        }),
      );
      return () => offs.forEach((off) => off());
    },
  };
}

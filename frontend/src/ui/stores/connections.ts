// Model connections for the settings dialog: the list, the active one, and
// the calls behind its buttons. Failures become toasts; a test's outcome is
// returned for the dialog to show beside the connection.
import { writable, type Readable } from 'svelte/store';
import type { Connection, ConnectionInput, ConnectionProbe, ConnectionTest, HearthAbi } from '../../abi/types';
import { createListStore } from './list-store';
import type { ToastAction, ToastStore } from './toasts';

/** FIXED_IN_CONNECTIONS lists the failures a person fixes in the Connections dialog. */
const FIXED_IN_CONNECTIONS = new Set(['generate.no_connection', 'agent.no_connection', 'agent.chat_completion_required', 'model.auth_failed', 'model.unreachable']);

/**
 * connectionsAction is the toast button that opens Connections, for a failure fixed there; undefined for any other (or with no way to open it).
 * An agent run's failed model request is model.request_failed with the provider's code in details.cause, so for that code the cause decides;
 * a generation's model.request_failed (a refused request) has no cause and gets no button.
 */
export function connectionsAction(code: string, open: (() => void) | undefined, details?: Readonly<Record<string, unknown>> | null): ToastAction | undefined {
  const cause = code === 'model.request_failed' && typeof details?.cause === 'string' ? details.cause : code;
  return open && FIXED_IN_CONNECTIONS.has(cause) ? { label: 'Open Connections', run: open } : undefined;
}

export interface ConnectionStore {
  list: Readable<Connection[]>;
  /** activeId is the id of the active connection, or null. */
  activeId: Readable<string | null>;
  loading: Readable<boolean>;
  /** load reads the list and the active connection. */
  load(): Promise<void>;
  /** save creates or updates a connection; null when it failed (a toast says why). */
  save(input: ConnectionInput): Promise<Connection | null>;
  remove(id: string): Promise<boolean>;
  /** select makes id the active connection (null: none). */
  select(id: string | null): Promise<boolean>;
  /** test checks a connection; a call that could not be made is reported as a failed test. */
  test(id: string): Promise<ConnectionTest>;
  /** models lists the server's models ([] when that failed; a toast says why). */
  models(id: string): Promise<string[]>;
  /** probe lists the models of settings not saved yet; a call that could not be made is reported as a failed probe. */
  probe(settings: ConnectionInput): Promise<ConnectionProbe>;
  /** dialogOpen is true while the Connections dialog is open; any part of the UI may open it (a toast's "Open Connections"). */
  dialogOpen: Readable<boolean>;
  openDialog(): void;
  closeDialog(): void;
}

/** failure is a rejected call as a test's error. */
function failure(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown } | null;
  return { code: typeof e?.code === 'string' ? e.code : 'internal', message: String(e?.message ?? err) };
}

/** byName orders connections by name, in any case. */
function byName(list: Connection[]): Connection[] {
  return [...list].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
}

export function createConnectionStore(hearth: HearthAbi, toasts: ToastStore): ConnectionStore {
  const activeId = writable<string | null>(null);
  const dialogOpen = writable(false);
  const api = hearth.api.connections;
  const store = createListStore<Connection>({
    toasts,
    keyOf: (c) => c.id,
    sort: byName,
    readFailure: 'Could not load the connections',
    async read() {
      const [all, active] = await Promise.all([api.list(), api.active()]);
      activeId.set(active?.id ?? null);
      return all;
    },
  });

  return {
    list: store.list,
    activeId,
    loading: store.loading,
    load: store.load,
    dialogOpen,
    openDialog: () => dialogOpen.set(true),
    closeDialog: () => dialogOpen.set(false),
    save: (input) =>
      store.attempt('Could not save the connection', async () => {
        const saved = await api.save(input);
        store.put(saved);
        return saved;
      }),
    remove: (id) =>
      store.succeeds('Could not delete the connection', async () => {
        await api.delete(id);
        store.drop(id);
        activeId.update((cur) => (cur === id ? null : cur));
      }),
    select: (id) =>
      store.succeeds('Could not switch the connection', async () => {
        const active = await api.select(id);
        activeId.set(active?.id ?? null);
      }),
    async test(id) {
      try {
        return await api.test(id);
      } catch (err) {
        return { ok: false, error: failure(err) };
      }
    },
    async probe(settings) {
      try {
        return await api.probe(settings);
      } catch (err) {
        return { ok: false, models: [], error: failure(err) };
      }
    },
    models: async (id) => (await store.attempt('Could not list the models', () => api.models(id))) ?? [],
  };
}

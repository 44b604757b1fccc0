// Agent profiles for the profile editor: the usable ones and the stored
// ones that no longer parse (with their issues), and the calls behind the
// editor's buttons. Reads and deletes report failures as toasts; save
// returns its error, for the editor to show beside the field it names.
import { writable, type Readable } from 'svelte/store';
import type { AgentProfileDefinition, AgentProfileIssue, AgentProfileSummary, HearthAbi } from '../../abi/types';
import { agentErrorText } from '../lib/agent-text';
import { describeError } from '../lib/errors';
import type { ProfileDoc } from '../lib/agent-profile-edit';
import { errorField } from '../lib/agent-profile-edit';
import { eventType } from '../lib/events';
import { createListStore } from './list-store';
import type { ToastStore } from './toasts';

/** SaveError is why a save failed: the field the backend named and every issue it listed. */
export interface SaveError {
  code: string;
  message: string;
  field: string | null;
  issues: AgentProfileIssue[];
}

export interface ProfileStore {
  list: Readable<AgentProfileSummary[]>;
  /** broken are stored profiles that no longer parse, with what is wrong with each. */
  broken: Readable<{ id: string; issues: AgentProfileIssue[] }[]>;
  loading: Readable<boolean>;
  load(): Promise<void>;
  /** get reads a profile document (null when it failed; a toast says why). */
  get(id: string): Promise<ProfileDoc | null>;
  /** save stores a document; null on success, else the error. */
  save(doc: ProfileDoc): Promise<SaveError | null>;
  remove(id: string): Promise<boolean>;
  diagnose(id: string): Promise<{ ok: boolean; issues: AgentProfileIssue[] } | null>;
  /** start re-reads the list on AGENT_PROFILES_CHANGED; returns the stop. */
  start(): () => void;
}

function issuesOf(err: unknown): AgentProfileIssue[] {
  const raw = (err as { details?: { issues?: unknown } } | null)?.details?.issues;
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null)
    .map((i) => ({ field: String(i.field ?? ''), code: String(i.code ?? ''), message: String(i.message ?? '') }));
}

export function createProfileStore(hearth: HearthAbi, toasts: ToastStore): ProfileStore {
  const api = hearth.api.agent.profiles;
  const broken = writable<{ id: string; issues: AgentProfileIssue[] }[]>([]);
  const store = createListStore<AgentProfileSummary>({
    toasts,
    keyOf: (p) => p.id,
    shown: agentErrorText,
    readFailure: 'Could not load the agent profiles',
    async read() {
      const res = await api.list();
      broken.set(res.issues ?? []);
      return res.profiles;
    },
  });
  const { load } = store;

  return {
    list: store.list,
    broken,
    loading: store.loading,
    load,
    async get(id) {
      const res = await store.attempt('Could not open the profile', () => api.load(id));
      if (res && !res.profile) toasts.error({ code: 'agent.profile_not_found', message: `There is no profile “${id}”.` }, 'Could not open the profile');
      return (res?.profile as ProfileDoc | undefined) ?? null;
    },
    async save(doc) {
      try {
        await api.save(doc as AgentProfileDefinition);
        await load();
        return null;
      } catch (err) {
        const e = describeError(err);
        return { code: e.code, message: e.message, field: errorField(err), issues: issuesOf(err) };
      }
    },
    remove: (id) =>
      store.succeeds('Could not delete the profile', async () => {
        await api.delete(id);
        await load();
      }),
    diagnose: (id) => store.attempt('Could not check the profile', () => api.diagnose(id)),
    start() {
      return hearth.api.events.on(eventType(hearth, 'AGENT_PROFILES_CHANGED'), () => void load());
    },
  };
}

// Agent runs in the open chat, through the public ABI (api.agent and the
// AGENT_RUN_EVENT bus event): "Send with agent" and the profile it uses,
// the chat's runs newest first (new ones appear live), the run the panel
// shows — subscribed from seq 0 and folded into a RunView (agent-run.ts) —
// and the actions on it (cancel, approve or deny a call).
import { getContext, setContext } from 'svelte';
import { derived, get, writable, type Readable } from 'svelte/store';
import type { AgentProfileSummary, AgentRunEvent, AgentRunSummary, HearthAbi, MediaRef } from '../../abi/types';
import { agentErrorText } from '../lib/agent-text';
import { eventType } from '../lib/events';
import { emptyRun, foldEvent, foldEvents, isActive, statusAfter, TERMINAL, type RunView } from './agent-run';
import type { ChatViewStore } from './chat';
import { connectionsAction } from './connections';
import { fixAction } from './no-reply';
import type { ToastAction, ToastStore } from './toasts';

/** DEFAULT_PROFILE is the built-in profile every Hearth has. */
export const DEFAULT_PROFILE = 'default-writer';
/** The localStorage keys of the UI's agent preferences. */
export const PROFILE_KEY = 'hearth.agent.profile';
export const PANEL_KEY = 'hearth.agent.panel';
/** How many runs of a chat the list shows. */
const RUNS_LIMIT = 50;

export interface AgentStore {
  profiles: Readable<AgentProfileSummary[]>;
  /** profileId is the profile "Send with agent" uses (the last one chosen). */
  profileId: Readable<string>;
  chooseProfile(id: string): void;
  loadProfiles(): Promise<void>;
  /** panelOpen: the run panel is shown. */
  panelOpen: Readable<boolean>;
  setPanel(open: boolean): void;
  /** runs are the open chat's runs, newest first. */
  runs: Readable<AgentRunSummary[]>;
  selectedId: Readable<string | null>;
  /** run is the selected run as its events tell it (null: none selected, or the panel is closed). */
  run: Readable<RunView | null>;
  /**
   * failureAction is the button under the selected run's failure that leads to its fix, as a toast of the same failure
   * would offer it ("Open Connections" for a refused key, by run_failed's details.cause); null for any other run.
   */
  failureAction: Readable<ToastAction | null>;
  /** active is a run of the open chat that has not ended (the newest one). */
  active: Readable<AgentRunSummary | null>;
  starting: Readable<boolean>;
  /**
   * sendWithAgent adds the user's message (when there is text) as the
   * composer's send does, then starts a run of the chosen profile. False
   * when nothing was sent (the composer keeps the text).
   */
  sendWithAgent(text: string, attachments?: readonly MediaRef[]): Promise<boolean>;
  select(runId: string | null): void;
  cancel(): Promise<void>;
  /** answer approves or denies the call awaiting approval. */
  answer(callId: string, decision: 'approve' | 'deny', reason?: string): Promise<boolean>;
  /** start follows the bus and the open chat; returns the stop. */
  start(): () => void;
}

export interface AgentDeps {
  hearth: HearthAbi;
  toasts: ToastStore;
  chat: Pick<ChatViewStore, 'view' | 'send'>;
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** rememberPanel: restore the panel's last open state (false on phones, where it is a full-screen sheet). */
  rememberPanel?: boolean;
  /** openConnections opens the Connections dialog, from the toast of a failure fixed there. */
  openConnections?: () => void;
}

function read(storage: AgentDeps['storage'], key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(storage: AgentDeps['storage'], key: string, value: string): void {
  try {
    storage?.setItem(key, value);
  } catch {
    // storage full or refused: the choice lasts until the page closes
  }
}

function envelope(p: unknown): AgentRunEvent | null {
  const e = p as Partial<AgentRunEvent> | null;
  return e && typeof e.runId === 'string' && typeof e.seq === 'number' && typeof e.type === 'string' ? (e as AgentRunEvent) : null;
}

/** failureOf reads run_failed's { code, message, details? } as a run summary keeps it. */
function failureOf(p: Record<string, unknown>): NonNullable<AgentRunSummary['error']> {
  const e: NonNullable<AgentRunSummary['error']> = { code: typeof p.code === 'string' ? p.code : 'internal', message: typeof p.message === 'string' ? p.message : '' };
  if (typeof p.details === 'object' && p.details !== null && !Array.isArray(p.details)) e.details = p.details as Record<string, unknown>;
  return e;
}

export function createAgentStore(deps: AgentDeps): AgentStore {
  const { hearth, toasts, chat, storage } = deps;
  const api = hearth.api.agent;
  const profiles = writable<AgentProfileSummary[]>([]);
  const profileId = writable(read(storage, PROFILE_KEY) ?? DEFAULT_PROFILE);
  const panelOpen = writable(deps.rememberPanel === true && read(storage, PANEL_KEY) === '1');
  const runs = writable<AgentRunSummary[]>([]);
  const selectedId = writable<string | null>(null);
  const run = writable<RunView | null>(null);
  const starting = writable(false);

  const chatId = () => get(chat.view).chatId;
  let unsubscribe: (() => void) | null = null;
  /** subscribed: the selected run's subscription still delivers (it ends after a terminal event). */
  let subscribed = false;
  /** Events folded per microtask, so a replay of many events updates the view once. */
  let queue: AgentRunEvent[] = [];
  let listFor: string | null = null;
  let listSeq = 0;

  function report(err: unknown, context: string): void {
    const t = agentErrorText(err);
    const details = (err as { details?: Record<string, unknown> } | null)?.details;
    toasts.error(t, context, connectionsAction(t.code, deps.openConnections, details));
  }

  function flush(): void {
    const q = queue;
    queue = [];
    const v = get(run);
    if (v && q.length > 0) run.set(foldEvents(v, q.filter((e) => e.runId === v.runId)));
  }

  function take(e: AgentRunEvent): void {
    if (queue.length === 0) queueMicrotask(flush);
    queue.push(e);
  }

  /** catchUp reads the selected run's events after the last folded one (a rollback after the run ended). */
  async function catchUp(runId: string): Promise<void> {
    for (;;) {
      const v = get(run);
      if (!v || v.runId !== runId) return;
      const page = await api.readEvents({ runId, afterSeq: v.lastSeq, limit: 100 });
      const now = get(run);
      if (!now || now.runId !== runId) return;
      run.set(foldEvents(now, page.events));
      if (!page.hasMore || page.events.length === 0) return;
    }
  }

  /** attach shows runId in the run view: subscribed from seq 0 (null: nothing, no subscription). */
  function attach(runId: string | null): void {
    unsubscribe?.();
    unsubscribe = null;
    subscribed = false;
    queue = [];
    // Until its events arrive, the run's status is the list's.
    const listed = runId ? get(runs).find((r) => r.runId === runId) : undefined;
    run.set(runId ? { ...emptyRun(runId), status: listed?.status ?? 'created' } : null);
    if (!runId) return;
    subscribed = true;
    unsubscribe = api.subscribe(
      runId,
      (e) => {
        take(e);
        if (TERMINAL.has(statusAfter(e.type) ?? 'created')) subscribed = false;
      },
      {
        afterSeq: 0,
        onError(err) {
          console.warn(`Hearth: agent run ${runId}`, err);
        },
      },
    );
  }

  /** select picks the run the panel shows; only an open panel subscribes to it. */
  function select(runId: string | null): void {
    const open = get(panelOpen);
    if (runId === get(selectedId) && (runId === null || !open || get(run)?.runId === runId)) return;
    selectedId.set(runId);
    attach(open ? runId : null);
  }

  /** upsert puts a run summary into the list (newest first). */
  function upsert(s: AgentRunSummary): void {
    runs.update((all) => [s, ...all.filter((r) => r.runId !== s.runId)].sort((a, b) => b.createdMs - a.createdMs).slice(0, RUNS_LIMIT));
  }

  async function loadRuns(c: string | null): Promise<void> {
    const mine = ++listSeq;
    listFor = c;
    runs.set([]);
    select(null);
    if (!c) return;
    try {
      const res = await api.listRuns({ chatId: c, limit: RUNS_LIMIT });
      if (mine !== listSeq) return;
      runs.set([...res.runs].sort((a, b) => b.createdMs - a.createdMs));
      if (get(selectedId) === null && res.runs[0]) select(get(runs)[0]?.runId ?? null);
    } catch (err) {
      if (mine === listSeq) console.warn('Hearth: could not list the agent runs', err);
    }
  }

  async function learnRun(runId: string): Promise<void> {
    try {
      const s = await api.getRun(runId);
      if (s.chatId !== listFor) return;
      upsert(s);
      // A new run takes over the panel unless the one shown still works.
      const shown = get(run);
      if (!shown || !isActive(shown.status) || shown.runId === runId) select(runId);
    } catch (err) {
      console.warn('Hearth: could not read the agent run', err);
    }
  }

  /** onBus keeps the runs list (and an ended run's view, for rollbacks) in step with every run's events. */
  function onBus(payload: unknown): void {
    const e = envelope(payload);
    if (!e) return;
    const p = (e.payload ?? {}) as Record<string, unknown>;
    if (e.type === 'run_created') {
      if (p.chatId === listFor && listFor !== null && !get(runs).some((r) => r.runId === e.runId)) void learnRun(e.runId);
      return;
    }
    const status = statusAfter(e.type);
    // A failure's words come with its event, as getRun would tell them (the chat's "no reply" notice reads them).
    const error = e.type === 'run_failed' ? failureOf(p) : null;
    runs.update((all) => {
      const at = all.findIndex((r) => r.runId === e.runId);
      const r = all[at];
      if (!r || r.lastSeq >= e.seq) return all;
      const next = all.slice();
      next[at] = { ...r, lastSeq: e.seq, status: status ?? r.status, updatedMs: Date.parse(e.timestamp) || r.updatedMs, ...(error ? { error } : {}) };
      return next;
    });
    const v = get(run);
    if (v && v.runId === e.runId && !subscribed) {
      if (e.seq === v.lastSeq + 1) run.set(foldEvent(v, e));
      else if (e.seq > v.lastSeq) void catchUp(e.runId).catch((err: unknown) => console.warn('Hearth: could not read the run events', err));
    }
  }

  /** setPanel opens or closes the panel; closing ends the run view's subscription, opening starts it again from seq 0. */
  function setPanel(open: boolean): void {
    if (deps.rememberPanel) write(storage, PANEL_KEY, open ? '1' : '0');
    if (open === get(panelOpen)) return;
    panelOpen.set(open);
    attach(open ? get(selectedId) : null);
  }

  const failureAction = derived(run, (v) => (v?.error ? fixAction(v.error.code, deps.openConnections, v.error.details) : null));

  async function loadProfiles(): Promise<void> {
    try {
      const res = await api.profiles.list();
      profiles.set(res.profiles);
      if (!res.profiles.some((p) => p.id === get(profileId))) profileId.set(DEFAULT_PROFILE);
    } catch (err) {
      console.warn('Hearth: could not list the agent profiles', err);
    }
  }

  return {
    profiles,
    profileId,
    chooseProfile(id) {
      profileId.set(id);
      write(storage, PROFILE_KEY, id);
    },
    loadProfiles,
    panelOpen,
    setPanel,
    runs,
    selectedId,
    run,
    failureAction,
    active: derived(runs, (all) => all.find((r) => isActive(r.status)) ?? null),
    starting,
    async sendWithAgent(text, attachments = []) {
      const c = chatId();
      if (!c || get(starting)) return false;
      const hasText = text.trim() !== '' || attachments.length > 0;
      if (hasText && !(await chat.send(text, attachments))) return false;
      starting.set(true);
      try {
        const h = await api.startRunFromLegacyGenerate({ chatId: c, profileId: get(profileId), options: { stream: true, presentation: 'foreground' } });
        if (chatId() === c) {
          await learnRun(h.runId);
          if (get(selectedId) !== h.runId) select(h.runId);
          setPanel(true);
        }
        return true;
      } catch (err) {
        report(err, 'Could not start the agent');
        return hasText; // a sent message stays sent
      } finally {
        starting.set(false);
      }
    },
    select,
    async cancel() {
      const id = get(selectedId);
      if (!id) return;
      try {
        await api.cancel(id);
      } catch (err) {
        report(err, 'Could not cancel the run');
      }
    },
    async answer(callId, decision, reason) {
      const id = get(selectedId);
      if (!id) return false;
      try {
        await api.approveToolCall({ runId: id, callId, decision, ...(reason ? { reason } : {}) });
        return true;
      } catch (err) {
        report(err, decision === 'approve' ? 'Could not approve the call' : 'Could not deny the call');
        return false;
      }
    },
    start() {
      const offs = [
        hearth.api.events.on(eventType(hearth, 'AGENT_RUN_EVENT'), onBus),
        hearth.api.events.on(eventType(hearth, 'AGENT_PROFILES_CHANGED'), () => void loadProfiles()),
      ];
      let shown: string | null | undefined;
      const offView = chat.view.subscribe((v) => {
        if (v.chatId === shown) return;
        shown = v.chatId;
        void loadRuns(v.chatId);
      });
      void loadProfiles();
      return () => {
        offs.forEach((off) => off());
        offView();
        unsubscribe?.();
        unsubscribe = null;
      };
    },
  };
}

const KEY = Symbol('hearth.agent');

/** setAgent hands the store to the chat view's components. */
export function setAgent(store: AgentStore): void {
  setContext(KEY, store);
}

/** getAgent is the store ChatView set. */
export function getAgent(): AgentStore {
  const store = getContext<AgentStore | undefined>(KEY);
  if (!store) throw new Error('getAgent() outside the chat view');
  return store;
}

// The selected run's workspace for the run panel: its files (refreshed,
// debounced, on WORKSPACE_FILE_CHANGED and on the run's write, checkpoint
// and rollback events), the file open in the viewer (now, or as a checkpoint
// recorded it), the checkpoints, a diff between two of them, and rollback.
import { get, writable, type Readable } from 'svelte/store';
import type { AgentCheckpoint, AgentFileDiff, AgentRunEventPayload, AgentWorkspaceFileInfo, HearthAbi, WorkspaceFileChangedPayload } from '../../abi/types';
import { agentErrorText } from '../lib/agent-text';
import { describeError } from '../lib/errors';
import { eventType } from '../lib/events';
import type { ToastStore } from './toasts';

/** How long a burst of file events is gathered before the tree is read again. */
export const REFRESH_DEBOUNCE_MS = 100;

/** OpenFile is the file in the viewer. */
export interface OpenFile {
  path: string;
  /** null: the file as it is now. */
  checkpointId: string | null;
  text: string;
  bytes: number;
  loading: boolean;
  error: string | null;
}

/** DiffView is a diff between two checkpoints (from null: the run's first). */
export interface DiffView {
  from: AgentCheckpoint | null;
  to: AgentCheckpoint;
  files: AgentFileDiff[];
  loading: boolean;
  error: string | null;
}

export type RollbackResult = { ok: true } | { ok: false; code: string; message: string };

export interface WorkspaceStore {
  files: Readable<AgentWorkspaceFileInfo[]>;
  filesLoading: Readable<boolean>;
  file: Readable<OpenFile | null>;
  checkpoints: Readable<AgentCheckpoint[]>;
  diff: Readable<DiffView | null>;
  loadFiles(): Promise<void>;
  openFile(path: string, checkpointId?: string | null): Promise<void>;
  closeFile(): void;
  loadCheckpoints(): Promise<void>;
  /** showDiff diffs to against from (null: the run's first checkpoint). */
  showDiff(to: AgentCheckpoint, from: AgentCheckpoint | null): Promise<void>;
  closeDiff(): void;
  rollback(checkpointId: string, includeChat: boolean): Promise<RollbackResult>;
  /** start follows runId and the bus; returns the stop. */
  start(): () => void;
}

export interface WorkspaceDeps {
  hearth: HearthAbi;
  toasts: ToastStore;
  runId: Readable<string | null>;
  debounceMs?: number;
}

export function createWorkspaceStore(deps: WorkspaceDeps): WorkspaceStore {
  const { hearth, toasts } = deps;
  const api = hearth.api.agent;
  const debounce = deps.debounceMs ?? REFRESH_DEBOUNCE_MS;
  const files = writable<AgentWorkspaceFileInfo[]>([]);
  const filesLoading = writable(false);
  const file = writable<OpenFile | null>(null);
  const checkpoints = writable<AgentCheckpoint[]>([]);
  const diff = writable<DiffView | null>(null);

  let runId: string | null = null;
  /** What has been read for runId, so only that is read again on changes. */
  let filesRead = false;
  let checkpointsRead = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let fileSeq = 0;
  let diffSeq = 0;

  function reset(id: string | null): void {
    runId = id;
    filesRead = false;
    checkpointsRead = false;
    files.set([]);
    file.set(null);
    checkpoints.set([]);
    diff.set(null);
    if (timer) clearTimeout(timer);
    timer = null;
  }

  async function loadFiles(): Promise<void> {
    const id = runId;
    if (!id) return;
    filesRead = true;
    filesLoading.set(true);
    try {
      const res = await api.listWorkspaceFiles({ runId: id, depth: 4 });
      if (id === runId) files.set(res.files);
    } catch (err) {
      if (id === runId) toasts.error(agentErrorText(err), 'Could not list the workspace');
    } finally {
      if (id === runId) filesLoading.set(false);
    }
  }

  async function openFile(path: string, checkpointId: string | null = null): Promise<void> {
    const id = runId;
    if (!id) return;
    const mine = ++fileSeq;
    file.update((f) => ({ path, checkpointId, text: f?.path === path ? f.text : '', bytes: f?.path === path ? f.bytes : 0, loading: true, error: null }));
    try {
      const res = await api.readWorkspaceFile({ runId: id, path, ...(checkpointId ? { checkpointId } : {}) });
      if (mine === fileSeq) file.set({ path, checkpointId, text: res.text, bytes: res.bytes, loading: false, error: null });
    } catch (err) {
      if (mine === fileSeq) file.set({ path, checkpointId, text: '', bytes: 0, loading: false, error: agentErrorText(err).message || describeError(err).message });
    }
  }

  async function loadCheckpoints(): Promise<void> {
    const id = runId;
    if (!id) return;
    checkpointsRead = true;
    try {
      const res = await api.listCheckpoints(id);
      if (id === runId) checkpoints.set(res.checkpoints);
    } catch (err) {
      if (id === runId) toasts.error(agentErrorText(err), 'Could not list the checkpoints');
    }
  }

  /** changed schedules what was read for the run to be read again. */
  function changed(path: string | null): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (filesRead) void loadFiles();
      const f = get(file);
      if (f && f.checkpointId === null && (path === null || path === f.path)) void openFile(f.path);
    }, debounce);
  }

  function onRunEvent(payload: unknown): void {
    const e = payload as Partial<AgentRunEventPayload> | null;
    if (!e || e.runId !== runId || runId === null) return;
    if (e.type === 'checkpoint_created' || e.type === 'rollback_completed') {
      if (checkpointsRead) void loadCheckpoints();
      // After a rollback no watcher may be left to report the files it restored.
      if (e.type === 'rollback_completed') changed(null);
    }
    // The run's own writes, in case their file event is coalesced away or comes after the watcher stopped.
    if (e.type === 'workspace_file_written' || e.type === 'workspace_patch_applied') {
      const p = (e.payload as { path?: unknown } | null | undefined)?.path;
      changed(typeof p === 'string' ? p : null);
    }
  }

  function onFileChanged(payload: unknown): void {
    const p = payload as Partial<WorkspaceFileChangedPayload> | null;
    if (!p || p.runId !== runId || runId === null) return;
    changed(typeof p.path === 'string' ? p.path : null);
  }

  return {
    files,
    filesLoading,
    file,
    checkpoints,
    diff,
    loadFiles,
    openFile,
    closeFile() {
      fileSeq++;
      file.set(null);
    },
    loadCheckpoints,
    async showDiff(to, from) {
      const id = runId;
      if (!id) return;
      const mine = ++diffSeq;
      diff.set({ from, to, files: [], loading: true, error: null });
      try {
        const res = await api.readDiff({ runId: id, toCheckpointId: to.checkpointId, ...(from ? { fromCheckpointId: from.checkpointId } : {}) });
        if (mine === diffSeq) diff.set({ from, to, files: res.files, loading: false, error: null });
      } catch (err) {
        if (mine === diffSeq) diff.set({ from, to, files: [], loading: false, error: agentErrorText(err).message });
      }
    },
    closeDiff() {
      diffSeq++;
      diff.set(null);
    },
    async rollback(checkpointId, includeChat) {
      const id = runId;
      if (!id) return { ok: false, code: 'agent.run_not_found', message: 'No run is selected.' };
      try {
        await api.rollback({ runId: id, checkpointId, includeChat });
        toasts.info(includeChat ? 'Rolled back the workspace and took the reply back out of the chat' : 'Rolled back the workspace');
        return { ok: true };
      } catch (err) {
        return { ok: false, ...agentErrorText(err) };
      }
    },
    start() {
      const offs = [
        hearth.api.events.on(eventType(hearth, 'AGENT_RUN_EVENT'), onRunEvent),
        hearth.api.events.on(eventType(hearth, 'WORKSPACE_FILE_CHANGED'), onFileChanged),
        deps.runId.subscribe((id) => {
          if (id !== runId) reset(id);
        }),
      ];
      return () => {
        offs.forEach((off) => off());
        if (timer) clearTimeout(timer);
      };
    },
  };
}

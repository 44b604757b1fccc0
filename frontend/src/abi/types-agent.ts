// The agent half of the public shape (AGENT.md, HOST-ABI §7): api.agent
// keeps the seed's (TauriTavern's) method names and shapes, and adds what
// Hearth implements beyond it. types.ts re-exports all of it.
import type { AgentRunEventPayload } from './event-registry.gen';

/** A run's status (AGENT.md §4); the last four are terminal. */
export type AgentRunStatus =
  | 'created'
  | 'initializing_workspace'
  | 'assembling_context'
  | 'calling_model'
  | 'dispatching_tool'
  | 'awaiting_approval'
  | 'committing'
  | 'completed'
  | 'cancelled'
  | 'failed'
  | 'interrupted';

/** Whether a run's reply is the chat's next message (foreground) or only workspace files (background). */
export type AgentPresentation = 'foreground' | 'background';

/** The chat a run is for: its chatId, { chatId }, or any Hearth ChatRef (resolved with chat.resolve). */
export type AgentChatRef = string | { chatId: string } | { avatar: string; fileName: string } | { groupId: string; fileName: string };

/** What starting, cancelling or rolling back a run resolves. */
export interface AgentRunHandle {
  runId: string;
  status: AgentRunStatus;
  workspaceId: string;
  /** The Hearth chatId (it never changes on rename). */
  stableChatId: string;
}

/** The start options; presentation may also be given at the top level. */
export interface AgentStartOptions {
  presentation?: AgentPresentation;
  /** true streams the model's output as model_delta events (the seed rejected it). */
  stream?: boolean;
}

/** The fields both start methods share. Without chatId, stableChatId or chatRef the run is for this window's chat. */
export interface AgentStartInput {
  /** Hearth's addition: the chat, by id. */
  chatId?: string;
  chatRef?: AgentChatRef;
  stableChatId?: string;
  generationType?: string;
  profileId?: string | null;
  generationIntent?: unknown;
  presentation?: AgentPresentation;
  options?: AgentStartOptions;
}

/** startRunFromLegacyGenerate's input: the prompt is generate.dryRun's for the chat. */
export interface AgentStartRunFromLegacyGenerateInput extends AgentStartInput {
  /** Options of the dry run (this window's extension prompts are added, as api.generate does). */
  generateOptions?: Record<string, unknown>;
}

/** One lorebook entry activated for a prompt snapshot. */
export interface AgentWorldInfoEntry {
  world: string;
  uid: string | number;
  displayName: string;
  constant: boolean;
  content: string;
  position?: string;
}

/** The prompt a run starts from: a chat-completion body and the lorebook entries activated for it. */
export interface AgentPromptSnapshot {
  chatCompletionPayload: unknown;
  worldInfoActivation?: {
    timestampMs: number;
    trigger: string;
    entries: AgentWorldInfoEntry[];
  };
}

/** startRunWithPromptSnapshot's input. */
export interface AgentStartRunWithPromptSnapshotInput extends AgentStartInput {
  promptSnapshot: AgentPromptSnapshot;
}

/**
 * One stored event of a run (AGENT.md §8), as readEvents returns it and
 * AGENT_RUN_EVENT carries it: `seq` counts from 1 per run, without gaps;
 * `id` is runId + ':' + seq; `timestamp` RFC 3339, UTC, milliseconds;
 * `type` 'run_created', 'model_delta', 'checkpoint_created', … (the list
 * grows: match the ones you need).
 */
export type AgentRunEvent = AgentRunEventPayload;

/**
 * subscribe's options. limit and intervalMs are the seed's polling knobs,
 * accepted and ignored: Hearth pushes events.
 */
export interface AgentSubscribeOptions {
  /** Deliver the events after this seq (default 0: all of them). */
  afterSeq?: number;
  /** Read failures and handler exceptions (default: console.error). */
  onError?: (error: unknown) => void;
  limit?: number;
  intervalMs?: number;
}

export interface AgentReadEventsInput {
  runId: string;
  afterSeq?: number;
  beforeSeq?: number;
  limit?: number;
}

export interface AgentReadEventsResult {
  events: AgentRunEvent[];
  /** More events follow the last one returned (read again from its seq). */
  hasMore: boolean;
}

export interface AgentReadWorkspaceFileInput {
  runId: string;
  /** Workspace-relative, '/'-separated ("output/main.md"). */
  path: string;
  /** Read the file as it was at a checkpoint. */
  checkpointId?: string;
}

export interface AgentWorkspaceFile {
  path: string;
  text: string;
  bytes: number;
  sha256: string;
}

export interface AgentListWorkspaceFilesInput {
  runId: string;
  path?: string;
  depth?: number;
}

export interface AgentWorkspaceFileInfo {
  path: string;
  bytes: number;
  sha256: string;
  modifiedMs: number;
}

export interface AgentListWorkspaceFilesResult {
  files: AgentWorkspaceFileInfo[];
  truncated: boolean;
}

export interface AgentListRunsInput {
  chatId?: string;
  status?: AgentRunStatus;
  limit?: number;
  /** Page back: runs created before this unix ms. */
  beforeCreatedMs?: number;
}

/** A run as listRuns and getRun report it. */
export interface AgentRunSummary {
  runId: string;
  status: AgentRunStatus;
  workspaceId: string;
  stableChatId: string;
  chatId: string;
  profileId: string | null;
  generationType: string;
  presentation: AgentPresentation;
  createdMs: number;
  updatedMs: number;
  endedMs: number | null;
  /** A failed or interrupted run's error. */
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  rounds: number;
  calls: number;
  usage: { inputTokens: number; outputTokens: number };
  /** The seq of the run's newest event. */
  lastSeq: number;
  /** pending is the call awaiting approval, or null. */
  pending: { callId: string; tool: string; args: unknown } | null;
}

/** A recorded state of a run's workspace. */
export interface AgentCheckpoint {
  checkpointId: string;
  /** Counts the run's checkpoints from 1. */
  seq: number;
  reason: string;
  /** The paths changed since the previous checkpoint. */
  files: string[];
  createdMs: number;
}

export interface AgentReadDiffInput {
  runId: string;
  /** Default: the run's first checkpoint. */
  fromCheckpointId?: string;
  /** Default: the run's latest checkpoint. */
  toCheckpointId?: string;
  path?: string;
}

export interface AgentFileDiff {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  unified: string;
  /** RFC 6902 operations, for JSON files. */
  jsonPatch?: unknown[];
}

export interface AgentRollbackInput {
  runId: string;
  checkpointId: string;
  /** Also revert the run's chat commits (agent.rollback_conflict when a later edit touched them). */
  includeChat?: boolean;
}

export interface AgentApproveToolCallInput {
  runId: string;
  callId: string;
  decision: 'approve' | 'deny';
  reason?: string;
}

/** A profile document (AGENT.md §9); the seed's AgentProfileDefinition plus Hearth's fields. */
export interface AgentProfileDefinition {
  schemaVersion: 1;
  kind: 'hearth.agentProfile' | 'tauritavern.agentProfile';
  id: string;
  displayName: string;
  description?: string;
  [key: string]: unknown;
}

/** One row of profiles.list. */
export interface AgentProfileSummary {
  id: string;
  displayName: string;
  description?: string;
  /** The built-in default-writer, which cannot be changed or deleted. */
  builtIn: boolean;
  updatedMs: number;
}

/** One thing wrong with a profile: the field (a JSON path), a rule code and a sentence. */
export interface AgentProfileIssue {
  field: string;
  code: string;
  message: string;
}

/** A profile is given by id, or as { profileId } (the seed's form). */
export type AgentProfileIdInput = string | { profileId: string };

export interface AgentProfilesApi {
  /** list resolves the usable profiles, and each stored profile that no longer parses with its issues. */
  list(): Promise<{ profiles: AgentProfileSummary[]; issues: { id: string; issues: AgentProfileIssue[] }[] }>;
  load(input: AgentProfileIdInput): Promise<{ profile: AgentProfileDefinition | null }>;
  save(input: AgentProfileDefinition | { profile: AgentProfileDefinition }): Promise<void>;
  delete(input: AgentProfileIdInput): Promise<void>;
  diagnose(input: AgentProfileIdInput): Promise<{ ok: boolean; issues: AgentProfileIssue[] }>;
}

/** A skill of the library (<data>/skills/<name>/SKILL.md). */
export interface AgentSkill {
  name: string;
  description: string;
  /** path is relative to the library: "<name>/SKILL.md". */
  path: string;
  bytes: number;
}

/** A skill folder that could not be read, and why. */
export interface AgentSkillProblem {
  dir: string;
  message: string;
}

/** install's input: a skill folder's files (as a folder pick yields them) and whether to replace a skill of the same name. */
export interface AgentSkillInstallInput {
  files: { path: string; data: string | Uint8Array | ArrayBuffer | Blob }[];
  replace?: boolean;
}

/** api.agent.skills: the library agent runs read with skill.list / skill.search / skill.read. */
export interface AgentSkillsApi {
  list(): Promise<{ skills: AgentSkill[]; problems: AgentSkillProblem[] }>;
  /** read resolves a skill's SKILL.md body. */
  read(name: string): Promise<{ name: string; text: string; startChar: number; totalChars: number; truncated: boolean }>;
  install(input: AgentSkillInstallInput): Promise<AgentSkill>;
}

/** api.agent (AGENT.md §3). */
export interface AgentApi {
  startRunFromLegacyGenerate(input?: AgentStartRunFromLegacyGenerateInput): Promise<AgentRunHandle>;
  startRunWithPromptSnapshot(input: AgentStartRunWithPromptSnapshotInput): Promise<AgentRunHandle>;
  /**
   * sync: delivers the run's events after options.afterSeq, each once, in
   * seq order, without gaps — stored ones first, then live ones — until a
   * terminal event (run_completed, run_cancelled, run_failed,
   * run_interrupted) or the returned (idempotent) unsubscribe.
   */
  subscribe(runId: string, handler: (event: AgentRunEvent) => void, options?: AgentSubscribeOptions): () => void;
  cancel(runId: string): Promise<AgentRunHandle>;
  readEvents(input: AgentReadEventsInput): Promise<AgentReadEventsResult>;
  readWorkspaceFile(input: AgentReadWorkspaceFileInput): Promise<AgentWorkspaceFile>;
  listWorkspaceFiles(input: AgentListWorkspaceFilesInput): Promise<AgentListWorkspaceFilesResult>;
  listRuns(input?: AgentListRunsInput): Promise<{ runs: AgentRunSummary[] }>;
  getRun(runId: string): Promise<AgentRunSummary>;
  listCheckpoints(runId: string): Promise<{ checkpoints: AgentCheckpoint[] }>;
  readDiff(input: AgentReadDiffInput): Promise<{ files: AgentFileDiff[] }>;
  rollback(input: AgentRollbackInput): Promise<AgentRunHandle>;
  approveToolCall(input: AgentApproveToolCallInput): Promise<void>;
  readonly profiles: AgentProfilesApi;
  readonly skills: AgentSkillsApi;
}

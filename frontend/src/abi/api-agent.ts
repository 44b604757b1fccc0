// api.agent: the agent.* host methods (AGENT.md §3, HOST-ABI §7) with the
// seed's (TauriTavern's) names and input forms. The backend owns every run;
// this module only fills in what the window knows — which chat is open and
// its extension prompts — normalises the seed's input forms, and turns
// the event stream into subscribe()'s ordered delivery (agent-subscribe.ts).
import { subscribeRun, type SubscribeDeps } from './agent-subscribe';
import { bind } from './bind';
import { HostError } from './errors';
import type { ExtensionPrompts, ExtensionPromptWire } from './extension-prompts';
import type { Call } from './host';
import type {
  AgentApi,
  AgentProfilesApi,
  AgentRunEvent,
  AgentRunHandle,
  AgentSkillInstallInput,
  AgentSkillsApi,
  AgentSubscribeOptions,
} from './types-agent';

/** AgentApiDeps are what api.agent needs from the rest of the window. */
export interface AgentApiDeps extends Omit<SubscribeDeps, 'readEvents'> {
  /** currentChatId is this window's chat, the one a run is for when the input names none. */
  currentChatId(): string | null;
  /** prompts, when given, are added to startRunFromLegacyGenerate's generateOptions, as api.generate does. */
  prompts?: ExtensionPrompts;
}

type Input = Record<string, unknown>;

function isRecord(v: unknown): v is Input {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function given(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * withChat fills input.chatId (Hearth's field) from chatRef — a chatId,
 * { chatId }, or a ChatRef by file name (resolved now) — or, when input
 * names no chat at all, from this window's chat (agent.no_chat if none).
 * An input that is not an object, or a chatRef of no known form, goes to
 * the host as it is, which says what is wrong with it.
 */
async function withChat(call: Call, deps: AgentApiDeps, input: Input): Promise<Input> {
  if (given(input.chatId) || given(input.stableChatId)) return input;
  const ref = input.chatRef;
  if (typeof ref === 'string') return { ...input, chatId: ref };
  if (isRecord(ref)) {
    if (typeof ref.chatId === 'string') return { ...input, chatId: ref.chatId };
    if (typeof ref.fileName === 'string') {
      const chatId = (await call('chat.resolve', ref)) as string;
      return { ...input, chatRef: { chatId }, chatId };
    }
    return input;
  }
  if (given(ref)) return input;
  const chatId = deps.currentChatId();
  if (chatId === null) {
    throw new HostError('agent.no_chat', 'no chat is open in this window: pass chatId (or chatRef) to say which chat the run is for');
  }
  return { ...input, chatId };
}

/**
 * withPrompts adds this window's extension prompts to generateOptions (the
 * dry run's options); prompts given there win by key. Nothing is added
 * when the window has none.
 */
async function withPrompts(prompts: ExtensionPrompts | undefined, input: Input): Promise<Input> {
  if (!prompts) return input;
  const go = input.generateOptions;
  if (given(go) && !isRecord(go)) return input;
  const own = await prompts.resolve();
  if (own.length === 0) return input;
  const options = isRecord(go) ? go : {};
  const mine = Array.isArray(options.extensionPrompts) ? (options.extensionPrompts as unknown[]) : [];
  const keys = new Set(mine.map((p) => (isRecord(p) ? p.key : undefined)));
  const merged: unknown[] = [...own.filter((p: ExtensionPromptWire) => !keys.has(p.key)), ...mine];
  return { ...input, generateOptions: { ...options, extensionPrompts: merged } };
}

/** profileId accepts the seed's two forms, an id or { profileId }; anything else goes to the host as it is. */
function profileId(input: unknown): unknown {
  return isRecord(input) && 'profileId' in input ? input.profileId : input;
}

/**
 * profileDocument accepts the seed's two forms of save's argument, the
 * profile or { profile }. A profile document has schemaVersion and id; a
 * wrapper has neither.
 */
function profileDocument(input: unknown): unknown {
  return isRecord(input) && isRecord(input.profile) && !('schemaVersion' in input) && !('id' in input) ? input.profile : input;
}

function createProfilesApi(call: Call): AgentProfilesApi {
  return Object.freeze({
    ...bind<AgentProfilesApi>(call, 'agent.profiles')(['list']),
    load: (input: unknown) => call('agent.profiles.load', profileId(input)) as ReturnType<AgentProfilesApi['load']>,
    async save(input: unknown) {
      await call('agent.profiles.save', profileDocument(input));
    },
    async delete(input: unknown) {
      await call('agent.profiles.delete', profileId(input));
    },
    diagnose: (input: unknown) => call('agent.profiles.diagnose', profileId(input)) as ReturnType<AgentProfilesApi['diagnose']>,
  });
}

/** base64 encodes bytes for the host (JSON carries a skill file's content as base64). */
function base64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** fileData reads one uploaded file's content: text, bytes, or a Blob (a File from a folder pick). */
async function fileData(data: unknown): Promise<string> {
  if (typeof data === 'string') return base64(new TextEncoder().encode(data));
  if (data instanceof Uint8Array) return base64(data);
  if (data instanceof ArrayBuffer) return base64(new Uint8Array(data));
  if (typeof Blob !== 'undefined' && data instanceof Blob) return base64(new Uint8Array(await data.arrayBuffer()));
  throw new HostError('validation.invalid_argument', "a skill file's data must be text, bytes or a Blob");
}

function createSkillsApi(call: Call): AgentSkillsApi {
  return Object.freeze({
    ...bind<AgentSkillsApi>(call, 'agent.skills')(['list', 'read']),
    async install(input: AgentSkillInstallInput) {
      const files = await Promise.all((input?.files ?? []).map(async (f) => ({ path: f.path, data: await fileData(f.data) })));
      return call('agent.skills.install', { files, replace: input?.replace === true }) as ReturnType<AgentSkillsApi['install']>;
    },
  });
}

/** The agent.* host methods api.agent forwards as they are called. */
const AGENT_METHODS = ['cancel', 'readEvents', 'readWorkspaceFile', 'listWorkspaceFiles', 'getRun', 'listCheckpoints', 'readDiff', 'rollback'] as const;

/** createAgentApi returns the frozen api.agent. */
export function createAgentApi(call: Call, deps: AgentApiDeps): AgentApi {
  const host = bind<AgentApi>(call, 'agent')(AGENT_METHODS);
  const subscribeDeps: SubscribeDeps = { ...deps, readEvents: host.readEvents };
  return Object.freeze({
    ...host,
    async startRunFromLegacyGenerate(input?: unknown) {
      const i = input === undefined || input === null ? {} : input;
      if (!isRecord(i)) return call('agent.startRunFromLegacyGenerate', i) as Promise<AgentRunHandle>;
      return call('agent.startRunFromLegacyGenerate', await withPrompts(deps.prompts, await withChat(call, deps, i))) as Promise<AgentRunHandle>;
    },
    async startRunWithPromptSnapshot(input: unknown) {
      if (!isRecord(input)) return call('agent.startRunWithPromptSnapshot', input) as Promise<AgentRunHandle>;
      return call('agent.startRunWithPromptSnapshot', await withChat(call, deps, input)) as Promise<AgentRunHandle>;
    },
    subscribe: (runId: string, handler: (event: AgentRunEvent) => void, options?: AgentSubscribeOptions) => subscribeRun(subscribeDeps, runId, handler, options),
    listRuns: (input?: unknown) => call('agent.listRuns', input ?? {}) as ReturnType<AgentApi['listRuns']>,
    async approveToolCall(input: unknown) {
      await call('agent.approveToolCall', input);
    },
    profiles: createProfilesApi(call),
    skills: createSkillsApi(call),
  });
}

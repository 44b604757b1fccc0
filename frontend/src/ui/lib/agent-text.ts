// Words for the agent UI: failures a person can act on, and short
// summaries of tool calls and their arguments.
import { generationErrorText } from './generation-errors';
import { describeError } from './errors';

/**
 * agentErrorText turns an agent failure into a sentence; the code stays
 * beside it in the toast. Model failures read as they do for generation.
 */
export function agentErrorText(err: unknown): { code: string; message: string } {
  const e = describeError(err);
  const details = (err as { details?: Record<string, unknown> } | null)?.details ?? {};
  switch (e.code) {
    case 'agent.no_connection':
    case 'generate.no_connection':
      return { code: e.code, message: 'Add a connection first — open Connections (the plug button) to add or pick one.' };
    case 'agent.busy':
      return { code: e.code, message: 'An agent is already working on this chat — wait for it or cancel it.' };
    case 'agent.no_chat':
      return { code: e.code, message: 'Open a chat first.' };
    case 'agent.invalid_profile': {
      const field = typeof details.field === 'string' && details.field !== '' ? ` (${details.field})` : '';
      return { code: e.code, message: `The agent profile is not valid${field}: ${e.message}` };
    }
    case 'agent.chat_completion_required':
      return { code: e.code, message: 'Agents need a chat-completion connection (OpenAI-compatible, Anthropic or Gemini).' };
    case 'agent.run_not_active':
      return { code: e.code, message: 'The run has already ended.' };
    case 'agent.run_not_found':
      return { code: e.code, message: 'That run no longer exists.' };
    case 'agent.call_not_pending':
      return { code: e.code, message: 'That tool call is no longer waiting for an answer.' };
    case 'agent.checkpoint_not_found':
      return { code: e.code, message: 'That checkpoint no longer exists.' };
    case 'agent.rollback_conflict':
      return {
        code: e.code,
        message: 'The chat changed after this run wrote its reply (a later edit touched the same messages), so the reply cannot be taken back out. Roll back the workspace only, or undo that edit first.',
      };
    case 'agent.max_rounds':
    case 'agent.max_calls':
      return { code: e.code, message: `The agent reached its profile's limit without finishing: ${e.message}` };
    case 'agent.no_tool_calls': {
      // A model that called tools earlier in the run lost the thread; one that never did cannot call them.
      if (typeof details.toolCalls === 'number' && details.toolCalls > 0) {
        return { code: e.code, message: "The model stopped using Hearth's tools and answered in plain text, even after a reminder. Retry, or pick a model that follows tool instructions more reliably." };
      }
      return {
        code: e.code,
        message: "The model answered in plain text instead of using Hearth's tools. Pick a model that supports tool calling in the connection, or send without the agent.",
      };
    }
    case 'workspace.required_artifact_missing':
      return { code: e.code, message: `The agent finished without writing its reply: ${e.message}` };
    case 'commit.save_failed':
      return { code: e.code, message: `The reply could not be saved to the chat: ${e.message}` };
    case 'agent.interrupted':
      return { code: e.code, message: 'Hearth stopped before the run finished.' };
    case 'model.request_failed': {
      // A run's failed model request names the provider's code in details.cause; say what that one means.
      const cause = typeof details.cause === 'string' && details.cause !== e.code ? details.cause : null;
      if (cause === null) return generationErrorText(err);
      // The run's message is "the model request failed (<cause>): <the provider's message>"; the cause's words say it better.
      const said = e.message.replace(/^the model request failed \([^)]*\): /, '');
      return { code: e.code, message: generationErrorText({ code: cause, message: said, details }).message };
    }
    default:
      if (e.code.startsWith('model.') || e.code === 'prompt.too_large') return generationErrorText(err);
      return { code: e.code, message: e.message };
  }
}

/** TOOL_LABEL says what each tool does, for cards and approval prompts. */
export const TOOL_LABEL: Record<string, string> = {
  'chat.search': 'Search the chat',
  'chat.read_messages': 'Read messages',
  'worldinfo.read_activated': 'Read world info',
  'skill.list': 'List skills',
  'skill.search': 'Search skills',
  'skill.read': 'Read a skill',
  'workspace.list_files': 'List files',
  'workspace.search_files': 'Search files',
  'workspace.read_file': 'Read a file',
  'workspace.write_file': 'Write a file',
  'workspace.apply_patch': 'Edit a file',
  'workspace.commit': 'Commit to the chat',
  'workspace.finish': 'Finish',
};

/** AGENT_TOOLS are the 13 tools of AGENT.md §5, in the profile's order. */
export const AGENT_TOOLS: readonly string[] = Object.keys(TOOL_LABEL);

/** canonicalTool maps the underscore form a provider used ("workspace_read_file") to the dotted one. */
export function canonicalTool(name: string): string {
  if (name in TOOL_LABEL) return name;
  const dotted = name.replace('_', '.');
  return dotted in TOOL_LABEL ? dotted : name;
}

/** argsHint is a call's most telling argument, for the collapsed card ("output/main.md", "“storm”"). */
export function argsHint(args: unknown): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return '';
  const a = args as Record<string, unknown>;
  if (typeof a.path === 'string' && a.path !== '') return a.path;
  if (typeof a.query === 'string' && a.query !== '') return `“${a.query.length > 40 ? `${a.query.slice(0, 40)}…` : a.query}”`;
  if (typeof a.name === 'string' && a.name !== '') return a.name;
  if (Array.isArray(a.messages)) return `${a.messages.length} ${a.messages.length === 1 ? 'message' : 'messages'}`;
  if (typeof a.reason === 'string' && a.reason !== '') return a.reason.length > 48 ? `${a.reason.slice(0, 48)}…` : a.reason;
  return '';
}

/**
 * prettyJson renders a value as indented JSON with every string longer
 * than maxString cut (marked "… N more characters"); cut says whether
 * anything was. maxString Infinity renders it whole.
 */
export function prettyJson(value: unknown, maxString = 300): { text: string; cut: boolean } {
  let cut = false;
  const text = JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === 'string' && v.length > maxString) {
        cut = true;
        return `${v.slice(0, maxString)}… (${(v.length - maxString).toLocaleString('en-US')} more characters)`;
      }
      return v;
    },
    2,
  );
  return { text: text ?? String(value), cut };
}

/** formatBytes is a size for people: "912 B", "4.2 KB", "1.3 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

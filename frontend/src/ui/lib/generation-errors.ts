// What a person reads when a generation fails: a sentence to act on for
// each error code the generation paths give (the code stays beside it).
import { describeError } from './errors';

/** HostErrorLike is a failure's code, message and details, as the ABI and the generation events carry them. */
export interface HostErrorLike {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** errorShape reads any thrown value as a HostErrorLike (describeError's code and message, its details if it has them). */
export function errorShape(err: unknown): HostErrorLike {
  const f = describeError(err);
  const d = (err as { details?: unknown } | null)?.details;
  return { ...f, ...(typeof d === 'object' && d !== null ? { details: d as Record<string, unknown> } : {}) };
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return s < 10 ? s.toFixed(1).replace(/\.0$/, '') : String(Math.round(s));
}

/**
 * generationErrorText turns a generation failure into what a person can
 * act on; the code stays beside it in the toast.
 */
export function generationErrorText(err: unknown): { code: string; message: string } {
  const e = errorShape(err);
  const d = e.details ?? {};
  const said = typeof d.providerMessage === 'string' && d.providerMessage !== '' ? ` The server said: ${d.providerMessage}` : '';
  switch (e.code) {
    case 'generate.no_connection':
      return { code: e.code, message: 'No connection selected — open Connections (the plug button) to add or pick one.' };
    case 'generate.busy':
      return { code: e.code, message: 'A reply is already being written in this chat — stop it first.' };
    case 'prompt.too_large': {
      // The backend names the part that does not fit and what to change.
      return { code: e.code, message: `The prompt does not fit the context size: ${e.message}` };
    }
    case 'model.auth_failed':
      return { code: e.code, message: `The model server refused the API key — check it in Connections.${said}` };
    case 'model.rate_limited': {
      const ms = typeof d.retryAfterMs === 'number' && d.retryAfterMs > 0 ? d.retryAfterMs : null;
      return { code: e.code, message: ms === null ? 'Rate limited by the model server; wait a moment and retry.' : `Rate limited; retry in ${seconds(ms)} s.` };
    }
    case 'model.unavailable':
      return { code: e.code, message: `The model server is unavailable or overloaded; try again shortly.${said}` };
    case 'model.timeout':
      // A server Hearth waited for is named in the backend's sentence (details.address): "127.0.0.1:8080 took too long to answer".
      return { code: e.code, message: typeof d.address === 'string' ? `${e.message}.` : 'The model server did not answer in time.' };
    case 'model.bad_response':
      return { code: e.code, message: `The model server sent a reply Hearth could not read.${said}` };
    case 'model.empty_reply':
      return { code: e.code, message: 'The model returned an empty reply.' };
    case 'model.unreachable':
      return {
        code: e.code,
        message:
          typeof d.address === 'string'
            ? `${e.message}. Is the server running, and is its address right in Connections?`
            : 'Could not reach the model server — is it running, and is its address right in Connections?',
      };
    case 'model.request_failed':
      return { code: e.code, message: `The model server refused the request.${said || ` ${e.message}`}` };
    case 'generate.interrupted':
      return { code: e.code, message: 'The reply was cut short: Hearth was shutting down.' };
    case 'generate.aborted':
      // An extension's generate interceptor said no (SillyTavern's abort()).
      return { code: e.code, message: `No reply: ${e.message}.` };
    default:
      return { code: e.code, message: `Generation failed: ${e.message}` };
  }
}

// Turning whatever a call rejected with into something a toast can show.

/** A failure as the UI shows it: words for a person, and the HostError code (for a details fold and for code that decides by it). */
export interface Failure {
  message: string;
  code: string;
}

/**
 * WORDS are what the UI says for codes whose own message is written for a
 * program (an id, a transport's text) rather than for the person at the
 * screen. Codes whose message already says what went wrong in words (a
 * field's limit, a provider's refusal, a server that did not answer) keep
 * their message.
 */
const WORDS: Readonly<Record<string, string>> = {
  'generate.no_connection': 'No connection is set up. Add one in Connections.',
  'agent.no_connection': 'No connection is set up. Add one in Connections.',
  'transport.unavailable': 'Hearth is not answering. Is it still running? Try again in a moment.',
  'host.unknown_method': 'This version of Hearth cannot do that.',
  'chat.not_found': 'That chat no longer exists.',
  'character.not_found': 'That character no longer exists.',
  'message.not_found': 'That message no longer exists.',
  'connection.not_found': 'That connection no longer exists.',
};

/**
 * describeError reads a HostError ({code, message}) or any other thrown
 * value. It relies only on the public error shape, not on the ABI's
 * classes. A thrown error (an Error: what a call rejects with) of a
 * common code gets words of its own (WORDS); a plain {code, message} is
 * a failure a caller already put in words (generationErrorText), and
 * keeps them. The code is kept for the details fold.
 */
export function describeError(err: unknown): Failure {
  if (typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; message?: unknown };
    const code = typeof e.code === 'string' && e.code !== '' ? e.code : 'internal';
    const own = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
    return { message: (err instanceof Error ? WORDS[code] : undefined) ?? own, code };
  }
  return { message: typeof err === 'string' ? err : String(err), code: 'internal' };
}

/** failureText is an error as a form shows it beside a field or in its failure box: the words, then the code in brackets. */
export function failureText(err: unknown): string {
  const { message, code } = describeError(err);
  return `${message} (${code})`;
}

// Turning whatever a call rejected with into something a toast can show.

/** A failure as the UI shows it: the HostError message and its code. */
export interface Failure {
  message: string;
  code: string;
}

/**
 * describeError reads a HostError ({code, message}) or any other thrown
 * value. It relies only on the public error shape, not on the ABI's classes.
 */
export function describeError(err: unknown): Failure {
  if (typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; message?: unknown };
    const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
    const code = typeof e.code === 'string' && e.code !== '' ? e.code : 'internal';
    return { message, code };
  }
  return { message: typeof err === 'string' ? err : String(err), code: 'internal' };
}

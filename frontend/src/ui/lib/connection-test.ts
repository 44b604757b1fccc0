// How a connection test's outcome reads, beside the connection and in the first-run checklist.
import type { ConnectionTest } from '../../abi/types';

/** testText says what a test found: the model count when it worked, the error when not. */
export function testText(t: ConnectionTest): string {
  if (t.ok) return t.models === undefined ? 'Connected' : `Connected · ${t.models} ${t.models === 1 ? 'model' : 'models'}`;
  return t.error?.message ?? 'Failed';
}

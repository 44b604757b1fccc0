// api.library: the library.* host methods — a whole SillyTavern library
// (a user folder data/<user>, or an install) in and out. Paths are on the
// machine the host runs on; progress arrives as LIBRARY_PROGRESS events.
import type { Call } from './host';
import type { LibraryApi, LibraryExportSummary, LibraryImportSummary } from './types-library';

/** createLibraryApi returns the frozen api.library. */
export function createLibraryApi(call: Call): LibraryApi {
  return Object.freeze({
    importST: (path: string) => call('library.importST', { path }) as Promise<LibraryImportSummary>,
    exportST: (path: string) => call('library.exportST', { path }) as Promise<LibraryExportSummary>,
    pickFolder: (options?: { title?: string }) =>
      call('library.pickFolder', ...(options ? [options] : [])) as Promise<{ picked: boolean; path: string | null }>,
  });
}

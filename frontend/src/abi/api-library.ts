// api.library: the library.* host methods — a whole SillyTavern library
// (a user folder data/<user>, or an install) in and out. Paths are on the
// machine the host runs on; progress arrives as LIBRARY_PROGRESS events.
import type { Call } from './host';
import type { LibraryAccess, LibraryApi, LibraryExportSummary, LibraryImportSummary, LibraryPath } from './types-library';

/** options takes the path as importST/exportST do: a string, or { path }; anything else goes as is, for the host to refuse. */
function options(path: LibraryPath): unknown {
  return typeof path === 'string' ? { path } : path;
}

/** createLibraryApi returns the frozen api.library. */
export function createLibraryApi(call: Call): LibraryApi {
  return Object.freeze({
    importST: (path: LibraryPath) => call('library.importST', options(path)) as Promise<LibraryImportSummary>,
    exportST: (path: LibraryPath) => call('library.exportST', options(path)) as Promise<LibraryExportSummary>,
    access: () => call('library.access') as Promise<LibraryAccess>,
    pickFolder: (options?: { title?: string }) =>
      call('library.pickFolder', ...(options ? [options] : [])) as Promise<{ picked: boolean; path: string | null }>,
  });
}

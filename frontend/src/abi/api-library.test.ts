import { describe, expect, it } from 'vitest';
import { createLibraryApi } from './api-library';
import { T } from './event-types';

describe('api.library', () => {
  it('calls library.* with { path }, given the path or { path }, and is frozen', async () => {
    const calls: { method: string; args: unknown[] }[] = [];
    const api = createLibraryApi(async (method, ...args) => {
      calls.push({ method, args });
      return {};
    });
    await api.importST('/home/me/SillyTavern');
    await api.exportST('/tmp/st-export');
    await api.importST({ path: '/home/me/SillyTavern' });
    await api.exportST({ path: '/tmp/st-export' });
    await api.access();
    await api.pickFolder();
    await api.pickFolder({ title: 'Import' });
    expect(calls).toEqual([
      { method: 'library.importST', args: [{ path: '/home/me/SillyTavern' }] },
      { method: 'library.exportST', args: [{ path: '/tmp/st-export' }] },
      { method: 'library.importST', args: [{ path: '/home/me/SillyTavern' }] },
      { method: 'library.exportST', args: [{ path: '/tmp/st-export' }] },
      { method: 'library.access', args: [] },
      { method: 'library.pickFolder', args: [] },
      { method: 'library.pickFolder', args: [{ title: 'Import' }] },
    ]);
    expect(Object.isFrozen(api)).toBe(true);
    expect(T.LIBRARY_PROGRESS).toBe('library_progress');
  });
});

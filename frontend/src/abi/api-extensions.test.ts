import { describe, expect, it } from 'vitest';
import { createExtensionsApi } from './api-extensions';
import { T } from './event-types';

describe('api.extensions', () => {
  it('calls extensions.* and extensions.storage.* with the arguments as given, and is frozen', async () => {
    const calls: { method: string; args: unknown[] }[] = [];
    const api = createExtensionsApi(async (method, ...args) => {
      calls.push({ method, args });
      return null;
    });
    const opts = { extensionId: 'mood' };
    await api.install({ fileName: 'mood.zip', base64: 'UEsFBg==' }, { enable: true });
    await api.list();
    await api.grant('mood', ['chat.read']);
    await api.revoke('mood', ['chat.read']);
    await api.disable('mood');
    await api.enable('mood');
    await api.update('mood');
    await api.reportFailure('mood', 'load threw');
    await api.compatReport('mood');
    await api.storage.set('k', { v: 1 }, opts);
    await api.storage.get('k', opts);
    await api.storage.list('k', opts);
    await api.storage.delete('k', opts);
    await api.remove('mood', { clean: true });
    expect(calls).toEqual([
      { method: 'extensions.install', args: [{ fileName: 'mood.zip', base64: 'UEsFBg==' }, { enable: true }] },
      { method: 'extensions.list', args: [] },
      { method: 'extensions.grant', args: ['mood', ['chat.read']] },
      { method: 'extensions.revoke', args: ['mood', ['chat.read']] },
      { method: 'extensions.disable', args: ['mood'] },
      { method: 'extensions.enable', args: ['mood'] },
      { method: 'extensions.update', args: ['mood'] },
      { method: 'extensions.reportFailure', args: ['mood', 'load threw'] },
      { method: 'extensions.compatReport', args: ['mood'] },
      { method: 'extensions.storage.set', args: ['k', { v: 1 }, opts] },
      { method: 'extensions.storage.get', args: ['k', opts] },
      { method: 'extensions.storage.list', args: ['k', opts] },
      { method: 'extensions.storage.delete', args: ['k', opts] },
      { method: 'extensions.remove', args: ['mood', { clean: true }] },
    ]);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.isFrozen(api.storage)).toBe(true);
    expect(T.EXTENSION_INSTALLED).toBe('extension_installed');
  });
});

import { describe, expect, it } from 'vitest';
import { createPresetsApi } from './api-presets';

describe('api.presets', () => {
  it('calls presets.* with the arguments as given, and is frozen', async () => {
    const calls: { method: string; args: unknown[] }[] = [];
    const api = createPresetsApi(async (method, ...args) => {
      calls.push({ method, args });
      return method === 'presets.list' ? [] : null;
    });
    await api.list();
    await api.get('default');
    await api.save({ name: 'Mine', sampling: { temperature: 0.8 }, maxContext: 16384 });
    await api.select(null);
    await api.select('p1');
    await api.active();
    await api.import({ fileName: 'Default.json', json: '{"temperature": 1}' });
    await api.export('p1');
    await api.delete('p1');
    expect(calls).toEqual([
      { method: 'presets.list', args: [] },
      { method: 'presets.get', args: ['default'] },
      { method: 'presets.save', args: [{ name: 'Mine', sampling: { temperature: 0.8 }, maxContext: 16384 }] },
      { method: 'presets.select', args: [null] },
      { method: 'presets.select', args: ['p1'] },
      { method: 'presets.active', args: [] },
      { method: 'presets.import', args: [{ fileName: 'Default.json', json: '{"temperature": 1}' }] },
      { method: 'presets.export', args: ['p1'] },
      { method: 'presets.delete', args: ['p1'] },
    ]);
    expect(Object.isFrozen(api)).toBe(true);
  });
});

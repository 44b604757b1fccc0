import { describe, expect, it } from 'vitest';
import { createConnectionsApi } from './api-connections';

describe('api.connections', () => {
  it('calls connections.* with the arguments as given, and is frozen', async () => {
    const calls: { method: string; args: unknown[] }[] = [];
    const api = createConnectionsApi(async (method, ...args) => {
      calls.push({ method, args });
      return method === 'connections.list' ? [] : null;
    });
    await api.save({ name: 'Local', provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'sk-x' });
    await api.list();
    await api.get('c1');
    await api.select(null);
    await api.select('c1');
    await api.active();
    await api.test('c1');
    await api.models('c1');
    await api.probe({ id: 'c1', baseUrl: 'http://127.0.0.1:8081/v1' });
    await api.delete('c1');
    expect(calls).toEqual([
      { method: 'connections.save', args: [{ name: 'Local', provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'sk-x' }] },
      { method: 'connections.list', args: [] },
      { method: 'connections.get', args: ['c1'] },
      { method: 'connections.select', args: [null] },
      { method: 'connections.select', args: ['c1'] },
      { method: 'connections.active', args: [] },
      { method: 'connections.test', args: ['c1'] },
      { method: 'connections.models', args: ['c1'] },
      { method: 'connections.probe', args: [{ id: 'c1', baseUrl: 'http://127.0.0.1:8081/v1' }] },
      { method: 'connections.delete', args: ['c1'] },
    ]);
    expect(Object.isFrozen(api)).toBe(true);
  });
});

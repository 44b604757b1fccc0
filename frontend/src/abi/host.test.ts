import { describe, expect, it } from 'vitest';
import { createHearthAbi } from './abi';
import { HostError } from './errors';
import { encodeArgs } from './host';
import { FakeHost } from './testing/fake-host';

describe('encodeArgs', () => {
  it('sends undefined in the middle as null and drops trailing undefined', () => {
    expect(encodeArgs(['c1', undefined, { silent: true }])).toEqual(['c1', null, { silent: true }]);
    expect(encodeArgs(['c1', undefined, undefined])).toEqual(['c1']);
    expect(encodeArgs([undefined])).toEqual([]);
    expect(encodeArgs([])).toEqual([]);
  });

  it('keeps positions on the wire', () => {
    expect(JSON.stringify(encodeArgs(['c', undefined, 3]))).toBe('["c",null,3]');
  });
});

describe('error mapping', () => {
  it('rejects api calls with a HostError carrying code, message and details', async () => {
    const host = new FakeHost();
    const h = createHearthAbi(host, { connected: Promise.resolve() });
    await h.ready;
    host.failures.set('chat.addMessages', { code: 'chat.conflict', message: 'stale', details: { currentRevision: 4 } });
    const err = await h.api.chat.addMessages('c1', { mes: 'x' }, { ifRevision: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ code: 'chat.conflict', message: 'stale', details: { currentRevision: 4 } });
  });

  it('maps a HostError thrown by the backend handler and unknown failures', async () => {
    const host = new FakeHost();
    const h = createHearthAbi(host, { connected: Promise.resolve() });
    await expect(h.api.chat.get('missing')).rejects.toMatchObject({ code: 'chat.not_found' });
    host.gate = async () => {
      throw new TypeError('socket hung up');
    };
    await expect(h.api.chat.count('x')).rejects.toMatchObject({ name: 'HostError', code: 'internal', message: 'socket hung up' });
  });

  it('passes positional arguments through, undefined kept in place', async () => {
    const host = new FakeHost();
    host.addChat('c1', 3);
    const h = createHearthAbi(host, { connected: Promise.resolve() });
    await h.api.chat.deleteMessages('c1', 1, undefined);
    await h.api.chat.saveMetadata('c1', undefined, { ifRevision: 1 });
    expect(host.calls.filter((c) => c.method.startsWith('chat.')).map((c) => [c.method, c.args])).toEqual([
      ['chat.deleteMessages', ['c1', 1]],
      ['chat.saveMetadata', ['c1', null, { ifRevision: 1 }]],
    ]);
  });
});

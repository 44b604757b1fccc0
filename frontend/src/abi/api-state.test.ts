import { describe, expect, it } from 'vitest';
import { updateChatState } from './api-state';
import { createContextState } from './context-state';
import { HostError } from './errors';
import type { Call } from './host';

/** A namespace behind a scripted host: rounds, leases and ifRevision checks. */
function host() {
  const ns = { value: undefined as unknown, revision: 0 };
  const ended: string[] = [];
  let lease = 0;
  const call: Call = async (method, ...args) => {
    switch (method) {
      case 'state.beginUpdate':
        return { value: ns.value ?? null, revision: ns.value === undefined ? 0 : ns.revision, lease: `l${++lease}` };
      case 'state.endUpdate':
        ended.push(args[2] as string);
        return null;
      case 'state.setChatState': {
        const opts = args[3] as { ifRevision: number };
        if (opts.ifRevision !== ns.revision) throw new HostError('state.conflict', 'moved on');
        ns.value = args[2];
        ns.revision++;
        return { ok: true, revision: ns.revision };
      }
      case 'state.deleteChatState':
        throw new HostError('state.floor_owned', 'owned');
      default:
        throw new Error(`unexpected ${method}`);
    }
  };
  return { call, ns, ended };
}

describe('updateChatState', () => {
  it('starts from {} and writes the updater result', async () => {
    const h = host();
    expect(await updateChatState(h.call, 'c', 'n', (cur) => ({ ...(cur as object), n: 1 }))).toEqual({ ok: true, value: { n: 1 } });
    expect(h.ns.value).toEqual({ n: 1 });
  });

  it('writes nothing and ends the round when the updater returns undefined', async () => {
    const h = host();
    expect(await updateChatState(h.call, 'c', 'n', () => undefined)).toEqual({ ok: true });
    expect(h.ns.revision).toBe(0);
    expect(h.ended).toEqual(['l1']);
  });

  it('re-reads and reruns after a conflict, then gives up with reason conflict', async () => {
    const h = host();
    h.ns.value = { n: 0 };
    h.ns.revision = 1;
    const origSet = h.call;
    let sets = 0;
    const racing: Call = async (method, ...args) => {
      if (method === 'state.setChatState' && sets++ < 2) {
        h.ns.revision++; // another writer landed between read and write
      }
      return origSet(method, ...args);
    };
    const seen: unknown[] = [];
    expect(await updateChatState(racing, 'c', 'n', (cur) => (seen.push(cur), { n: 1 }))).toEqual({ ok: true, value: { n: 1 } });
    expect(seen.length).toBe(3);
    let always = 0;
    const hopeless: Call = async (method, ...args) => {
      if (method === 'state.setChatState') {
        always++;
        throw new HostError('state.conflict', 'moved on');
      }
      return origSet(method, ...args);
    };
    expect(await updateChatState(hopeless, 'c', 'n', () => ({ n: 2 }), { maxRetries: 2 })).toEqual({ ok: false, reason: 'conflict' });
    expect(always).toBe(3);
  });

  it('validates maxRetries and the updater', async () => {
    const h = host();
    await expect(updateChatState(h.call, 'c', 'n', () => ({}), { maxRetries: -1 })).rejects.toThrow(HostError);
    await expect(updateChatState(h.call, 'c', 'n', () => ({}), { maxRetries: 1.5 })).rejects.toThrow(HostError);
    await expect(updateChatState(h.call, 'c', 'n', 'nope' as never)).rejects.toThrow(HostError);
  });

  it('ends the round when the updater throws', async () => {
    const h = host();
    await expect(
      updateChatState(h.call, 'c', 'n', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(h.ended).toEqual(['l1']);
  });
});

describe('context state methods', () => {
  it('resolve { ok: false, reason } instead of throwing', async () => {
    const h = host();
    const ctx = createContextState(h.call, () => 'c');
    expect(await ctx.deleteChatState('n')).toEqual({ ok: false, reason: 'floor_owned' });
    const none = createContextState(h.call, () => null);
    expect(await none.updateChatState('n', () => ({}))).toEqual({ ok: false, reason: 'not_found' });
    expect(await none.getChatState('n')).toBeNull();
    expect(await ctx.updateChatState('n', () => ({ a: 1 }))).toEqual({ ok: true });
  });
});

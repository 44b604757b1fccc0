import { describe, expect, it } from 'vitest';
import { HostError } from './errors';
import { createFloorState } from './floor-state';
import type { Call } from './host';

/** scripted is a Call that records calls and answers from a handler. */
function scripted(answer: (method: string, args: unknown[]) => unknown) {
  const calls: { method: string; args: unknown[] }[] = [];
  const call: Call = async (method, ...args) => {
    calls.push({ method, args });
    return answer(method, args);
  };
  return { call, calls };
}

describe('createFloorState', () => {
  it('validates the namespace up front', () => {
    const { call } = scripted(() => null);
    expect(() => createFloorState(call, () => 'c', { namespace: 'a b' })).toThrow(HostError);
    expect(() => createFloorState(call, () => 'c', { namespace: 'x__floor_log' })).toThrow(/reserved/);
    expect(() => createFloorState(call, () => 'c', null as never)).toThrow(HostError);
    expect(Object.isFrozen(createFloorState(call, () => 'c', { namespace: 'ok' }))).toBe(true);
  });

  it('refuses bad options with false and calls nothing', async () => {
    const { call, calls } = scripted(() => ({ value: null, revision: 0 }));
    const fs = createFloorState(call, () => 'c', { namespace: 'fs' });
    const bad = [{ floor: -1 }, { floor: 1.5 }, { floor: NaN }, { floor: '1' }, { floor: null }, { swipeId: -1 }, { swipeId: 0.5 }, [], 'x'];
    for (const opts of bad) {
      expect(await fs.update(() => ({ a: 1 }), opts as never), JSON.stringify(opts)).toBe(false);
      expect(await fs.patch([], opts as never), JSON.stringify(opts)).toBe(false);
    }
    expect(calls).toEqual([]);
  });

  it('treats a non-object reducer result as no change', async () => {
    const { call, calls } = scripted(() => ({ value: { a: 1 }, revision: 3 }));
    const fs = createFloorState(call, () => 'c', { namespace: 'fs' });
    for (const r of [undefined, null, 5, 'x', [1], new Date()]) {
      expect(await fs.update(() => r)).toBe(true);
    }
    expect(calls.every((c) => c.method === 'state.floorGet')).toBe(true);
  });

  it('hands the reducer a copy and sends the next state with the revision it read', async () => {
    const stored = { value: { hp: 1, tags: ['a'] }, revision: 4 };
    const { call, calls } = scripted((m) => (m === 'state.floorGet' ? stored : { written: true }));
    const fs = createFloorState(call, () => 'c', { namespace: 'fs' });
    let seen: unknown;
    expect(
      await fs.update(
        (cur) => {
          seen = cur;
          (cur.tags as string[]).push('b');
          return { ...cur, hp: 2 };
        },
        { floor: 3 },
      ),
    ).toBe(true);
    expect(stored.value.tags).toEqual(['a']);
    expect(seen).not.toBe(stored.value);
    expect(calls[1]).toEqual({ method: 'state.floorUpdate', args: ['c', 'fs', { hp: 2, tags: ['a', 'b'] }, { floor: 3, ifRevision: 4 }] });
  });

  it('reruns the reducer when another writer got in first', async () => {
    let rev = 0;
    const { call } = scripted((m) => {
      if (m === 'state.floorGet') return { value: { n: rev }, revision: rev };
      if (rev < 2) {
        rev++;
        throw new HostError('state.conflict', 'moved on');
      }
      return { written: true };
    });
    const fs = createFloorState(call, () => 'c', { namespace: 'fs' });
    const inputs: unknown[] = [];
    expect(await fs.update((cur) => (inputs.push(cur.n), { n: (cur.n as number) + 1 }))).toBe(true);
    expect(inputs).toEqual([0, 1, 2]);
  });

  it('turns host errors into false', async () => {
    const { call } = scripted((m) => {
      if (m === 'state.floorGet') return { value: null, revision: 0 };
      throw new HostError('message.index_out_of_range', 'no such floor');
    });
    const fs = createFloorState(call, () => 'c', { namespace: 'fs' });
    expect(await fs.update(() => ({ a: 1 }), { floor: 99 })).toBe(false);
    expect(await fs.patch([{ op: 'add', path: '/a', value: 1 }])).toBe(false);
  });

  it('serializes concurrent writes of one instance', async () => {
    let value = 0;
    let inFlight = 0;
    let most = 0;
    const { call } = scripted(async (m, args) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      if (m === 'state.floorGet') return { value: { n: value }, revision: value };
      value = (args[2] as { n: number }).n;
      return { written: true };
    });
    const fs = createFloorState(call, () => 'c', { namespace: 'fs' });
    const all = Array.from({ length: 20 }, () => fs.update((cur) => ({ n: (cur.n as number) + 1 })));
    let readyDone = false;
    const ready = fs.ready().then(() => (readyDone = true));
    expect(await Promise.all(all)).toEqual(Array(20).fill(true));
    await ready;
    expect(readyDone).toBe(true);
    expect(value).toBe(20);
    expect(most).toBe(1);
  });

  it('is inert after destroy and without a chat', async () => {
    const { call, calls } = scripted(() => ({ value: { a: 1 }, revision: 1 }));
    let current: string | null = null;
    const fs = createFloorState(call, () => current, { namespace: 'fs' });
    expect(await fs.get()).toBeNull();
    expect(await fs.update(() => ({ a: 2 }))).toBe(false);
    current = 'c';
    expect(await fs.get()).toEqual({ a: 1 });
    fs.destroy();
    expect(await fs.update(() => ({ a: 2 }))).toBe(false);
    expect(await fs.patch([])).toBe(false);
    expect(await fs.get()).toBeNull();
    expect(calls.length).toBe(1);
  });

  it('follows the current chat unless pinned to one', async () => {
    const { call, calls } = scripted(() => ({ value: null, revision: 0 }));
    let current = 'c1';
    const follow = createFloorState(call, () => current, { namespace: 'fs' });
    const pinned = createFloorState(call, () => current, { namespace: 'fs', chatId: 'c1' });
    current = 'c2';
    await follow.get();
    await pinned.get();
    expect(calls.map((c) => c.args[0])).toEqual(['c2', 'c1']);
  });
});

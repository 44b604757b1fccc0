import { describe, expect, it, vi } from 'vitest';
import { createEmitQueue, createEventSource } from './event-source';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('eventSource (SillyTavern semantics)', () => {
  it('awaits listeners in turn and passes positional arguments', async () => {
    const es = createEventSource([]);
    const log: string[] = [];
    es.on('e', async (a, b) => {
      await sleep(5);
      log.push(`slow ${String(a)} ${String(b)}`);
    });
    es.on('e', (a) => void log.push(`fast ${String(a)}`));
    await es.emit('e', 1, 'x');
    expect(log).toEqual(['slow 1 x', 'fast 1']);
  });

  it('keeps going after a listener throws', async () => {
    const es = createEventSource([]);
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen: number[] = [];
    es.on('e', () => {
      throw new Error('boom');
    });
    es.on('e', (n) => void seen.push(n as number));
    await es.emit('e', 7);
    expect(seen).toEqual([7]);
    expect(err).toHaveBeenCalled();
    err.mockRestore();
  });

  it('supports once, off, removeListener, makeFirst and makeLast', async () => {
    const es = createEventSource([]);
    const log: string[] = [];
    const a = () => void log.push('a');
    const b = () => void log.push('b');
    const c = () => void log.push('c');
    const o = () => void log.push('once');
    es.on('e', a);
    es.on('e', b);
    es.makeFirst('e', c);
    es.once('e', o);
    await es.emit('e');
    await es.emit('e');
    expect(log).toEqual(['c', 'a', 'b', 'once', 'c', 'a', 'b']);
    log.length = 0;
    es.makeLast('e', c);
    es.off('e', a);
    es.removeListener('e', b);
    es.off('e', b);
    es.once('e', o);
    es.off('e', o);
    await es.emit('e');
    expect(log).toEqual(['c']);
  });

  it('replays auto-fire events to late listeners, once they have fired', async () => {
    const es = createEventSource(['ready']);
    const early = vi.fn();
    es.on('ready', early);
    await es.emit('ready', 'arg');
    const late = vi.fn();
    es.on('ready', late);
    expect(late).toHaveBeenCalledWith('arg');
    expect(early).toHaveBeenCalledOnce();
    const notAuto = vi.fn();
    await es.emit('other');
    es.on('other', notAuto);
    expect(notAuto).not.toHaveBeenCalled();
  });

  it('emitAndWait calls listeners without awaiting them', () => {
    const es = createEventSource([]);
    const log: string[] = [];
    es.on('e', async () => {
      await sleep(1);
      log.push('late');
    });
    es.on('e', () => void log.push('sync'));
    es.emitAndWait('e');
    expect(log).toEqual(['sync']);
  });
});

describe('EmitQueue', () => {
  it('does not start an event before the previous one’s listeners finished', async () => {
    const es = createEventSource([]);
    const q = createEmitQueue(es);
    const log: string[] = [];
    es.on('first', async () => {
      log.push('first:start');
      await sleep(10);
      log.push('first:end');
    });
    es.on('second', () => void log.push('second'));
    q.push('first', []);
    q.push('second', []);
    expect(log).toEqual([]);
    await q.idle();
    expect(log).toEqual(['first:start', 'first:end', 'second']);
  });
});

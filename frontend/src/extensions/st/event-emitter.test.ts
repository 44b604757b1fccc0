import { describe, expect, it } from 'vitest';
import { EventEmitter } from './event-emitter';

describe("SillyTavern's EventEmitter", () => {
  it('awaits listeners in order, removes them, and replays auto-fire events to late listeners', async () => {
    const e = new EventEmitter(['ready']);
    const seen: string[] = [];
    const slow = async (x: unknown) => {
      await new Promise((r) => setTimeout(r, 5));
      seen.push(`slow ${String(x)}`);
    };
    const fast = (x: unknown) => void seen.push(`fast ${String(x)}`);
    e.on('tick', slow);
    e.on('tick', fast);
    await e.emit('tick', 1);
    expect(seen).toEqual(['slow 1', 'fast 1']);
    e.removeListener('tick', slow);
    e.makeFirst('tick', fast);
    await e.emit('tick', 2);
    expect(seen.at(-1)).toBe('fast 2');
    expect(seen).toHaveLength(3);
    await e.emit('ready', 'now');
    e.on('ready', (x) => void seen.push(`late ${String(x)}`));
    expect(seen.at(-1)).toBe('late now');
    const once: unknown[] = [];
    e.once('one', (x) => void once.push(x));
    await e.emit('one', 'a');
    await e.emit('one', 'b');
    expect(once).toEqual(['a']);
  });
});

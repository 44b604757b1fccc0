import { describe, expect, it } from 'vitest';
import { imagesOf, readHookChat } from './hook-chat';

const IMG = '/api/media/aaaa.png';

describe('readHookChat', () => {
  it('takes a prompt and rebuilds it from the fields it knows', () => {
    const r = readHookChat(
      [
        { role: 'system', content: 'Be kind.', extra: { secret: 1 }, source: 'main' },
        { role: 'user', content: [{ type: 'text', text: 'Look:', x: 1 }, { type: 'image_url', image_url: { url: IMG, detail: 'high' } }], name: 'Ann' },
        { role: 'assistant', content: '', name: null },
      ],
      10,
      new Set([IMG]),
    );
    expect(r).toEqual({
      ok: true,
      chat: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image_url', image_url: { url: IMG } }], name: 'Ann' },
        { role: 'assistant', content: '' },
      ],
    });
  });

  it('refuses what is not a prompt, naming the message at fault', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = [deep];
    const cases: [unknown, RegExp][] = [
      [{ role: 'user', content: 'x' }, /not a list of messages/],
      ['text', /not a list of messages/],
      [null, /not a list of messages/],
      [[{ role: 'tool', content: 'x' }], /chat\[0\]\.role must be system, user or assistant/],
      [[{ role: 'user' }], /chat\[0\]\.content must be a string/],
      [[{ role: 'user', content: 7 }], /chat\[0\]\.content must be a string/],
      [[{ role: 'user', content: 'a' }, 'b'], /chat\[1\] is not a message/],
      [[{ role: 'user', content: [{ type: 'image_url', image_url: { url: '/api/media/other.png' } }] }], /chat\[0\]\.content\[0\] must be a text part or an image part the prompt already held/],
      [[{ role: 'user', content: [{ type: 'text', text: 3 }] }], /chat\[0\]\.content\[0\]/],
      [[{ role: 'user', content: 'x', name: 'n'.repeat(1025) }], /chat\[0\]\.name must be text of at most 1024/],
      [[{ role: 'user', content: 'x', name: 5 }], /chat\[0\]\.name/],
      [Array.from({ length: 11 }, () => ({ role: 'user', content: 'x' })), /11 messages, more than the 10 allowed/],
      [[new Map([['role', 'user']])], /Map, which is not a JSON value/],
      [cyclic, /nest deeper than 32 levels/],
      [deep, /nest deeper than 32 levels/],
      [[{ role: 'user', content: 'x'.repeat(9 << 20) }], /larger than/],
      [[{ role: 'user', content: 'x', f: () => 1 }], /function, which is not a JSON value/],
    ];
    for (const [value, why] of cases) {
      const r = readHookChat(value, 10, new Set([IMG]));
      expect(r.ok, JSON.stringify(why.source)).toBe(false);
      if (!r.ok) expect(r.why).toMatch(why);
    }
  });

  it('takes any image when the window hands on its own prompt (images null)', () => {
    expect(readHookChat([{ role: 'user', content: [{ type: 'image_url', image_url: { url: '/x.png' } }] }], 1, null).ok).toBe(true);
  });
});

describe('imagesOf', () => {
  it('lists the image URLs of a prompt, skipping what is not an image part', () => {
    expect([...imagesOf([{ content: 'a' }, { content: [{ type: 'text', text: 'b' }, { type: 'image_url', image_url: { url: IMG } }, { type: 'image_url' }, null] }])]).toEqual([IMG]);
  });
});

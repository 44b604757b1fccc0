import { describe, expect, it } from 'vitest';
import { setup } from './testing/setup';

describe('api.chat.updateMessage', () => {
  it('refuses a non-finite reasoning.duration before sending (JSON would make it null, which clears)', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 1));
    for (const duration of [NaN, Infinity, -Infinity]) {
      await expect(h.api.chat.updateMessage('c1', 'm0', { reasoning: { duration } })).rejects.toMatchObject({
        name: 'HostError',
        code: 'validation.invalid_argument',
        details: { field: 'reasoning.duration' },
      });
    }
    expect(host.count('chat.updateMessage')).toBe(0);
  });
});

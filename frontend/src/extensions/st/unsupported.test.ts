import { describe, expect, it } from 'vitest';
import { unsupported, UNSUPPORTED_CODE } from './unsupported';

describe('unsupported', () => {
  const x = unsupported('executeSlashCommands', '/scripts/slash-commands.js') as Record<string | symbol, unknown> & ((...a: unknown[]) => unknown);

  it('throws ext.unsupported naming itself when called or constructed', () => {
    const want = expect.objectContaining({
      name: 'HostError',
      code: UNSUPPORTED_CODE,
      details: { name: 'executeSlashCommands', module: '/scripts/slash-commands.js' },
      message: "executeSlashCommands (SillyTavern's /scripts/slash-commands.js) is not available in Hearth",
    });
    expect(() => x('/echo')).toThrow(want);
    expect(() => new (x as unknown as new () => unknown)()).toThrow(want);
    expect(() => Reflect.apply(x, null, [])).toThrow(want);
  });

  it('reads as nothing, is not awaited as a promise, and takes writes quietly', async () => {
    expect(x.enabled).toBeUndefined();
    expect(x.then).toBeUndefined();
    expect(x.name).toBe('executeSlashCommands');
    expect(String(x)).toBe('[executeSlashCommands: not available in Hearth]');
    expect(await Promise.resolve(x)).toBe(x);
    x.enabled = true;
    expect(x.enabled).toBeUndefined();
    const { a, b } = x as unknown as { a?: unknown; b?: unknown };
    expect([a, b]).toEqual([undefined, undefined]);
    expect(typeof x).toBe('function');
  });
});

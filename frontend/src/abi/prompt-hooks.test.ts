import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHearthAbi } from './abi';
import { markInternal } from './event-source';
import { clearInterceptors, clipWarning, createPromptHooks, HOOK_WARNING_BYTES, IGNORE_SYMBOL, PROMPT_READY_BUDGET_MS, registerFrameHooks, registerInterceptor, type FrameHookRequest, type FramePromptHooks } from './prompt-hooks';
import { FakeHost, tick } from './testing/fake-host';
import type { HearthAbi, PromptHooksOption, StMessage } from './types';

type Interceptor = (chat: Record<string | symbol, unknown>[], contextSize: number, abort: (immediately?: boolean) => void, type: string) => unknown;
const g = globalThis as unknown as Record<string, Interceptor | undefined>;

/** open starts an ABI over a fake host with chat c1 (m0 … m3, every other one the user's) selected. */
async function open(prepare: (host: FakeHost) => void = () => {}): Promise<{ host: FakeHost; h: HearthAbi }> {
  const host = new FakeHost();
  host.addChat('c1', 4);
  prepare(host);
  host.maxContext = 16384;
  const h = createHearthAbi(host, { connected: Promise.resolve(), settleMs: 50 });
  await h.ready;
  await h.api.chat.select('c1');
  return { host, h };
}

function interceptor(name: string, fn: Interceptor, displayName = name): void {
  g[name] = fn;
  registerInterceptor({ extensionId: `ext-${name}`, displayName, name });
}

function hooksSent(host: FakeHost, method: string): PromptHooksOption {
  const call = [...host.calls].reverse().find((c) => c.method === method);
  return (call!.args[0] as { hooks: PromptHooksOption }).hooks;
}

const names: string[] = [];
afterEach(() => {
  clearInterceptors();
  for (const n of Object.keys(g)) if (n.startsWith('hookTest')) delete g[n];
  names.length = 0;
});

describe('generate_interceptor', () => {
  it('runs each interceptor in load order on shallow copies, and sends what they made of the chat', async () => {
    const { host, h } = await open();
    const seen: unknown[] = [];
    interceptor('hookTestFirst', (chat, size, _abort, type) => {
      seen.push(['first', size, type, chat.length, chat.map((m) => m.mes), Object.isFrozen(chat[0]), chat[1]!.index]);
      chat[1]!.mes = 'm1, edited'; // a copy: the window's chat keeps m1
      (chat[2]!.extra as Record<symbol, unknown>)[IGNORE_SYMBOL] = true; // SillyTavern's way to leave one out
      chat.splice(3, 0, { is_user: false, name: 'Note', mes: '[A system note]', extra: { type: 'narrator' } });
    });
    interceptor('hookTestSecond', (chat) => {
      seen.push(['second', chat.length]);
      chat.push({ ...chat[0]!, mes: 'm0 again, changed' }); // a spread copy keeps its index: the original's media go with it
      chat.push({ is_user: true, mes: 'hidden', is_system: true });
    });
    await h.api.generate.start({ chatId: 'c1', type: 'normal' });

    expect(seen).toEqual([
      ['first', 16384, 'normal', 4, ['m0', 'm1', 'm2', 'm3'], false, 1],
      ['second', 5],
    ]);
    expect(h.getContext().chat.map((m) => m.mes)).toEqual(['m0', 'm1', 'm2', 'm3']);
    const sent = hooksSent(host, 'generate.start');
    expect(sent.interceptor).toMatchObject({ chat: { revision: 0 } });
    expect(sent.interceptor!.ms).toBeGreaterThanOrEqual(0);
    expect(sent.interceptor!.chat!.items).toEqual([
      { ref: 0 },
      { mes: 'm1, edited', name: 'User', is_user: true, ref: 1 },
      { mes: '[A system note]', name: 'Note', is_user: false, narrator: true },
      { ref: 3 },
      { mes: 'm0 again, changed', name: 'Seraphina', is_user: false, ref: 0 },
    ]);
    expect(sent.promptReady).toBeUndefined();
  });

  it('sends only the time when nothing changed, and does not run for a dry run', async () => {
    const { host, h } = await open();
    const calls: string[] = [];
    interceptor('hookTestLook', (chat, _s, _a, type) => {
      calls.push(type);
      chat.reverse();
      chat.reverse();
    });
    await h.api.generate.run({ chatId: 'c1', type: 'quiet', quietPrompt: 'Sum up.' });
    expect(hooksSent(host, 'generate.run')).toEqual({ interceptor: { ms: expect.any(Number) } });
    await h.api.generate.dryRun({ chatId: 'c1' });
    expect(hooksSent(host, 'generate.dryRun')).toEqual({});
    expect(calls).toEqual(['quiet']);
  });

  it('leaves the reply a swipe replaces out of its interceptors’ chat, and hidden messages too', async () => {
    const { host, h } = await open((host) => {
      const chat = host.chat('c1');
      chat.messages[1]!.is_system = true;
      chat.messages.push({ ...chat.messages[0]!, id: 'm-last', mes: 'the reply being swiped' });
    });
    let got: unknown[] = [];
    interceptor('hookTestSwipe', (c) => {
      got = c.map((m) => m.mes);
    });
    await h.api.generate.start({ chatId: 'c1', type: 'swipe' });
    expect(got).toEqual(['m0', 'm2', 'm3']);
    expect(hooksSent(host, 'generate.start').interceptor!.chat).toBeUndefined();
  });

  it('abort() stops the generation before it starts, naming the extension; abort(true) skips the rest', async () => {
    const { host, h } = await open();
    const ran: string[] = [];
    interceptor('hookTestA', (_c, _s, abort) => {
      ran.push('a');
      abort(true);
    }, 'Memory Books');
    interceptor('hookTestB', () => {
      ran.push('b');
    });
    await expect(h.api.generate.start({ chatId: 'c1' })).rejects.toMatchObject({
      code: 'generate.aborted',
      message: "Memory Books's generate interceptor aborted the generation",
      details: { extensionId: 'ext-hookTestA', interceptor: 'hookTestA' },
    });
    expect(ran).toEqual(['a']);
    expect(host.count('generate.start')).toBe(0);
  });

  it('goes on after a throwing interceptor, as SillyTavern does', async () => {
    const { host, h } = await open();
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    interceptor('hookTestThrows', () => {
      throw new Error('boom');
    });
    interceptor('hookTestAfter', (chat) => {
      chat.pop();
    });
    await h.api.generate.start({ chatId: 'c1' });
    expect(hooksSent(host, 'generate.start').interceptor!.chat!.items).toEqual([{ ref: 0 }, { ref: 1 }, { ref: 2 }]);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('reads the chat again first when the window lags a write', async () => {
    const { host, h } = await open();
    // A message written but its event not yet applied.
    host.lose = true;
    await h.api.chat.addMessages('c1', { is_user: true, mes: 'just sent' });
    host.lose = false;
    let got: unknown[] = [];
    interceptor('hookTestFresh', (c) => {
      got = c.map((m) => m.mes);
      c.pop();
    });
    await h.api.generate.start({ chatId: 'c1' });
    expect(got.at(-1)).toBe('just sent');
    expect(hooksSent(host, 'generate.start').interceptor!.chat!.revision).toBe(host.chat('c1').revision);
  });

  it('gives up after the time limit and says so', async () => {
    const host = new FakeHost();
    host.addChat('c1', 2);
    const h = createHearthAbi(host, { connected: Promise.resolve() });
    await h.ready;
    await h.api.chat.select('c1');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const global: Record<string, unknown> = { hookTestSlow: () => new Promise(() => {}) };
    registerInterceptor({ extensionId: 'slow', displayName: 'Slow', name: 'hookTestSlow' });
    const hooks = createPromptHooks({
      call: (m, ...a) => host.invoke(m, a),
      cache: { committed: () => null, waitFor: () => Promise.resolve() },
      eventSource: h.getContext().eventSource,
      maxContext: () => 8192,
      global,
      timeoutMs: 30,
    });
    const p = await hooks.prepare({ chatId: 'c1' }, false);
    expect(p.options.hooks).toEqual({});
    // With the chat at hand the interceptor runs, and runs out of time.
    const hooks2 = createPromptHooks({
      call: (m, ...a) => host.invoke(m, a),
      cache: { committed: () => ({ chatId: 'c1', details: {} as never, revision: 0, messages: host.chat('c1').messages as unknown as StMessage[] }), waitFor: () => Promise.resolve() },
      eventSource: h.getContext().eventSource,
      maxContext: () => 8192,
      global,
      timeoutMs: 30,
    });
    const q = await hooks2.prepare({ chatId: 'c1' }, false);
    expect(q.options.hooks).toEqual({ interceptor: { ms: expect.any(Number), timedOut: true } });
    expect(q.options.hooks!.interceptor!.ms).toBeGreaterThanOrEqual(25);
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });
});

describe('CHAT_COMPLETION_PROMPT_READY', () => {
  /** answering makes the fake backend's start and dryRun do the round trip: request, then wait for the reply. */
  function answering(host: FakeHost, chat: unknown[]): { replies: unknown[][] } {
    const replies: unknown[][] = [];
    let reply: (() => void) | null = null;
    host.gate = async (method, args) => {
      if (method === 'generate.promptHookReply') {
        replies.push(args);
        reply?.();
        return;
      }
      const token = (args[0] as { hooks?: PromptHooksOption } | undefined)?.hooks?.promptReady;
      if ((method === 'generate.start' || method === 'generate.dryRun') && token) {
        const answered = new Promise<void>((r) => (reply = r));
        host.push('prompt_hook_request', { token: 'not-this-windows-token-000', chatId: 'c1', dryRun: false, chat });
        host.push('prompt_hook_request', { token, chatId: 'c1', generationId: 'g-1', dryRun: method === 'generate.dryRun', chat });
        await answered;
      }
    };
    return { replies };
  }

  it('hands the listeners SillyTavern’s { chat, dryRun } and answers with what they left', async () => {
    const { host, h } = await open();
    const prompt = [
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'Hi.' },
    ];
    const { replies } = answering(host, prompt);
    const es = h.getContext().eventSource;
    const got: unknown[] = [];
    es.on('chat_completion_prompt_ready', (arg) => {
      const data = arg as { chat: { role: string; content: string }[]; dryRun: boolean };
      got.push(structuredClone(data));
      data.chat[1]!.content += ' (in verse)';
      data.chat.push({ role: 'system', content: 'Added.' });
    });
    await h.api.generate.start({ chatId: 'c1' });
    expect(got).toEqual([{ chat: prompt, dryRun: false }]);
    const token = hooksSent(host, 'generate.start').promptReady!;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(replies).toEqual([[token, [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Hi. (in verse)' }, { role: 'system', content: 'Added.' }]]]);

    await h.api.generate.dryRun({ chatId: 'c1' });
    expect(got.at(-1)).toEqual({ chat: prompt, dryRun: true });
    expect(hooksSent(host, 'generate.dryRun').promptReady).not.toBe(token);
  });

  it('answers null when the listeners left the prompt alone', async () => {
    const { host, h } = await open();
    const { replies } = answering(host, [{ role: 'user', content: 'Hi.' }]);
    h.getContext().eventSource.on('chat_completion_prompt_ready', () => {});
    await h.api.generate.start({ chatId: 'c1' });
    expect(replies).toEqual([[hooksSent(host, 'generate.start').promptReady, null]]);
  });

  it('asks for no round trip without a listener of its own (Hearth’s are not counted)', async () => {
    const { host, h } = await open();
    h.getContext().eventSource.makeFirst('chat_completion_prompt_ready', markInternal(() => {}));
    await h.api.generate.start({ chatId: 'c1' });
    expect(hooksSent(host, 'generate.start')).toEqual({});
  });

  it('keeps the announcement of a hooked prompt from the listeners, not from api.events', async () => {
    const { host, h } = await open();
    const listener: unknown[] = [];
    const structured: unknown[] = [];
    h.getContext().eventSource.on('chat_completion_prompt_ready', (d: unknown) => listener.push(d));
    h.api.events.on('chat_completion_prompt_ready', (p) => structured.push(p.hooked ?? false));
    host.push('chat_completion_prompt_ready', { chatId: 'c1', generationId: 'g-1', chat: [], dryRun: false, hooked: true });
    host.push('chat_completion_prompt_ready', { chatId: 'c1', generationId: 'g-2', chat: [], dryRun: false });
    await tick();
    expect(structured).toEqual([true, false]);
    expect(listener).toEqual([{ chatId: 'c1', generationId: 'g-2', chat: [], dryRun: false }]);
  });
});

describe('CHAT_COMPLETION_PROMPT_READY in extension frames', () => {
  const prompt = [
    { role: 'system', content: 'Be kind.' },
    { role: 'user', content: 'Hi.' },
  ];

  /** answering makes the fake backend's start and dryRun send the request and wait for the reply. */
  function answering(host: FakeHost): { replies: unknown[][] } {
    const replies: unknown[][] = [];
    let reply: (() => void) | null = null;
    host.gate = async (method, args) => {
      if (method === 'generate.promptHookReply') {
        replies.push(args);
        reply?.();
        return;
      }
      const token = (args[0] as { hooks?: PromptHooksOption } | undefined)?.hooks?.promptReady;
      if ((method === 'generate.start' || method === 'generate.dryRun') && token) {
        const answered = new Promise<void>((r) => (reply = r));
        host.push('prompt_hook_request', { token, chatId: 'c1', generationId: 'g-1', dryRun: method === 'generate.dryRun', chat: prompt });
        await answered;
      }
    };
    return { replies };
  }

  /** frames registers frame hooks that want when told, and record what they were asked. */
  function frames(want: boolean | Error, run: FramePromptHooks['run']): { asked: [FrameHookRequest, number][]; off: () => void } {
    const asked: [FrameHookRequest, number][] = [];
    const off = registerFrameHooks({
      wants: async () => {
        if (want instanceof Error) throw want;
        return want;
      },
      run: (request, deadline) => {
        asked.push([structuredClone(request), deadline]);
        return run(request, deadline);
      },
    });
    return { asked, off };
  }

  let off: (() => void) | null = null;
  afterEach(() => {
    off?.();
    off = null;
  });

  it('asks for the round trip when a frame hooks, hands the frames what the listeners left, and answers with theirs and their warnings', async () => {
    const { host, h } = await open();
    const { replies } = answering(host);
    h.getContext().eventSource.on('chat_completion_prompt_ready', (arg) => {
      (arg as { chat: unknown[] }).chat.push({ role: 'system', content: 'From the page.' });
    });
    const f = frames(true, async (request) => ({ chat: [...(request.chat as unknown[]), { role: 'system', content: 'From a frame.' }], warnings: ['The extension slow was skipped'] }));
    off = f.off;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const t0 = performance.now();
    await h.api.generate.start({ chatId: 'c1' });
    const token = hooksSent(host, 'generate.start').promptReady!;
    expect(f.asked).toHaveLength(1);
    const [req, deadline] = f.asked[0]!;
    expect(req).toEqual({ chat: [...prompt, { role: 'system', content: 'From the page.' }], original: prompt, dryRun: false, chatId: 'c1', generationId: 'g-1' });
    expect(deadline).toBeGreaterThan(t0);
    expect(deadline).toBeLessThanOrEqual(performance.now() + PROMPT_READY_BUDGET_MS);
    expect(replies).toEqual([
      [token, [...prompt, { role: 'system', content: 'From the page.' }, { role: 'system', content: 'From a frame.' }], { warnings: ['The extension slow was skipped'] }],
    ]);
    expect(warn).toHaveBeenCalledWith('Hearth: The extension slow was skipped');
    warn.mockRestore();
  });

  it('runs the frames without a listener of the window’s own, and sends no warnings when there are none', async () => {
    const { host, h } = await open();
    const { replies } = answering(host);
    const f = frames(true, async (request) => ({ chat: request.chat, warnings: [] }));
    off = f.off;
    await h.api.generate.dryRun({ chatId: 'c1' });
    expect(f.asked[0]![0].dryRun).toBe(true);
    expect(replies).toEqual([[hooksSent(host, 'generate.dryRun').promptReady, null]]);
  });

  it('asks for no round trip when no frame hooks, or the frames cannot say', async () => {
    const { host, h } = await open();
    const f = frames(false, async () => {
      throw new Error('not asked');
    });
    off = f.off;
    await h.api.generate.start({ chatId: 'c1' });
    expect(hooksSent(host, 'generate.start')).toEqual({});
    f.off();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    off = frames(new Error('no list'), async () => ({ chat: [], warnings: [] })).off;
    await h.api.generate.start({ chatId: 'c1' });
    expect(hooksSent(host, 'generate.start')).toEqual({});
    expect(f.asked).toEqual([]);
    warn.mockRestore();
  });

  it('answers with what the listeners left when the frames’ hooks fail', async () => {
    const { host, h } = await open();
    const { replies } = answering(host);
    h.getContext().eventSource.on('chat_completion_prompt_ready', (arg) => void (arg as { chat: unknown[] }).chat.push({ role: 'user', content: 'page' }));
    off = frames(true, async () => {
      throw new Error('the bridge broke');
    }).off;
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    await h.api.generate.start({ chatId: 'c1' });
    expect(replies[0]![1]).toEqual([...prompt, { role: 'user', content: 'page' }]);
    expect(replies[0]).toHaveLength(2);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });
});

describe('clipWarning', () => {
  it('keeps a warning within the backend’s bytes', () => {
    expect(clipWarning('short')).toBe('short');
    const long = clipWarning('é'.repeat(HOOK_WARNING_BYTES));
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(HOOK_WARNING_BYTES);
    expect(long.endsWith('…')).toBe(true);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { createUndoKeys, createUndoSteps, isMacPlatform, keepsNativeUndo, shortcutAction, stepMessage, stepWords, type KeyLike, type StepOptions, type UndoAction } from './undo-keys';
import type { UndoStep } from '../../abi/types';

function key(init: Partial<KeyLike> & { key: string }): KeyLike & { prevented: boolean } {
  const e = {
    code: '',
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    altKey: false,
    target: { tagName: 'BODY', closest: () => null },
    prevented: false,
    preventDefault() {
      e.prevented = true;
    },
    ...init,
  };
  return e;
}

describe('shortcutAction', () => {
  it('reads Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y off macOS', () => {
    expect(shortcutAction(key({ key: 'z', ctrlKey: true }), false)).toBe('undo');
    expect(shortcutAction(key({ key: 'Z', ctrlKey: true, shiftKey: true }), false)).toBe('redo');
    expect(shortcutAction(key({ key: 'y', ctrlKey: true }), false)).toBe('redo');
    expect(shortcutAction(key({ key: 'z', metaKey: true }), false)).toBeNull();
    expect(shortcutAction(key({ key: 'z' }), false)).toBeNull();
    expect(shortcutAction(key({ key: 'z', ctrlKey: true, altKey: true }), false)).toBeNull();
    expect(shortcutAction(key({ key: 'x', ctrlKey: true }), false)).toBeNull();
  });
  it('reads ⌘Z and ⇧⌘Z on macOS, where ⌘Y and Ctrl+Z are something else', () => {
    expect(shortcutAction(key({ key: 'z', metaKey: true }), true)).toBe('undo');
    expect(shortcutAction(key({ key: 'z', metaKey: true, shiftKey: true }), true)).toBe('redo');
    expect(shortcutAction(key({ key: 'y', metaKey: true }), true)).toBeNull();
    expect(shortcutAction(key({ key: 'z', ctrlKey: true }), true)).toBeNull();
  });
  it('finds Z by its position on a non-Latin layout, and ignores composition', () => {
    expect(shortcutAction(key({ key: 'я', code: 'KeyZ', ctrlKey: true }), false)).toBe('undo');
    expect(shortcutAction(key({ key: 'z', ctrlKey: true, isComposing: true }), false)).toBeNull();
  });
});

describe('keepsNativeUndo', () => {
  const inDialog = (sel: string) => sel.includes('dialog');
  it('leaves text fields, editable content and dialogs alone', () => {
    expect(keepsNativeUndo({ tagName: 'TEXTAREA' })).toBe(true);
    expect(keepsNativeUndo({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(keepsNativeUndo({ tagName: 'INPUT', type: 'search' })).toBe(true);
    expect(keepsNativeUndo({ tagName: 'INPUT' })).toBe(true);
    expect(keepsNativeUndo({ tagName: 'DIV', isContentEditable: true })).toBe(true);
    expect(keepsNativeUndo({ tagName: 'BUTTON', closest: inDialog })).toBe(true);
  });
  it('takes the keys everywhere else', () => {
    expect(keepsNativeUndo({ tagName: 'BODY', closest: () => null })).toBe(false);
    expect(keepsNativeUndo({ tagName: 'BUTTON', closest: () => null })).toBe(false);
    expect(keepsNativeUndo({ tagName: 'INPUT', type: 'checkbox', closest: () => null })).toBe(false);
    expect(keepsNativeUndo(null)).toBe(false);
  });
});

describe('words', () => {
  it('says what a step did in words, never a method name', () => {
    expect(stepMessage('undo', { method: 'updateMessages' })).toBe('Edit undone');
    expect(stepMessage('redo', { method: 'updateMessages' })).toBe('Edit redone');
    expect(stepMessage('undo', { method: 'deleteMessages' })).toBe('Message restored');
    expect(stepMessage('undo', { method: 'commitReply' })).toBe('Reply removed');
    expect(stepMessage('redo', { method: 'commitReply' })).toBe('Reply restored');
    expect(stepMessage('undo', { method: 'deleteSwipe' })).toBe('Reply version restored');
    expect(stepMessage('redo', { method: 'deleteSwipe' })).toBe('Reply version deleted again');
    expect(stepMessage('undo', { method: 'someFutureWrite' })).toBe('Change undone');
    expect(stepMessage('undo', { method: 'toString' })).toBe('Change undone');
  });
  it('has sentence-case words for every write, done, undone and redone', () => {
    for (const m of ['addMessages', 'appendMessage', 'updateMessages', 'updateMessage', 'deleteMessages', 'deleteMessage', 'commitReply', 'setMessagesHidden', 'swipe', 'addSwipe', 'deleteSwipe', 'saveMetadata', 'patch', 'revert', 'createCheckpoint', 'createBranch']) {
      for (const phrase of Object.values(stepWords(m))) {
        expect(phrase).toMatch(/^[A-Z][a-z]+( [a-z]+)*$/);
        if (/[A-Z]/.test(m)) expect(phrase.toLowerCase()).not.toContain(m.toLowerCase());
      }
    }
    expect(stepWords('deleteMessages').done).toBe('Message deleted');
  });
  it('knows macOS', () => {
    expect(isMacPlatform({ platform: 'MacIntel' })).toBe(true);
    expect(isMacPlatform({ userAgentData: { platform: 'macOS' } })).toBe(true);
    expect(isMacPlatform({ platform: 'Linux x86_64' })).toBe(false);
  });
});

describe('createUndoKeys', () => {
  function rig(chatId: string | null, step: (action: UndoAction, options?: StepOptions) => Promise<UndoStep>) {
    const notices = { info: vi.fn(), error: vi.fn() };
    const calls: [UndoAction, string, StepOptions | undefined][] = [];
    const steps = createUndoSteps({
      step: (action, id, options) => {
        calls.push([action, id, options]);
        return step(action, options);
      },
      notices,
    });
    const keys = createUndoKeys({ chatId: () => chatId, steps, mac: false });
    return { keys, steps, notices, calls };
  }

  it('steps through the history in the order pressed and says what it did', async () => {
    const order: string[] = [];
    let n = 0;
    const { keys, steps, notices, calls } = rig('c1', async (action) => {
      const mine = ++n;
      await new Promise((r) => setTimeout(r, mine === 1 ? 20 : 0));
      order.push(`${action}${mine}`);
      return { revision: 10 + mine, method: mine === 2 ? 'deleteMessages' : 'updateMessages', undoneRevision: 3 };
    });
    const a = key({ key: 'z', ctrlKey: true });
    keys.onKeydown(a);
    keys.onKeydown(key({ key: 'z', ctrlKey: true }));
    keys.onKeydown(key({ key: 'y', ctrlKey: true }));
    await steps.idle();
    expect(a.prevented).toBe(true);
    expect(calls).toEqual([
      ['undo', 'c1', undefined],
      ['undo', 'c1', undefined],
      ['redo', 'c1', undefined],
    ]);
    expect(order).toEqual(['undo1', 'undo2', 'redo3']);
    expect(notices.info.mock.calls.map((c) => c[0])).toEqual(['Edit undone', 'Message restored', 'Edit redone']);
  });

  it('leaves keys typed into the composer to the composer', async () => {
    const { keys, steps, calls } = rig('c1', async () => ({ revision: 1, method: 'x' }));
    const e = key({ key: 'z', ctrlKey: true, target: { tagName: 'TEXTAREA' } });
    keys.onKeydown(e);
    await steps.idle();
    expect(calls).toEqual([]);
    expect(e.prevented).toBe(false);
  });

  it('does nothing without an open chat', async () => {
    const { keys, steps, calls } = rig(null, async () => ({ revision: 1, method: 'x' }));
    const e = key({ key: 'z', ctrlKey: true });
    keys.onKeydown(e);
    await steps.idle();
    expect(calls).toEqual([]);
    expect(e.prevented).toBe(false);
  });

  it('reports an empty history as a notice and a refusal as an error', async () => {
    const nothing = Object.assign(new Error('nothing to undo'), { code: 'undo.nothing' });
    const conflict = Object.assign(new Error('cannot undo revision 4'), { code: 'chat.conflict' });
    let fail: Error = nothing;
    const { keys, steps, notices } = rig('c1', async () => {
      throw fail;
    });
    keys.onKeydown(key({ key: 'z', ctrlKey: true }));
    await steps.idle();
    keys.onKeydown(key({ key: 'z', ctrlKey: true, shiftKey: true }));
    await steps.idle();
    fail = conflict;
    keys.onKeydown(key({ key: 'z', ctrlKey: true }));
    await steps.idle();
    expect(notices.info.mock.calls.map((c) => c[0])).toEqual(['Nothing to undo', 'Nothing to redo']);
    expect(notices.error).toHaveBeenCalledWith(conflict, 'Could not undo');
  });
});

describe('createUndoSteps', () => {
  it('passes ifRevision on, and says in words when the chat moved on since', async () => {
    const notices = { info: vi.fn(), error: vi.fn() };
    const seen: (StepOptions | undefined)[] = [];
    const steps = createUndoSteps({
      step: async (_action, _chatId, options) => {
        seen.push(options);
        throw Object.assign(new Error('chat is at revision 9, not 8'), { code: 'chat.conflict', details: { currentRevision: 9, expectedRevision: 8 } });
      },
      notices,
    });
    await steps.run('undo', 'c1', { ifRevision: 8 });
    expect(seen).toEqual([{ ifRevision: 8 }]);
    const [err, context] = notices.error.mock.calls[0]!;
    expect(context).toBe('Could not undo');
    expect((err as { message: string }).message).toMatch(/the chat has changed since/);
    expect((err as { message: string }).message).not.toMatch(/revision/);
  });
});

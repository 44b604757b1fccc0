import { describe, expect, it, vi } from 'vitest';
import { createUndoKeys, isMacPlatform, keepsNativeUndo, shortcutAction, stepLabel, stepMessage, type KeyLike, type UndoAction } from './undo-keys';
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

describe('labels', () => {
  it('names writes in words', () => {
    expect(stepMessage('undo', { method: 'updateMessages' })).toBe('Undone: edit message');
    expect(stepMessage('redo', { method: 'deleteSwipe' })).toBe('Redone: delete swipe');
    expect(stepLabel('someFutureWrite')).toBe('some future write');
  });
  it('knows macOS', () => {
    expect(isMacPlatform({ platform: 'MacIntel' })).toBe(true);
    expect(isMacPlatform({ userAgentData: { platform: 'macOS' } })).toBe(true);
    expect(isMacPlatform({ platform: 'Linux x86_64' })).toBe(false);
  });
});

describe('createUndoKeys', () => {
  function rig(chatId: string | null, step: (action: UndoAction) => Promise<UndoStep>) {
    const notices = { info: vi.fn(), error: vi.fn() };
    const calls: [UndoAction, string][] = [];
    const keys = createUndoKeys({
      chatId: () => chatId,
      step: (action, id) => {
        calls.push([action, id]);
        return step(action);
      },
      notices,
      mac: false,
    });
    return { keys, notices, calls };
  }

  it('steps through the history in the order pressed and says what it did', async () => {
    const order: string[] = [];
    let n = 0;
    const { keys, notices, calls } = rig('c1', async (action) => {
      const mine = ++n;
      await new Promise((r) => setTimeout(r, mine === 1 ? 20 : 0));
      order.push(`${action}${mine}`);
      return { revision: 10 + mine, method: mine === 2 ? 'deleteMessages' : 'updateMessages', undoneRevision: 3 };
    });
    const a = key({ key: 'z', ctrlKey: true });
    keys.onKeydown(a);
    keys.onKeydown(key({ key: 'z', ctrlKey: true }));
    keys.onKeydown(key({ key: 'y', ctrlKey: true }));
    await keys.idle();
    expect(a.prevented).toBe(true);
    expect(calls).toEqual([
      ['undo', 'c1'],
      ['undo', 'c1'],
      ['redo', 'c1'],
    ]);
    expect(order).toEqual(['undo1', 'undo2', 'redo3']);
    expect(notices.info.mock.calls.map((c) => c[0])).toEqual(['Undone: edit message', 'Undone: delete message', 'Redone: edit message']);
  });

  it('leaves keys typed into the composer to the composer', async () => {
    const { keys, calls } = rig('c1', async () => ({ revision: 1, method: 'x' }));
    const e = key({ key: 'z', ctrlKey: true, target: { tagName: 'TEXTAREA' } });
    keys.onKeydown(e);
    await keys.idle();
    expect(calls).toEqual([]);
    expect(e.prevented).toBe(false);
  });

  it('does nothing without an open chat', async () => {
    const { keys, calls } = rig(null, async () => ({ revision: 1, method: 'x' }));
    const e = key({ key: 'z', ctrlKey: true });
    keys.onKeydown(e);
    await keys.idle();
    expect(calls).toEqual([]);
    expect(e.prevented).toBe(false);
  });

  it('reports an empty history as a notice and a refusal as an error', async () => {
    const nothing = Object.assign(new Error('nothing to undo'), { code: 'undo.nothing' });
    const conflict = Object.assign(new Error('cannot undo revision 4'), { code: 'chat.conflict' });
    let fail: Error = nothing;
    const { keys, notices } = rig('c1', async () => {
      throw fail;
    });
    keys.onKeydown(key({ key: 'z', ctrlKey: true }));
    await keys.idle();
    keys.onKeydown(key({ key: 'z', ctrlKey: true, shiftKey: true }));
    await keys.idle();
    fail = conflict;
    keys.onKeydown(key({ key: 'z', ctrlKey: true }));
    await keys.idle();
    expect(notices.info.mock.calls.map((c) => c[0])).toEqual(['Nothing to undo', 'Nothing to redo']);
    expect(notices.error).toHaveBeenCalledWith(conflict, 'Could not undo');
  });
});

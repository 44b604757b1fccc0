import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatSummary } from '../../abi/types';
import { chatName, downloadText, exportChat, importChatFile, MAX_IMPORT_BYTES, NAME_TRIES, type ChatFiles } from './chatfile';

function hostError(code: string, message = code): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** fakeChat is api.chat's file methods with spies; importJsonl refuses the names in taken. */
function fakeChat(taken: string[] = []) {
  const imported: { owner: unknown; fileName?: string; text: string }[] = [];
  const chat = {
    exportJsonl: vi.fn(async (chatId: string) => ({ fileName: `${chatId}.jsonl`, text: '{"chat_metadata":{}}\n{"mes":"hi"}' })),
    saveJsonl: vi.fn(async () => ({ saved: true, path: '/home/u/chat.jsonl' })),
    importJsonl: vi.fn(async (owner: unknown, file: { fileName?: string; text: string }) => {
      if (file.fileName && taken.includes(file.fileName)) throw hostError('chat.name_taken');
      imported.push({ owner, ...file });
      return { chatId: 'new', fileName: file.fileName } as ChatSummary;
    }),
  };
  return { chat: chat as unknown as ChatFiles & typeof chat, imported };
}

function picked(name: string, text: string, size = text.length) {
  return { name, size, text: vi.fn(async () => text) };
}

afterEach(() => vi.useRealTimers());

describe('chatName', () => {
  it('strips .jsonl and numbers later attempts', () => {
    expect(chatName('Seraphina - 2025-03-01@18h04m12s.jsonl')).toBe('Seraphina - 2025-03-01@18h04m12s');
    expect(chatName('Evening.JSONL', 2)).toBe('Evening (2)');
    expect(chatName('notes.txt')).toBe('notes.txt');
  });
  it('replaces characters the host refuses and never comes out empty', () => {
    expect(chatName('a/b:c*d?"e"<f>|g\u0007.jsonl')).toBe('a_b_c_d__e__f__g_');
    expect(chatName('   .jsonl')).toBe('Imported chat');
    expect(chatName('.jsonl', 3)).toBe('Imported chat (3)');
  });
  it('cuts long names on character boundaries to fit the host limit', () => {
    const name = chatName('猫'.repeat(100) + '.jsonl');
    expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(180);
    expect(name).toBe('猫'.repeat(60));
    expect(new TextEncoder().encode(chatName('x'.repeat(500), 12)).length).toBeLessThanOrEqual(200);
  });
});

describe('exportChat', () => {
  it('downloads the exported file in a browser', async () => {
    const { chat } = fakeChat();
    const download = vi.fn();
    await expect(exportChat(chat, 'c1', { desktop: false, download })).resolves.toEqual({ kind: 'downloaded', fileName: 'c1.jsonl' });
    expect(download).toHaveBeenCalledWith('c1.jsonl', '{"chat_metadata":{}}\n{"mes":"hi"}');
    expect(chat.saveJsonl).not.toHaveBeenCalled();
  });
  it('uses the Save dialog in the desktop window', async () => {
    const { chat } = fakeChat();
    await expect(exportChat(chat, 'c1', { desktop: true })).resolves.toEqual({ kind: 'saved', path: '/home/u/chat.jsonl' });
    expect(chat.saveJsonl).toHaveBeenCalledWith('c1');
    expect(chat.exportJsonl).not.toHaveBeenCalled();
    chat.saveJsonl.mockResolvedValueOnce({ saved: false, path: null } as never);
    await expect(exportChat(chat, 'c1', { desktop: true })).resolves.toEqual({ kind: 'cancelled' });
  });
  it('passes host errors on', async () => {
    const { chat } = fakeChat();
    chat.exportJsonl.mockRejectedValueOnce(hostError('chat.not_found'));
    await expect(exportChat(chat, 'gone', { desktop: false, download: vi.fn() })).rejects.toMatchObject({ code: 'chat.not_found' });
  });
});

describe('downloadText', () => {
  it('clicks a hidden download link to a blob of the text, then revokes it', async () => {
    vi.useFakeTimers();
    const anchor = { href: '', download: '', rel: '', hidden: false, click: vi.fn(), remove: vi.fn() };
    const doc = { createElement: vi.fn(() => anchor), body: { append: vi.fn() } } as unknown as Document;
    const created: Blob[] = [];
    const create = vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      created.push(b as Blob);
      return 'blob:test/1';
    });
    const revoke = vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    try {
      downloadText('Seraphina.jsonl', 'a\nb', doc);
      expect(anchor).toMatchObject({ href: 'blob:test/1', download: 'Seraphina.jsonl', hidden: true });
      expect(anchor.click).toHaveBeenCalledOnce();
      expect(anchor.remove).toHaveBeenCalledOnce();
      expect(await created[0]!.text()).toBe('a\nb');
      expect(revoke).not.toHaveBeenCalled();
      vi.advanceTimersByTime(60_000);
      expect(revoke).toHaveBeenCalledWith('blob:test/1');
    } finally {
      create.mockRestore();
      revoke.mockRestore();
    }
  });
});

describe('importChatFile', () => {
  it('imports the file under its name', async () => {
    const { chat, imported } = fakeChat();
    const sum = await importChatFile(chat, 'Seraphina.png', picked('Evening.jsonl', '{"mes":"hi"}'));
    expect(sum.fileName).toBe('Evening');
    expect(imported).toEqual([{ owner: { avatar: 'Seraphina.png' }, fileName: 'Evening', text: '{"mes":"hi"}' }]);
  });
  it('numbers the name while it is taken', async () => {
    const { chat, imported } = fakeChat(['Evening', 'Evening (2)']);
    await expect(importChatFile(chat, 'S.png', picked('Evening.jsonl', 'x'))).resolves.toMatchObject({ fileName: 'Evening (3)' });
    expect(chat.importJsonl).toHaveBeenCalledTimes(3);
    expect(imported.map((i) => i.fileName)).toEqual(['Evening (3)']);
  });
  it('gives up after NAME_TRIES taken names', async () => {
    const { chat } = fakeChat(Array.from({ length: NAME_TRIES }, (_, i) => chatName('E.jsonl', i + 1)));
    await expect(importChatFile(chat, 'S.png', picked('E.jsonl', 'x'))).rejects.toMatchObject({ code: 'chat.name_taken' });
    expect(chat.importJsonl).toHaveBeenCalledTimes(NAME_TRIES);
  });
  it("passes a malformed file's error on, naming its line", async () => {
    const { chat } = fakeChat();
    chat.importJsonl.mockRejectedValueOnce(hostError('validation.invalid_argument', 'line 7: message is not valid JSON'));
    await expect(importChatFile(chat, 'S.png', picked('Bad.jsonl', 'x'))).rejects.toMatchObject({
      code: 'validation.invalid_argument',
      message: 'line 7: message is not valid JSON',
    });
    expect(chat.importJsonl).toHaveBeenCalledOnce();
  });
  it('refuses a file larger than any request before reading it', async () => {
    const { chat } = fakeChat();
    const file = picked('Huge.jsonl', '', MAX_IMPORT_BYTES + 1);
    await expect(importChatFile(chat, 'S.png', file)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(file.text).not.toHaveBeenCalled();
    expect(chat.importJsonl).not.toHaveBeenCalled();
  });
});

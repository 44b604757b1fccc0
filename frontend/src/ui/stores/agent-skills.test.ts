import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { HearthAbi } from '../../abi/types';
import { createSkillStore } from './agent-skills';
import { createConfirm } from './confirm';
import { createToasts } from './toasts';

const flush = () => new Promise((r) => setTimeout(r, 0));

function hostError(code: string, message = code) {
  return Object.assign(new Error(message), { code });
}

/** fake is the part of the ABI the store uses: api.agent.skills. */
function fake() {
  const installed: { name: string; description: string; path: string; bytes: number }[] = [];
  const skills = {
    list: vi.fn(async () => ({ skills: [...installed], problems: [{ dir: 'broken', message: 'SKILL.md has no name' }] })),
    read: vi.fn(),
    install: vi.fn(async ({ replace }: { files: unknown[]; replace?: boolean }) => {
      if (installed.length > 0 && !replace) throw hostError('skill.exists', 'a skill named tone exists');
      installed.splice(0, installed.length, { name: 'tone', description: 'Warm replies.', path: 'tone/SKILL.md', bytes: 40 });
      return installed[0];
    }),
  };
  return { skills, hearth: { api: { agent: { skills } } } as unknown as HearthAbi };
}

describe('skill store', () => {
  it('installs a picked folder, lists it with the problem folders, and replaces only when confirmed', async () => {
    const { skills, hearth } = fake();
    const toasts = createToasts();
    const confirm = createConfirm();
    const store = createSkillStore(hearth, toasts, confirm);
    const files = [{ path: 'tone/SKILL.md', data: '---\nname: tone\n---\n' }];

    expect(await store.install(files)).toMatchObject({ name: 'tone' });
    expect(get(store.skills).map((s) => s.name)).toEqual(['tone']);
    expect(get(store.problems)).toEqual([{ dir: 'broken', message: 'SKILL.md has no name' }]);
    expect(get(toasts).at(-1)?.message).toMatch(/Installed the skill “tone”/);

    // Same name again: the person is asked; No leaves the library alone.
    const declined = store.install(files);
    await flush();
    expect(get(confirm)?.title).toBe('Replace skill');
    confirm.answer(false);
    expect(await declined).toBeNull();
    expect(skills.install).toHaveBeenCalledTimes(2);

    const accepted = store.install(files);
    await flush();
    confirm.answer(true);
    expect(await accepted).toMatchObject({ name: 'tone' });
    expect(skills.install).toHaveBeenLastCalledWith({ files, replace: true });
    expect(get(store.installing)).toBe(false);
  });

  it('shows a refused folder as a toast and nothing else', async () => {
    const { skills, hearth } = fake();
    skills.install.mockRejectedValueOnce(hostError('skill.invalid', 'cannot install this skill: the folder has no SKILL.md'));
    const toasts = createToasts();
    const store = createSkillStore(hearth, toasts, createConfirm());
    expect(await store.install([{ path: 'x/readme.md', data: 'hi' }])).toBeNull();
    expect(get(toasts).at(-1)).toMatchObject({ kind: 'error', code: 'skill.invalid' });
    expect(await store.install([])).toBeNull();
    expect(skills.install).toHaveBeenCalledTimes(1);
  });
});

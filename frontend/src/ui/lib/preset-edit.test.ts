import { describe, expect, it } from 'vitest';
import type { Preset, PresetItem } from '../../abi/types';
import { describeItem, escapeStop, fromForm, isFormError, moveItem, newItem, rangeText, SAMPLERS, toForm, unescapeStop } from './preset-edit';

function item(identifier: string, fields: Partial<PresetItem> = {}): PresetItem {
  return { identifier, name: identifier, enabled: true, role: 'system', content: '', marker: false, inChat: false, depth: 0, ...fields };
}

const base: Preset = {
  id: 'p1',
  name: 'Mine',
  sampling: { temperature: 0.8, topP: null, topK: 40, minP: null, frequencyPenalty: 0, presencePenalty: null, repetitionPenalty: null, maxTokens: 400, stop: ['\nUser:', 'a\\b'], seed: null, reasoningEffort: 'low' },
  maxContext: 16384,
  prompts: [item('main', { content: 'Be {{char}}.' }), item('chatHistory', { marker: true })],
  mergeConsecutive: true,
  namesInHistory: false,
  continuePrefill: false,
  continueNudge: 'n',
  impersonationPrompt: 'i',
  newChatPrompt: '',
  exampleSeparator: 'e',
};

describe('preset form', () => {
  it('goes to the form and back unchanged', () => {
    const f = toForm(base);
    expect(f.samplers.temperature).toBe('0.8');
    expect(f.samplers.topP).toBe('');
    expect(f.stop).toBe('\\nUser:\na\\\\b');
    const back = fromForm(f);
    expect(back).toEqual({ ...base, sampling: { ...base.sampling } });
  });

  it('keeps the group texts through the form, an emptied one too', () => {
    const withGroup: Preset = { ...base, groupNudge: '[Only as {{char}}.]', newGroupChatPrompt: '[Group start]' };
    expect(fromForm(toForm(withGroup))).toEqual({ ...withGroup, sampling: { ...base.sampling } });
    const f = toForm(withGroup);
    f.groupNudge = '';
    expect(fromForm(f)).toMatchObject({ groupNudge: '', newGroupChatPrompt: '[Group start]' });
  });

  it('makes a copy without the id, and blank samplers null', () => {
    const f = toForm(base, true);
    f.samplers.temperature = ' ';
    f.seed = '42';
    const out = fromForm(f);
    if (isFormError(out)) throw new Error(out.message);
    expect(out.id).toBeUndefined();
    expect(out.sampling?.temperature).toBeNull();
    expect(out.sampling?.seed).toBe(42);
  });

  it('says which field is wrong', () => {
    const cases: [Partial<ReturnType<typeof toForm>>, string][] = [
      [{ name: '  ' }, 'name'],
      [{ samplers: { ...toForm(base).samplers, temperature: '2.5' } }, 'temperature'],
      [{ samplers: { ...toForm(base).samplers, topK: '4.5' } }, 'topK'],
      [{ samplers: { ...toForm(base).samplers, minP: 'abc' } }, 'minP'],
      [{ maxContext: '100' }, 'maxContext'],
      [{ maxTokens: '' }, 'maxTokens'],
      [{ maxContext: '1000', maxTokens: '1000' }, 'maxContext'],
      [{ seed: '1.5' }, 'seed'],
      [{ stop: Array.from({ length: 17 }, (_, i) => `s${i}`).join('\n') }, 'stop'],
    ];
    for (const [patch, field] of cases) {
      const out = fromForm({ ...toForm(base), ...patch });
      expect(isFormError(out) ? out.field : 'accepted').toBe(field);
    }
  });

  it('shows ranges', () => {
    expect(SAMPLERS.map(rangeText)).toEqual(['0–2', '0–1', '0–1000', '0–1', '−2 to 2', '−2 to 2', '0–3']);
  });

  it('escapes stop strings to one line each', () => {
    for (const s of ['\n', 'a\\nb', '\\', 'x\ny\\z']) expect(unescapeStop(escapeStop(s))).toBe(s);
  });
});

describe('prompt order edits', () => {
  it('moves an item and stops at the ends', () => {
    const items = ['a', 'b', 'c'];
    expect(moveItem(items, 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveItem(items, 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveItem(items, 0, -1)).toEqual(items);
    expect(moveItem(items, 2, 1)).toEqual(items);
    expect(items).toEqual(['a', 'b', 'c']);
  });

  it('adds a custom prompt under a free identifier', () => {
    const ids = ['taken', 'free'];
    const it = newItem([item('custom-taken')], () => ids.shift() ?? 'x');
    expect(it.identifier).toBe('custom-free');
    expect(it.enabled).toBe(true);
  });

  it('describes an item', () => {
    expect(describeItem(item('chatHistory', { marker: true }))).toBe('Slot · the chat’s messages');
    expect(describeItem(item('somethingNew', { marker: true }))).toBe('Slot · left empty by this version of Hearth');
    expect(describeItem(item('x', { role: 'user', inChat: true, depth: 2 }))).toBe('user · in chat at depth 2');
    expect(describeItem(item('x', { content: 'three little words' }))).toBe('system · 3 words');
  });
});

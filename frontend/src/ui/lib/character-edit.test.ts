import { describe, expect, it } from 'vitest';
import type { Character } from '../../abi/types';
import {
  addGreeting,
  addTags,
  fieldOfError,
  mergePatch,
  moveGreeting,
  removeGreeting,
  removeTag,
  sameForm,
  tabsChanged,
  toForm,
  toSave,
  validate,
  type CharacterForm,
} from './character-edit';

const card: Character = {
  avatar: 'Seraphina.png',
  name: 'Seraphina',
  description: 'A guardian.',
  personality: 'caring',
  scenario: 'A glade.',
  first_mes: 'Welcome.',
  mes_example: '<START>',
  creator_notes: 'notes',
  system_prompt: '',
  post_history_instructions: '',
  alternate_greetings: ['Oh! A visitor.', 'You are awake.'],
  tags: ['fantasy', 'healer'],
  creator: 'me',
  character_version: '1.2',
  extensions: {
    talkativeness: '0.5',
    world: "Seraphina's Glade",
    depth_prompt: { prompt: 'Protective.', depth: 4, role: 'system', x_extra: 1 },
    my_extension: { nested: { ratio: 1.5, list: [1000, null, true] } },
    regex_scripts: [{ scriptName: 'trim' }],
  },
  character_book: { name: 'kept' },
  createdAt: 1,
  updatedAt: 2,
  hasImage: true,
};

function edited(change: (f: CharacterForm) => void, base: Character | null = card): CharacterForm {
  const f = toForm(base);
  change(f);
  return f;
}

describe('character form', () => {
  it('reads every field of a card', () => {
    const f = toForm(card);
    expect(f.text.name).toBe('Seraphina');
    expect(f.text.character_version).toBe('1.2');
    expect(f.greetings.map((g) => g.text)).toEqual(['Oh! A visitor.', 'You are awake.']);
    expect(f.tags).toEqual(['fantasy', 'healer']);
    expect(f.talkativeness).toBe('0.5');
    expect(f.depthPrompt).toEqual({ prompt: 'Protective.', depth: '4', role: 'system' });
    expect(f.world).toBe("Seraphina's Glade");
    expect(JSON.parse(f.extensionsText)).toEqual({ my_extension: card.extensions.my_extension, regex_scripts: [{ scriptName: 'trim' }] });
  });

  it('gives a new card SillyTavern’s defaults', () => {
    const f = toForm(null);
    expect(f.text.name).toBe('');
    expect(f.talkativeness).toBe('0.5');
    expect(f.depthPrompt).toEqual({ prompt: '', depth: '4', role: 'system' });
    expect(f.extensionsText).toBe('{}');
    expect(f.world).toBe('');
  });

  it('reads odd values without failing', () => {
    const f = toForm({ name: 'X', tags: 'a' as unknown as string[], extensions: { talkativeness: 'lots', depth_prompt: { role: 'narrator' } } });
    expect(f.tags).toEqual([]);
    expect(f.talkativeness).toBe('0.5');
    expect(f.depthPrompt.role).toBe('system');
  });

  it('an untouched form saves nothing', () => {
    const call = toSave(toForm(card), card);
    expect(call).toEqual({ kind: 'update', patch: {} });
    expect(sameForm(toForm(card), toForm(card))).toBe(true);
  });

  it('sends only the fields that changed', () => {
    const f = edited((f) => {
      f.text.scenario = 'A glade at dusk.';
      f.text.name = '  Sera  ';
    });
    expect(toSave(f, card)).toEqual({ kind: 'update', patch: { scenario: 'A glade at dusk.', name: 'Sera' } });
    expect([...tabsChanged(toForm(card), f)].sort()).toEqual(['basics', 'prompting']);
  });

  it('sends the whole greeting list and tag list when they change', () => {
    const f = edited((f) => {
      f.greetings = moveGreeting(f.greetings, 1, -1);
      f.tags = addTags(f.tags, 'elf');
    });
    expect(toSave(f, card)).toEqual({ kind: 'update', patch: { alternate_greetings: ['You are awake.', 'Oh! A visitor.'], tags: ['fantasy', 'healer', 'elf'] } });
  });

  it('patches extensions as deep-merge patches, keeping the type of talkativeness', () => {
    const f = edited((f) => {
      f.talkativeness = '0.8';
      f.depthPrompt.depth = '2';
      f.world = '';
      const other = JSON.parse(f.extensionsText);
      other.my_extension.nested.list = [1];
      other.added = { on: true };
      f.extensionsText = JSON.stringify(other);
    });
    expect(toSave(f, card)).toEqual({
      kind: 'update',
      patch: {
        extensions: {
          talkativeness: '0.8',
          depth_prompt: { prompt: 'Protective.', depth: 2, role: 'system' },
          world: '',
          my_extension: { nested: { list: [1] } },
          added: { on: true },
        },
      },
    });
  });

  it('sends a numeric talkativeness when the card had a number or none', () => {
    const numeric = { ...card, extensions: { talkativeness: 0.5 } };
    expect(toSave(edited((f) => (f.talkativeness = '1'), numeric), numeric)).toEqual({ kind: 'update', patch: { extensions: { talkativeness: 1 } } });
  });

  it('creates with the fields filled in, the defaults and the picture', () => {
    const f = edited((f) => {
      f.text.name = ' Ada ';
      f.text.description = 'An engineer.';
      f.greetings = addGreeting(f.greetings);
      f.greetings[0]!.text = 'Hi.';
      f.image = 'data:image/png;base64,AAAA';
    }, null);
    expect(toSave(f, null)).toEqual({
      kind: 'create',
      fields: {
        name: 'Ada',
        description: 'An engineer.',
        alternate_greetings: ['Hi.'],
        extensions: { talkativeness: 0.5, depth_prompt: { prompt: '', depth: 4, role: 'system' } },
      },
      image: 'data:image/png;base64,AAAA',
    });
  });

  it('puts a new picture in the update patch', () => {
    expect(toSave(edited((f) => (f.image = 'data:image/png;base64,AAAA')), card)).toEqual({ kind: 'update', patch: { image: 'data:image/png;base64,AAAA' } });
  });
});

describe('validate', () => {
  it('accepts an untouched card', () => {
    expect(validate(toForm(card), card)).toEqual([]);
  });

  it('names each refused field', () => {
    const f = edited((f) => {
      f.text.name = '   ';
      f.talkativeness = '1.5';
      f.depthPrompt.depth = '2.5';
      f.extensionsText = '{ nope';
    });
    expect(validate(f, card).map((e) => e.field)).toEqual(['name', 'talkativeness', 'depth_prompt.depth', 'extensions']);
  });

  it('refuses extensions that are no object or set a managed key', () => {
    expect(validate(edited((f) => (f.extensionsText = '[1]')), card)[0]?.message).toMatch(/JSON object/);
    expect(validate(edited((f) => (f.extensionsText = '{"world": "x"}')), null)[0]?.message).toMatch(/world/);
  });

  it('refuses taking a key out of extensions, naming its path', () => {
    const f = edited((f) => {
      const other = JSON.parse(f.extensionsText);
      delete other.regex_scripts;
      delete other.my_extension.nested.ratio;
      f.extensionsText = JSON.stringify(other);
    });
    const err = validate(f, card)[0]!;
    expect(err.field).toBe('extensions');
    expect(err.message).toContain('regex_scripts');
    expect(err.message).toContain('my_extension.nested.ratio');
  });

  it('takes a blank extensions box as {}', () => {
    expect(validate(edited((f) => (f.extensionsText = '  ')), null)).toEqual([]);
  });
});

describe('mergePatch', () => {
  it('replaces arrays and scalars, recurses into objects', () => {
    expect(mergePatch({ a: { b: 1, c: [1] }, d: 1 }, { a: { b: 1, c: [2] }, d: { e: 1 } })).toEqual({ patch: { a: { c: [2] }, d: { e: 1 } }, removed: [] });
  });
  it('reports removed keys', () => {
    expect(mergePatch({ a: { b: 1 }, c: 2 }, { a: {} }).removed).toEqual(['c', 'a.b']);
  });
});

describe('list edits', () => {
  it('adds, removes and moves greetings, keeping their keys', () => {
    let list = addGreeting(addGreeting([]));
    list[0]!.text = 'one';
    list[1]!.text = 'two';
    const keys = list.map((g) => g.key);
    expect(new Set(keys).size).toBe(2);
    list = moveGreeting(list, 0, 1);
    expect(list.map((g) => g.text)).toEqual(['two', 'one']);
    expect(list.map((g) => g.key)).toEqual([keys[1], keys[0]]);
    expect(moveGreeting(list, 1, 1).map((g) => g.text)).toEqual(['two', 'one']);
    expect(moveGreeting(list, 0, -1).map((g) => g.text)).toEqual(['two', 'one']);
    expect(removeGreeting(list, 0).map((g) => g.text)).toEqual(['one']);
  });

  it('adds comma-separated tags once each, case aside', () => {
    expect(addTags(['Fantasy'], ' fantasy, elf ,, dark  elf ')).toEqual(['Fantasy', 'elf', 'dark elf']);
    expect(removeTag(['a', 'b'], 0)).toEqual(['b']);
  });
});

describe('fieldOfError', () => {
  it('finds the field a host error names', () => {
    expect(fieldOfError({ code: 'validation.invalid_argument', message: 'name must not be empty' })).toBe('name');
    expect(fieldOfError({ code: 'validation.invalid_argument', message: 'image must be PNG, JPEG, WebP or GIF' })).toBe('image');
    expect(fieldOfError({ code: 'validation.invalid_argument', message: 'alternate_greetings must be an array of strings' })).toBe('alternate_greetings');
    expect(fieldOfError({ code: 'validation.invalid_argument', message: 'the card would nest deeper than 64 levels' })).toBe('extensions');
    expect(fieldOfError({ code: 'x', message: 'whatever', details: { path: '/data/description' } })).toBe('description');
    expect(fieldOfError({ code: 'x', message: 'whatever', details: { field: 'depth_prompt.depth' } })).toBe('depth_prompt');
  });
  it('finds none in other errors', () => {
    expect(fieldOfError({ code: 'character.not_found', message: 'no character with avatar "x"' })).toBe(null);
    expect(fieldOfError('boom')).toBe(null);
    expect(fieldOfError(new Error('namespace gone'))).toBe(null);
  });
});

// The presets dialog's form: a preset as editable strings and back, the
// sampler fields with the ranges the host enforces (shown as hints and
// checked before saving, so a mistake shows beside its field), and the
// prompt-order edits (move, add, remove).
import type { Preset, PresetInput, PresetItem, Sampling } from '../../abi/types';

type NumericSampler = 'temperature' | 'topP' | 'topK' | 'minP' | 'frequencyPenalty' | 'presencePenalty' | 'repetitionPenalty';

/** A sampler's input: its label, range and step; blank means the provider's default. */
export interface SamplerField {
  key: NumericSampler;
  label: string;
  min: number;
  max: number;
  step: number;
  integer?: boolean;
}

/** SAMPLERS are the numeric samplers, with the host's ranges (backend/presets). */
export const SAMPLERS: readonly SamplerField[] = [
  { key: 'temperature', label: 'Temperature', min: 0, max: 2, step: 0.01 },
  { key: 'topP', label: 'Top P', min: 0, max: 1, step: 0.01 },
  { key: 'topK', label: 'Top K', min: 0, max: 1000, step: 1, integer: true },
  { key: 'minP', label: 'Min P', min: 0, max: 1, step: 0.01 },
  { key: 'frequencyPenalty', label: 'Frequency penalty', min: -2, max: 2, step: 0.01 },
  { key: 'presencePenalty', label: 'Presence penalty', min: -2, max: 2, step: 0.01 },
  { key: 'repetitionPenalty', label: 'Repetition penalty', min: 0, max: 3, step: 0.01 },
];

/** rangeText shows a sampler's range ("0–2", "−2 to 2"). */
export function rangeText(f: SamplerField): string {
  const n = (v: number) => String(v).replace('-', '−');
  return f.min < 0 ? `${n(f.min)} to ${n(f.max)}` : `${n(f.min)}–${n(f.max)}`;
}

/** Ranges of the budgets (tokens). */
export const MAX_CONTEXT = { min: 512, max: 4_000_000 } as const;
export const MAX_TOKENS = { min: 0, max: 1_000_000 } as const;
export const MAX_STOPS = 16;

/** The identifiers of the built-in prompt-order slots; only other items can be removed. */
export const BUILTIN_ITEMS: ReadonlySet<string> = new Set([
  'main', 'worldInfoBefore', 'personaDescription', 'charDescription', 'charPersonality', 'scenario',
  'enhanceDefinitions', 'nsfw', 'worldInfoAfter', 'dialogueExamples', 'chatHistory', 'jailbreak',
]);

/** PresetForm is a preset as the dialog edits it: numbers as the strings typed. */
export interface PresetForm {
  id: string | null;
  name: string;
  samplers: Record<NumericSampler, string>;
  maxContext: string;
  maxTokens: string;
  seed: string;
  reasoningEffort: Sampling['reasoningEffort'];
  /** One stop string per line; \n and \\ are escapes. */
  stop: string;
  prompts: PresetItem[];
  mergeConsecutive: boolean;
  namesInHistory: boolean;
  continuePrefill: boolean;
  continueNudge: string;
  impersonationPrompt: string;
  newChatPrompt: string;
  exampleSeparator: string;
  /** The group texts; absent only when the preset came without them (the host always sends them). */
  groupNudge?: string;
  newGroupChatPrompt?: string;
}

const num = (v: number | null): string => (v === null || v === undefined ? '' : String(v));

/** escapeStop shows a stop string on one line. */
export function escapeStop(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** unescapeStop reads a line of the stop field back. */
export function unescapeStop(s: string): string {
  return s.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** toForm makes the form for p; asCopy drops the id (the form then creates a new preset). */
export function toForm(p: Preset, asCopy = false): PresetForm {
  const s = p.sampling;
  return {
    id: asCopy ? null : p.id,
    name: p.name,
    samplers: {
      temperature: num(s.temperature),
      topP: num(s.topP),
      topK: num(s.topK),
      minP: num(s.minP),
      frequencyPenalty: num(s.frequencyPenalty),
      presencePenalty: num(s.presencePenalty),
      repetitionPenalty: num(s.repetitionPenalty),
    },
    maxContext: String(p.maxContext),
    maxTokens: String(s.maxTokens),
    seed: num(s.seed),
    reasoningEffort: s.reasoningEffort,
    stop: (s.stop ?? []).map(escapeStop).join('\n'),
    prompts: p.prompts.map((it) => ({ ...it })),
    mergeConsecutive: p.mergeConsecutive,
    namesInHistory: p.namesInHistory,
    continuePrefill: p.continuePrefill,
    continueNudge: p.continueNudge,
    impersonationPrompt: p.impersonationPrompt,
    newChatPrompt: p.newChatPrompt,
    ...(p.groupNudge !== undefined ? { groupNudge: p.groupNudge } : {}),
    ...(p.newGroupChatPrompt !== undefined ? { newGroupChatPrompt: p.newGroupChatPrompt } : {}),
    exampleSeparator: p.exampleSeparator,
  };
}

/** A field the form refused, and why. */
export interface FormError {
  field: string;
  message: string;
}

function parseNumber(text: string, label: string, field: string, min: number, max: number, integer: boolean): number | FormError {
  const t = text.trim();
  const v = Number(t);
  if (t === '' || !Number.isFinite(v)) return { field, message: `${label} must be a number` };
  if (integer && !Number.isInteger(v)) return { field, message: `${label} must be a whole number` };
  if (v < min || v > max) return { field, message: `${label} must be between ${min.toLocaleString('en-US')} and ${max.toLocaleString('en-US')}` };
  return v;
}

const isError = (v: unknown): v is FormError => typeof v === 'object' && v !== null && 'field' in v;

/**
 * fromForm turns the form into presets.save's argument, or says which
 * field is wrong. Blank samplers and seed are null (the provider's
 * default); the host checks everything again.
 */
export function fromForm(f: PresetForm): PresetInput | FormError {
  if (f.name.trim() === '') return { field: 'name', message: 'The preset needs a name' };
  const sampling: Partial<Sampling> = { reasoningEffort: f.reasoningEffort };
  for (const s of SAMPLERS) {
    const text = f.samplers[s.key];
    if (text.trim() === '') {
      sampling[s.key] = null;
      continue;
    }
    const v = parseNumber(text, s.label, s.key, s.min, s.max, s.integer ?? false);
    if (isError(v)) return v;
    sampling[s.key] = v;
  }
  const maxTokens = parseNumber(f.maxTokens, 'Max response tokens', 'maxTokens', MAX_TOKENS.min, MAX_TOKENS.max, true);
  if (isError(maxTokens)) return maxTokens;
  const maxContext = parseNumber(f.maxContext, 'Context size', 'maxContext', MAX_CONTEXT.min, MAX_CONTEXT.max, true);
  if (isError(maxContext)) return maxContext;
  if (maxContext <= maxTokens) return { field: 'maxContext', message: 'The context size must be larger than the response budget' };
  sampling.maxTokens = maxTokens;
  if (f.seed.trim() === '') sampling.seed = null;
  else {
    const seed = parseNumber(f.seed, 'Seed', 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true);
    if (isError(seed)) return seed;
    sampling.seed = seed;
  }
  const stop = f.stop.split('\n').filter((l) => l !== '').map(unescapeStop);
  if (stop.length > MAX_STOPS) return { field: 'stop', message: `At most ${MAX_STOPS} stop strings` };
  sampling.stop = stop;
  return {
    ...(f.id ? { id: f.id } : {}),
    name: f.name.trim(),
    sampling,
    maxContext,
    prompts: f.prompts.map((it) => ({ ...it })),
    mergeConsecutive: f.mergeConsecutive,
    namesInHistory: f.namesInHistory,
    continuePrefill: f.continuePrefill,
    continueNudge: f.continueNudge,
    impersonationPrompt: f.impersonationPrompt,
    newChatPrompt: f.newChatPrompt,
    exampleSeparator: f.exampleSeparator,
    ...(f.groupNudge !== undefined ? { groupNudge: f.groupNudge } : {}),
    ...(f.newGroupChatPrompt !== undefined ? { newGroupChatPrompt: f.newGroupChatPrompt } : {}),
  };
}

/** isFormError tells fromForm's refusal from its result. */
export function isFormError(v: PresetInput | FormError): v is FormError {
  return isError(v);
}

/** moveItem returns items with item i moved by delta places (unchanged at an end). */
export function moveItem<T>(items: readonly T[], i: number, delta: number): T[] {
  const j = i + delta;
  const out = [...items];
  if (i < 0 || i >= items.length || j < 0 || j >= items.length) return out;
  const [it] = out.splice(i, 1);
  out.splice(j, 0, it as T);
  return out;
}

/** newItem is a custom prompt with an identifier no item of items has. */
export function newItem(items: readonly PresetItem[], random: () => string = () => Math.random().toString(36).slice(2, 10)): PresetItem {
  const taken = new Set(items.map((it) => it.identifier));
  let id = `custom-${random()}`;
  while (taken.has(id)) id = `custom-${random()}`;
  return { identifier: id, name: 'New prompt', enabled: true, role: 'system', content: '', marker: false, inChat: false, depth: 4 };
}

/** SLOTS says where each built-in slot's text comes from. */
const SLOTS: Readonly<Record<string, string>> = {
  worldInfoBefore: 'world info, before the character',
  worldInfoAfter: 'world info, after the character',
  personaDescription: 'your persona’s description',
  charDescription: 'the character’s description',
  charPersonality: 'the character’s personality',
  scenario: 'the character’s scenario',
  dialogueExamples: 'the card’s example dialogues',
  chatHistory: 'the chat’s messages',
};

/** describeItem is the short line under an item's name: role, and where it goes. */
export function describeItem(it: PresetItem): string {
  if (it.marker) return `Slot · ${SLOTS[it.identifier] ?? 'left empty by this version of Hearth'}`;
  const role = it.role || 'system';
  if (it.inChat) return `${role} · in chat at depth ${it.depth}`;
  const words = it.content.trim() === '' ? 'empty' : `${it.content.trim().split(/\s+/).length} words`;
  return `${role} · ${words}`;
}

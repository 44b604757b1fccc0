// Editing an agent profile (AGENT.md §9) as JSON text: parse it, check
// what the editor can check before saving (the backend checks the rest
// and names the field), and change one field at a time for the editor's
// friendly controls, which rewrite the text.
import type { AgentProfileIssue } from '../../abi/types';
import { AGENT_TOOLS } from './agent-text';

/** A profile document being edited: any JSON object. */
export type ProfileDoc = Record<string, unknown>;

export type Parsed = { ok: true; doc: ProfileDoc } | { ok: false; message: string };

/** ID_PATTERN is the profile id rule of AGENT.md §9. */
export const ID_PATTERN = /^[a-z0-9_-]{1,128}$/;

/** The three lists of tools.* a tool can be in. */
export type ToolList = 'allow' | 'deny' | 'requireApproval';

function isObject(v: unknown): v is ProfileDoc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** parseProfile reads the editor's text; a syntax error names its line when the browser says where. */
export function parseProfile(text: string): Parsed {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const at = /position (\d+)/.exec(msg);
    const line = at ? text.slice(0, Number(at[1])).split('\n').length : null;
    return { ok: false, message: line ? `The JSON is not valid (line ${line}): ${msg}` : `The JSON is not valid: ${msg}` };
  }
  if (!isObject(v)) return { ok: false, message: 'A profile is a JSON object ({ … }).' };
  return { ok: true, doc: v };
}

/** formatProfile is the editor's text for a document. */
export function formatProfile(doc: ProfileDoc): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** getPath reads a dotted path ("tools.maxRounds"). */
export function getPath(doc: ProfileDoc, path: string): unknown {
  let v: unknown = doc;
  for (const k of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

/** setPath returns a copy of doc with path set (undefined removes it); objects on the way are made. */
export function setPath(doc: ProfileDoc, path: string, value: unknown): ProfileDoc {
  const [head, ...rest] = path.split('.');
  if (head === undefined) return doc;
  const out: ProfileDoc = { ...doc };
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = value;
    return out;
  }
  const inner = isObject(doc[head]) ? (doc[head] as ProfileDoc) : {};
  out[head] = setPath(inner, rest.join('.'), value);
  return out;
}

function list(doc: ProfileDoc, which: ToolList): string[] {
  const v = getPath(doc, `tools.${which}`);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** toolFlags says which of the three lists a tool is in. */
export function toolFlags(doc: ProfileDoc, tool: string): Record<ToolList, boolean> {
  return { allow: list(doc, 'allow').includes(tool), deny: list(doc, 'deny').includes(tool), requireApproval: list(doc, 'requireApproval').includes(tool) };
}

/** setToolFlag adds a tool to one of the lists or takes it out, keeping the tools' order. */
export function setToolFlag(doc: ProfileDoc, tool: string, which: ToolList, on: boolean): ProfileDoc {
  const now = list(doc, which).filter((t) => t !== tool);
  const next = on ? AGENT_TOOLS.filter((t) => t === tool || now.includes(t)).concat(now.filter((t) => !AGENT_TOOLS.includes(t))) : now;
  return setPath(doc, `tools.${which}`, next);
}

function positiveInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}

/**
 * checkProfile finds what is wrong before saving: the header fields, the
 * tool names and limits, the model mode. It is a quick first look; the
 * backend's validation (on save) is the judge.
 */
export function checkProfile(doc: ProfileDoc): AgentProfileIssue[] {
  const issues: AgentProfileIssue[] = [];
  const add = (field: string, code: string, message: string) => issues.push({ field, code, message });
  if (doc.schemaVersion !== 1) add('schemaVersion', 'invalid', 'schemaVersion must be 1.');
  if (doc.kind !== 'hearth.agentProfile' && doc.kind !== 'tauritavern.agentProfile') add('kind', 'invalid', 'kind must be "hearth.agentProfile".');
  if (typeof doc.id !== 'string' || !ID_PATTERN.test(doc.id)) add('id', 'invalid', 'The id is 1–128 characters of a–z, 0–9, _ and -.');
  if (typeof doc.displayName !== 'string' || doc.displayName.trim() === '') add('displayName', 'required', 'Give the profile a name.');
  for (const which of ['allow', 'deny', 'requireApproval'] as const) {
    const v = getPath(doc, `tools.${which}`);
    if (v === undefined) continue;
    if (!Array.isArray(v)) {
      add(`tools.${which}`, 'invalid', `tools.${which} is a list of tool names.`);
      continue;
    }
    for (const t of v) {
      if (typeof t !== 'string' || !AGENT_TOOLS.includes(t)) add(`tools.${which}`, 'unknown_tool', `There is no tool ${JSON.stringify(t)}.`);
    }
  }
  for (const k of ['maxRounds', 'maxCallsPerRun']) {
    const v = getPath(doc, `tools.${k}`);
    if (v !== undefined && !positiveInt(v)) add(`tools.${k}`, 'invalid', `tools.${k} is a whole number, 1 or more.`);
  }
  const mode = getPath(doc, 'model.mode');
  if (mode !== undefined && mode !== 'currentPromptSnapshot' && mode !== 'connection') add('model.mode', 'invalid', 'model.mode is "currentPromptSnapshot" or "connection".');
  if (mode === 'connection' && (typeof getPath(doc, 'model.connectionId') !== 'string' || getPath(doc, 'model.connectionId') === '')) {
    add('model.connectionId', 'required', 'Pick the connection the agent uses.');
  }
  return issues;
}

/** copyOf makes a new profile from base: a fresh id not in taken, and " copy" after the name. */
export function copyOf(base: ProfileDoc, taken: readonly string[]): ProfileDoc {
  const stem = (typeof base.id === 'string' ? base.id : 'profile').replace(/-copy(-\d+)?$/, '').slice(0, 100);
  let id = `${stem}-copy`;
  for (let n = 2; taken.includes(id); n++) id = `${stem}-copy-${n}`;
  const name = typeof base.displayName === 'string' && base.displayName !== '' ? base.displayName : 'Profile';
  return { ...base, schemaVersion: 1, kind: 'hearth.agentProfile', id, displayName: `${name} copy` };
}

/** errorField is the profile field a save error names (details.field), or null. */
export function errorField(err: unknown): string | null {
  const d = (err as { details?: { field?: unknown } } | null)?.details;
  return typeof d?.field === 'string' && d.field !== '' ? d.field : null;
}

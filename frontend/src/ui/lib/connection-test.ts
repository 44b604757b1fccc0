// How a connection test's outcome reads, beside the connection and in the
// first-run checklist, and what the connection form asks for before it
// saves.
import type { Connection, ConnectionTest } from '../../abi/types';

/** testText says what a test found: the model count when it worked, the error when not. */
export function testText(t: ConnectionTest): string {
  if (t.ok) return t.models === undefined ? 'Connected' : `Connected · ${t.models} ${t.models === 1 ? 'model' : 'models'}`;
  return t.error ? failureText(t.error) : 'Failed';
}

/**
 * failureText is a test's or a model listing's error as a sentence: the
 * backend words a server it could not reach as one ("Nothing answered at
 * 127.0.0.1:9999"); a provider's refusal starts lower-case, so it gets a
 * capital.
 */
export function failureText(error: { message: string }): string {
  const m = error.message.trim();
  return m === '' ? 'Failed' : m.charAt(0).toUpperCase() + m.slice(1);
}

/** FormField names a connection form field that can be missing or wrong. */
export type FormField = 'name' | 'baseUrl' | 'apiKey' | 'model';

/** FormProblems says, per field, what is missing or wrong (a sentence), or nothing. */
export type FormProblems = Partial<Record<FormField, string | undefined>>;

/** What formProblems reads from the form. */
export interface FormState {
  name: string;
  provider: Connection['provider'];
  /** providerLabel is the provider as the form names it ("Anthropic"). */
  providerLabel: string;
  baseUrl: string;
  /** apiKey is the key typed into the form ('' when none). */
  apiKey: string;
  /** keyStored: a stored key will still be there after the save. */
  keyStored: boolean;
  model: string;
  /** modelsListed: the server's models are listed under the model field. */
  modelsListed: boolean;
}

/**
 * formProblems lists what keeps a connection form from being saved: a
 * name, an address where the provider has no default, a key for
 * Anthropic's or Google's own servers (they refuse every call without
 * one), and a model, which every reply names. An empty result means the
 * form can be saved.
 */
export function formProblems(f: FormState): FormProblems {
  const out: FormProblems = {};
  if (f.name.trim() === '') out.name = 'Give the connection a name.';
  const url = f.baseUrl.trim();
  if (url === '') {
    if (f.provider === 'openai-compatible') out.baseUrl = 'Enter the server’s address, for example http://127.0.0.1:8080/v1.';
  } else if (!isWebAddress(url)) {
    out.baseUrl = 'The address starts with http:// or https://, for example http://127.0.0.1:8080/v1.';
  }
  if (f.provider !== 'openai-compatible' && url === '' && f.apiKey === '' && !f.keyStored) {
    out.apiKey = `${f.providerLabel} needs an API key.`;
  }
  if (f.model.trim() === '') {
    out.model = f.modelsListed ? 'Choose a model: pick one from the list, or type its name.' : 'Choose a model: type its name, or load the server’s models to pick one.';
  }
  return out;
}

/** probeSpot is the field a failed model listing is about: the address for a server not reached, the key for a refused one, else the model field. */
export function probeSpot(code: string): FormField {
  if (code === 'model.unreachable' || code === 'model.timeout') return 'baseUrl';
  if (code === 'model.auth_failed') return 'apiKey';
  return 'model';
}

/** isWebAddress reports whether s is an http:// or https:// address with a host. */
export function isWebAddress(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

// The persona types (api.personas, docs/API.md "Personas"): who the user is
// in a chat. types.ts re-exports them.

/**
 * Where a persona's description goes in the prompt (SillyTavern's
 * persona_description_positions): 0 in the story string, 2 before and 3
 * after the Author's Note, 4 in the chat at depth, 9 nowhere ({{persona}}
 * still has it). 1 (AFTER_CHAR, deprecated) is accepted and stored as 0.
 */
export type PersonaPosition = 0 | 2 | 3 | 4 | 9;

/** A persona: who {{user}} is (HOST-ABI §6). */
export interface Persona {
  id: string;
  name: string;
  description: string;
  /** The avatar image's URL (it changes with the image), or null. */
  avatarUrl: string | null;
  position: PersonaPosition;
  /** For position 4: how many messages from the end, and as which role (0 system, 1 user, 2 assistant). */
  depth: number;
  role: 0 | 1 | 2;
  /** The lorebook bound to the persona ('' for none): its entries join every generation where it speaks. */
  lorebook: string;
  /** Read-only: setDefault and setActive change them. */
  isDefault: boolean;
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * personas.save's argument: without id it creates (name required), with
 * one it updates the fields given. avatar: left out keeps the image, null
 * removes it, { base64, mime? } or a data: URL (PNG, JPEG, WebP, GIF, at
 * most 8 MiB) replaces it.
 */
export interface PersonaInput {
  id?: string;
  name?: string;
  description?: string;
  avatar?: { base64: string; mime?: string } | string | null;
  position?: PersonaPosition | 1;
  depth?: number;
  role?: 0 | 1 | 2;
  /** A lorebook name; '' unbinds. */
  lorebook?: string;
}

/** personas.lockToChat's answer: the chat's revision and the persona now in effect there. */
export interface PersonaLock {
  revision: number;
  persona: Persona | null;
}

export interface PersonasApi {
  save(persona: PersonaInput): Promise<Persona>;
  /** list resolves every persona, by name. */
  list(): Promise<Persona[]>;
  get(id: string): Promise<Persona>;
  /** delete also clears it as the active or default persona and unlocks the chats locked to it. */
  delete(id: string): Promise<void>;
  /** setActive makes a persona the one in use (null: none, so the default applies) and resolves it. */
  setActive(id: string | null): Promise<Persona | null>;
  active(): Promise<Persona | null>;
  /** setDefault makes a persona the default (used when none is active and the chat is not locked). */
  setDefault(id: string | null): Promise<Persona | null>;
  /** lockToChat locks a chat to a persona (its metadata key "persona"), or unlocks it with null. */
  lockToChat(chatId: string, id: string | null): Promise<PersonaLock>;
  /** effective resolves the persona in effect in a chat (lock, else active, else default), or in none. */
  effective(chatId?: string | null): Promise<Persona | null>;
}

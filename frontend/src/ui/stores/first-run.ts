// The first-run checklist: connect a model, create or import a character,
// chat until the character replies. Each step ticks itself off from the
// app's own state (the active connection, the character list, a reply seen
// in the open chat); a reply, once seen, is remembered, as are a finished
// list and one put away, so neither comes back.
import { derived, get, writable, type Readable } from 'svelte/store';
import type { CharacterSummary, HearthAbi, StMessage } from '../../abi/types';
import type { ChatView } from './chat';

/** FIRST_RUN_KEY is where the checklist keeps what it remembers. */
export const FIRST_RUN_KEY = 'hearth.firstRun';

export type StepId = 'connect' | 'character' | 'chat';

export interface Step {
  id: StepId;
  done: boolean;
  /** current is the first step not done: the one to do next. */
  current: boolean;
}

/** FirstRunFacts are what the steps are ticked from. */
export interface FirstRunFacts {
  /** connected: a connection is in use. */
  connected: boolean;
  hasCharacter: boolean;
  /** replied: a character has answered in some chat. */
  replied: boolean;
}

/** firstRunSteps are the checklist's steps for these facts, in order. */
export function firstRunSteps(facts: FirstRunFacts): Step[] {
  const done: Record<StepId, boolean> = { connect: facts.connected, character: facts.hasCharacter, chat: facts.replied };
  const order: StepId[] = ['connect', 'character', 'chat'];
  const next = order.find((id) => !done[id]);
  return order.map((id) => ({ id, done: done[id], current: id === next }));
}

/**
 * hasReply says whether the chat shows a character's reply: a message not
 * the user's nor a system note at whole-chat index 1 or later (index 0 is
 * the greeting a chat opens with).
 */
export function hasReply(view: Pick<ChatView, 'start' | 'messages'>): boolean {
  return view.messages.some((m: Readonly<StMessage>, i) => view.start + i >= 1 && !m.is_user && !m.is_system);
}

interface Remembered {
  replied: boolean;
  /** finished: all steps were done once. */
  finished: boolean;
  dismissed: boolean;
}

export interface FirstRunStore {
  steps: Readable<Step[]>;
  /** visible: the checklist shows (not finished, not put away). */
  visible: Readable<boolean>;
  /** dismiss puts the checklist away for good. */
  dismiss(): void;
  /** start reads the connections while the checklist shows and follows their changes; returns the stop. */
  start(): () => void;
}

export interface FirstRunDeps {
  hearth: Pick<HearthAbi, 'api'>;
  /** connections: the app's connection store (its active one, and its load). */
  connections: { activeId: Readable<string | null>; load(): Promise<void> };
  characters: Readable<CharacterSummary[]>;
  view: Readable<ChatView>;
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
}

function read(storage: FirstRunDeps['storage']): Remembered {
  const none = { replied: false, finished: false, dismissed: false };
  try {
    const v = JSON.parse(storage?.getItem(FIRST_RUN_KEY) ?? 'null') as Partial<Remembered> | null;
    return v && typeof v === 'object' ? { replied: v.replied === true, finished: v.finished === true, dismissed: v.dismissed === true } : none;
  } catch {
    return none;
  }
}

export function createFirstRun({ hearth, connections, characters, view, storage }: FirstRunDeps): FirstRunStore {
  const remembered = writable<Remembered>(read(storage));
  const remember = (patch: Partial<Remembered>): void => {
    const cur = get(remembered);
    if (Object.entries(patch).every(([k, v]) => cur[k as keyof Remembered] === v)) return;
    const next = { ...cur, ...patch };
    remembered.set(next);
    try {
      storage?.setItem(FIRST_RUN_KEY, JSON.stringify(next));
    } catch {
      // Storage full or off: the checklist forgets on reload, nothing worse.
    }
  };

  const replied = derived([remembered, view], ([$r, $view]) => $r.replied || hasReply($view));
  const steps = derived([connections.activeId, characters, replied], ([$active, $characters, $replied]) =>
    firstRunSteps({ connected: $active !== null, hasCharacter: $characters.length > 0, replied: $replied }),
  );
  const visible = derived([remembered, steps], ([$r, $steps]) => !$r.finished && !$r.dismissed && !$steps.every((s) => s.done));

  return {
    steps,
    visible,
    dismiss: () => remember({ dismissed: true }),
    start() {
      const stops = [
        replied.subscribe((r) => r && remember({ replied: true })),
        steps.subscribe((s) => s.every((step) => step.done) && remember({ finished: true })),
      ];
      if (get(visible)) {
        void connections.load();
        const events = hearth.api.events;
        stops.push(events.on(events.types.CONNECTIONS_CHANGED ?? 'connections_changed', () => void connections.load()));
      }
      return () => stops.forEach((stop) => stop());
    },
  };
}

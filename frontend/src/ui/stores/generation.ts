// Generation in the open chat: the reply being written (its id, type and
// the text and reasoning streamed so far), the actions behind the composer
// (send, stop, regenerate, continue, impersonate, swipe right) and the
// chat header's Author's Note and prompt inspector. Everything goes through
// the public ABI: api.generate, the generation events and getContext().
//
// The streamed reply is shown until the committed message is in the chat
// view, what the list shows (its extra.hearth.generationId names the
// generation), checked whenever the view changes: the update that adds the
// message drops the live text, so the list never shows both, nor neither,
// and re-renders once. (Checked on the message event itself, before the
// view had refreshed, the list re-rendered twice: without the live row,
// laying out the rows above it, then with the message.)
import { getContext, setContext } from 'svelte';
import { derived, get, writable, type Readable } from 'svelte/store';
import type { GenerationRecord, GenerationType, HearthAbi, MediaRef, PromptSnapshot, StMessage } from '../../abi/types';
import { authorNoteProblem, readAuthorNote, type AuthorNote } from '../lib/author-note';
import { errorShape, generationErrorText, type HostErrorLike } from '../lib/generation-errors';
import { eventType, type EventName } from '../lib/events';
import type { ChatViewStore } from './chat';
import { connectionsAction } from './connections';
import type { ToastStore } from './toasts';

/** Running is the generation under way in the open chat. */
export interface Running {
  chatId: string;
  /** null until generate.start resolves or the backend's GENERATION_STARTED names it. */
  generationId: string | null;
  /** null while a generation this window joined late is being looked up. */
  type: GenerationType | null;
  /** targetId is the message a swipe, regenerate or continue writes into (null: a new message). */
  targetId: string | null;
  /** own: this window started it (its failures are this window's to report). */
  own: boolean;
  /** joined: it began before this window saw it, so the start of its text is missing. */
  joined: boolean;
  stopping: boolean;
  /**
   * member is the group member writing it (avatar key), in a group chat:
   * the one asked for, or the one GROUP_MEMBER_DRAFTED named; null in a
   * character's chat, or until the turn says who.
   */
  member: string | null;
}

/**
 * GroupTurn is a group turn under way in the open chat, from
 * GROUP_WRAPPER_STARTED to GROUP_WRAPPER_FINISHED: its members reply one
 * after another, each its own generation, and the chat stays busy in
 * between.
 */
export interface GroupTurn {
  chatId: string;
  type: GenerationType;
  /** own: this window asked for it (its failures are this window's to report). */
  own: boolean;
  /** next is a member drafted whose generation has not started yet. */
  next: string | null;
  /** spoken counts the members whose generation started. */
  spoken: number;
  stopping: boolean;
}

/** Live is what has streamed so far. */
export interface Live {
  text: string;
  reasoning: string;
  /** When the first reasoning arrived and when the reply text took over (ms since the epoch). */
  reasoningStart: number | null;
  reasoningEnd: number | null;
}

/** Failed is a reply that failed after some of its text arrived; it is kept on screen until dismissed. */
export interface Failed {
  chatId: string;
  /** member is the group member whose reply it was (null in a character's chat). */
  member: string | null;
  text: string;
  code: string;
  message: string;
}

/**
 * Display says where the live text goes: a row of its own at the end (for
 * a regenerate, in place of the reply it replaces, whose row is left out:
 * the backend deletes it before adding the new one), or into a message (a
 * swipe or continue).
 */
export type Display = { mode: 'row'; replaces: string | null } | { mode: 'inplace'; targetId: string; type: 'swipe' | 'continue' } | null;

/** Inspection is what the prompt inspector shows: the snapshot, or why there is none. */
export type Inspection = { ok: true; snapshot: PromptSnapshot } | { ok: false; code: string; message: string; details: Record<string, unknown> | null };

export interface GenerationStore {
  running: Readable<Running | null>;
  /** live changes with every streamed delta; only the live text's own components read it. */
  live: Readable<Live>;
  failed: Readable<Failed | null>;
  display: Readable<Display>;
  /** turn is the group turn under way in the open chat, if any. */
  turn: Readable<GroupTurn | null>;
  /** busy: a generation, a group turn or an impersonation runs in the open chat. */
  busy: Readable<boolean>;
  /** stopping: a stop was asked for and the reply (or the turn) has not ended yet. */
  stopping: Readable<boolean>;
  /** swipeUi is getContext().swipe.hidden(), refreshed on SWIPE_UI_CHANGED. */
  swipeUi: Readable<{ hidden: boolean; hideCounters: boolean }>;
  /**
   * send adds the user's message and asks for a reply; empty text after
   * the user's own last message only asks for the reply. False when
   * nothing was sent (the composer then keeps the text). reply false only
   * sends (a manual group chat, where you pick who replies).
   */
  send(text: string, attachments?: readonly MediaRef[], options?: { reply?: boolean }): Promise<boolean>;
  /** speakNow has a group member reply now, muted or not (SillyTavern's /trigger). */
  speakNow(member: string): Promise<boolean>;
  /** stop stops the reply being written; in a group turn, the whole turn. */
  stop(): Promise<void>;
  /**
   * regenerate writes a new version of the character's last reply as its
   * next swipe (the earlier versions stay), or, when the last message is
   * not such a reply, the character's reply.
   */
  regenerate(): Promise<boolean>;
  continue(): Promise<boolean>;
  /** swipeRight asks for a new swipe of the last reply. */
  swipeRight(): Promise<boolean>;
  /** impersonate writes the user's next message; resolves its text (null when it failed). */
  impersonate(): Promise<string | null>;
  /** keepFailed saves the text of a failed reply as the character's (or the group member's) message. */
  keepFailed(): Promise<boolean>;
  dismissFailed(): void;
  /** canSendEmpty: the last message is the user's, so an empty send just asks for a reply. */
  canSendEmpty(): boolean;
  inspect(chatId: string): Promise<Inspection>;
  loadNote(chatId: string): Promise<AuthorNote | null>;
  saveNote(chatId: string, note: AuthorNote): Promise<boolean>;
  start(): () => void;
}

const EMPTY_LIVE: Live = Object.freeze({ text: '', reasoning: '', reasoningStart: null, reasoningEnd: null });

/** COMMIT_WAIT_MS bounds how long an ended reply waits for its message to reach the window. */
export const COMMIT_WAIT_MS = 4000;

/**
 * STALE_TURN_MS is how long a stopped group turn may show with nothing
 * generating in its chat before the window asks whether it is over (its
 * end was missed). The gap between two members is far shorter.
 */
export const STALE_TURN_MS = 2000;

/** The message events after which a committed reply may be in the chat view (if it did not refresh for them). */
const COMMIT_EVENTS: EventName[] = ['MESSAGE_RECEIVED', 'MESSAGE_UPDATED', 'MESSAGE_SWIPED', 'MESSAGE_DELETED', 'CHAT_PATCHED', 'CHAT_LOAD_PROGRESS', 'CHAT_CHANGED'];

/**
 * isReply says whether m is a reply of the character a new swipe can be
 * written for: not the user's, not left out of the prompt, not a
 * narrator's note.
 */
export function isReply(m: Readonly<StMessage> | undefined): boolean {
  return m !== undefined && !m.is_user && !m.is_system && m.extra?.type !== 'narrator';
}

function hearthGenerationId(m: Readonly<StMessage> | undefined): string | null {
  const h = (m?.extra as { hearth?: { generationId?: unknown } } | undefined)?.hearth;
  return typeof h?.generationId === 'string' ? h.generationId : null;
}

export interface GenerationDeps {
  hearth: HearthAbi;
  toasts: ToastStore;
  chat: Pick<ChatViewStore, 'view' | 'send'>;
  /** commitWaitMs overrides COMMIT_WAIT_MS (tests). */
  commitWaitMs?: number;
  /** staleTurnMs overrides STALE_TURN_MS (tests). */
  staleTurnMs?: number;
  /** openConnections opens the Connections dialog, from the toast of a failure fixed there. */
  openConnections?: () => void;
}

export function createGenerationStore(deps: GenerationDeps): GenerationStore {
  const { hearth, toasts, chat } = deps;
  const commitWait = deps.commitWaitMs ?? COMMIT_WAIT_MS;
  const staleTurn = deps.staleTurnMs ?? STALE_TURN_MS;
  const running = writable<Running | null>(null);
  const live = writable<Live>(EMPTY_LIVE);
  const failed = writable<Failed | null>(null);
  const turn = writable<GroupTurn | null>(null);
  const swipeUi = writable({ hidden: false, hideCounters: false });
  /** Generations known to be over (or not shown: quiet ones), so late events and answers do not revive one. */
  const over = new Set<string>();
  /** Generations whose GENERATION_STARTED came (a group member drafted after that is the next one's). */
  const begun = new Set<string>();
  let stopWanted = false;
  /** commitTimer gives up waiting for an ended reply's message (then the list shows what the chat has). */
  let commitTimer: ReturnType<typeof setTimeout> | null = null;
  /** seq tells this window's start() calls apart. */
  let seq = 0;
  let startSeq = 0;

  const type = (k: EventName) => eventType(hearth, k);
  const chatId = () => get(chat.view).chatId;
  const messages = (): readonly Readonly<StMessage>[] => hearth.getContext().chat ?? [];

  function remember(set: Set<string>, id: string): void {
    set.add(id);
    if (set.size > 64) set.delete(set.values().next().value as string);
  }

  function markOver(id: string): void {
    remember(over, id);
  }

  function clearTimer(): void {
    if (commitTimer !== null) clearTimeout(commitTimer);
    commitTimer = null;
  }

  /** finish drops the running generation and its live text (they are in the chat, or nowhere). */
  function finish(): void {
    const r = get(running);
    if (r?.generationId) markOver(r.generationId);
    clearTimer();
    running.set(null);
    live.set(EMPTY_LIVE);
    if (!awaitNext()) stopWanted = false;
  }

  /**
   * awaitNext shows the member a group turn drafted next while nothing
   * else is shown: its row says who is about to write, and a stop asked
   * for meanwhile stops it as it starts. False when there is none.
   */
  function awaitNext(): boolean {
    const t = get(turn);
    if (!t || t.next === null || t.chatId !== chatId() || get(running) !== null) return false;
    // After a member has spoken only a normal turn goes on (swipes, continues and regenerates of a reply have one member).
    const type: GenerationType = t.spoken > 0 ? 'normal' : t.type;
    running.set({ chatId: t.chatId, generationId: null, type, targetId: targetFor(type), own: t.own, joined: false, stopping: t.stopping, member: t.next });
    live.set(EMPTY_LIVE);
    return true;
  }

  /** takeNext is the member drafted for the generation starting now in chat c (null: none known). */
  function takeNext(c: string): string | null {
    const t = get(turn);
    if (!t || t.chatId !== c) return null;
    turn.set({ ...t, next: null, spoken: t.spoken + 1 });
    return t.next;
  }

  /**
   * targetFor is the message a swipe, regenerate or continue writes into:
   * the chat's last. A regenerate (a script's: the UI's Regenerate is a
   * swipe) replaces only a reply of the character; after anything else the
   * backend writes a new message, so no row stands aside for it.
   */
  function targetFor(t: GenerationType | null): string | null {
    if (t !== 'swipe' && t !== 'regenerate' && t !== 'continue') return null;
    const msgs = messages();
    const last = msgs[msgs.length - 1];
    if (t === 'regenerate' && (last?.is_user || last?.is_system)) return null;
    return last?.id ?? null;
  }

  /** committed says whether the running generation's message is in the chat view. */
  function committed(r: Running): boolean {
    if (!r.generationId) return false;
    const msgs = get(chat.view).messages;
    for (let i = msgs.length - 1; i >= 0 && i >= msgs.length - 3; i--) {
      if (hearthGenerationId(msgs[i]) === r.generationId) return true;
    }
    return false;
  }

  function checkCommitted(): void {
    const r = get(running);
    if (r && r.type !== 'impersonate' && r.type !== 'quiet' && committed(r)) finish();
  }

  function report(err: unknown): void {
    const t = generationErrorText(err);
    toasts.error(t, undefined, connectionsAction(t.code, deps.openConnections));
  }

  function adopt(id: string): void {
    running.update((r) => (r && r.generationId === null ? { ...r, generationId: id } : r));
    if (stopWanted) {
      stopWanted = false;
      void stopId(id);
    }
  }

  async function stopId(id: string): Promise<void> {
    try {
      await hearth.api.generate.stop(id);
    } catch (err) {
      running.update((r) => (r && r.generationId === id ? { ...r, stopping: false } : r));
      toasts.error(err, 'Could not stop the reply');
    }
  }

  /**
   * join shows a generation this window did not start (another window, a
   * script, one running before a reload, or the next member of a group
   * turn: this window's own when the turn is).
   */
  function join(c: string, id: string, t: GenerationType | null, joined: boolean): void {
    if (t === 'quiet') return;
    remember(begun, id);
    const gt = get(turn);
    const inTurn = gt !== null && gt.chatId === c;
    const member = takeNext(c);
    running.set({ chatId: c, generationId: id, type: t, targetId: targetFor(t), own: inTurn && gt.own, joined, stopping: inTurn && gt.stopping, member });
    live.set(EMPTY_LIVE);
    if (stopWanted) {
      stopWanted = false;
      void stopId(id);
    }
    if (t === null) {
      hearth.api.generate
        .status(id)
        .then((rec: GenerationRecord) => {
          const r = get(running);
          if (r?.generationId !== id || r.type !== null) return;
          if (rec.type === 'quiet' || rec.status !== 'running') {
            finish();
            return;
          }
          running.set({ ...r, type: rec.type, targetId: targetFor(rec.type) });
        })
        .catch(() => {
          // The generation ended meanwhile; its events settle it.
        });
    }
  }

  /** busyIn: a reply or a group turn is under way in chat c. */
  function busyIn(c: string): boolean {
    return get(running)?.chatId === c || get(turn)?.chatId === c;
  }

  async function begin(t: Exclude<GenerationType, 'impersonate' | 'quiet'>, member?: string): Promise<boolean> {
    const c = chatId();
    if (!c) return false;
    if (busyIn(c)) {
      toasts.info('A reply is already being written — stop it first.');
      return false;
    }
    const mine = ++seq;
    startSeq = mine;
    failed.set(null);
    stopWanted = false;
    running.set({ chatId: c, generationId: null, type: t, targetId: targetFor(t), own: true, joined: false, stopping: false, member: member ?? null });
    live.set(EMPTY_LIVE);
    try {
      const { generationId } = await hearth.api.generate.start({ chatId: c, type: t, ...(member ? { memberAvatar: member } : {}) });
      if (generationId === '') {
        // A group turn that drafted nobody (a manual group after your message, every member muted).
        const r = get(running);
        if (startSeq === mine && r?.own && r.generationId === null && r.chatId === c) finish();
        toasts.info('Nobody was picked to reply — choose who speaks next.');
        return true;
      }
      if (over.has(generationId) || startSeq !== mine) return true;
      const r = get(running);
      if (r && r.chatId === c && r.own && (r.generationId === null || r.generationId === generationId)) adopt(generationId);
      return true;
    } catch (err) {
      const r = get(running);
      if (startSeq === mine && r?.own && r.generationId === null && r.chatId === c) finish();
      report(err);
      return false;
    }
  }

  function lastMessage(): Readonly<StMessage> | undefined {
    const v = get(chat.view);
    return v.messages[v.messages.length - 1];
  }

  function onStarted(p: Record<string, unknown>): void {
    const c = chatId();
    const id = p.generationId;
    if (!c || p.chatId !== c || typeof id !== 'string' || over.has(id)) return;
    const r = get(running);
    if (p.type === 'quiet' && !(r && r.generationId === null && r.own)) {
      markOver(id); // a script's quiet prompt: nothing to show
      return;
    }
    remember(begun, id);
    if (r && r.chatId === c && (r.generationId === null || r.generationId === id)) {
      // This window's own start, or the member a group turn drafted: now it has its id (and its type, for a drafted one).
      const next = takeNext(c);
      const member = r.member ?? next;
      const t = typeof p.type === 'string' && !r.own ? (p.type as GenerationType) : r.type;
      running.set({ ...r, member, type: t, targetId: t === r.type ? r.targetId : targetFor(t) });
      if (r.generationId === null) adopt(id);
      return;
    }
    join(c, id, (p.type as GenerationType) ?? null, false);
  }

  function onTurnStarted(p: Record<string, unknown>): void {
    const c = chatId();
    const t = p.type;
    // An impersonation is shown by its own call; a quiet one not at all.
    if (!c || p.chatId !== c || typeof t !== 'string' || t === 'quiet' || t === 'impersonate') return;
    const r = get(running);
    const own = r !== null && r.own && r.chatId === c && (r.generationId === null || !over.has(r.generationId));
    turn.set({ chatId: c, type: t as GenerationType, own, next: null, spoken: 0, stopping: own && r.stopping });
  }

  function onDrafted(p: Record<string, unknown>): void {
    const t = get(turn);
    if (!t || p.chatId !== t.chatId || typeof p.avatar !== 'string') return;
    const r = get(running);
    if (r && r.chatId === t.chatId && (r.generationId === null || (!begun.has(r.generationId) && !over.has(r.generationId)))) {
      // The generation not started yet (this window's own, asked for the group) is this member's.
      running.set({ ...r, member: p.avatar });
      turn.set({ ...t, next: null });
      return;
    }
    turn.set({ ...t, next: p.avatar });
    awaitNext();
  }

  /**
   * settleTurn ends a turn the window still shows while nothing generates
   * in its chat (its GROUP_WRAPPER_FINISHED was missed, say over a
   * reconnect), so a stop never leaves the chat busy for good.
   */
  function settleTurn(c: string): void {
    const still = () => get(turn)?.chatId === c && get(running) === null;
    // Between two members nothing generates for a moment: only a turn that stays so is over.
    setTimeout(() => {
      if (!still()) return;
      hearth.api.generate
        .status()
        .then((st) => {
          if (!still() || (st.generating && st.chatId === c)) return;
          turn.set(null);
          stopWanted = false;
        })
        .catch(() => {
          // Its events settle it.
        });
    }, staleTurn);
  }

  function onTurnFinished(p: Record<string, unknown>): void {
    const t = get(turn);
    if (!t || p.chatId !== t.chatId) return;
    turn.set(null);
    const r = get(running);
    // A member announced but never started (its generation could not), or nobody drafted: nothing more comes.
    if (r && r.chatId === t.chatId && r.generationId === null) finish();
    stopWanted = false;
  }

  function onToken(p: Record<string, unknown>): void {
    const c = chatId();
    const id = p.generationId;
    if (!c || p.chatId !== c || typeof id !== 'string' || over.has(id)) return;
    let r = get(running);
    if (r && r.generationId === null && r.own) {
      adopt(id);
      r = get(running);
    }
    if (!r || r.generationId !== id) {
      join(c, id, null, true);
      r = get(running);
      if (!r) return;
    }
    const text = typeof p.text === 'string' ? p.text : '';
    const reasoning = typeof p.reasoning === 'string' ? p.reasoning : '';
    if (text === '' && reasoning === '') return;
    live.update((l) => {
      const now = Date.now();
      return {
        text: l.text + text,
        reasoning: l.reasoning + reasoning,
        reasoningStart: l.reasoningStart ?? (reasoning !== '' ? now : null),
        reasoningEnd: l.reasoningEnd ?? (text !== '' && l.reasoningStart !== null ? now : null),
      };
    });
  }

  function onEnd(p: Record<string, unknown>, stopped: boolean): void {
    const id = p.generationId;
    if (typeof id !== 'string') return;
    markOver(id);
    const c = chatId();
    let r = get(running);
    if (r && r.own && r.generationId === null && p.chatId === r.chatId) {
      running.set({ ...r, generationId: id });
      r = get(running);
    }
    if (!c || !r || r.generationId !== id) return;
    const error = p.error as HostErrorLike | undefined;
    if (error && !stopped) {
      const text = typeof p.text === 'string' ? p.text : get(live).text;
      const mine = r.own;
      const t = r.type;
      finish();
      if (t === 'impersonate') return; // run() rejects and reports it
      if (mine) report(error);
      if (mine && t === 'normal' && text.trim() !== '') {
        const shown = generationErrorText(error);
        failed.set({ chatId: c, member: r.member, text, code: shown.code, message: shown.message });
      }
      return;
    }
    if (r.type === 'impersonate' || r.type === 'quiet' || p.index === null || p.index === undefined || committed(r)) {
      finish();
      return;
    }
    clearTimer();
    commitTimer = setTimeout(finish, commitWait);
  }

  return {
    running,
    live,
    failed,
    display: derived([running, chat.view], ([r, v]): Display => {
      if (!r || r.chatId !== v.chatId || r.type === null || r.type === 'impersonate' || r.type === 'quiet') return null;
      if (r.type === 'normal' || r.targetId === null) return { mode: 'row', replaces: null };
      if (r.type === 'regenerate') return { mode: 'row', replaces: r.targetId };
      return { mode: 'inplace', targetId: r.targetId, type: r.type };
    }),
    turn,
    busy: derived([running, turn, chat.view], ([r, t, v]) => (r !== null && r.chatId === v.chatId) || (t !== null && t.chatId === v.chatId)),
    stopping: derived([running, turn, chat.view], ([r, t, v]) => (r?.chatId === v.chatId && r.stopping) || (t?.chatId === v.chatId && t.stopping)),
    swipeUi,
    async send(text, attachments = [], options = {}) {
      const c = chatId();
      if (!c || busyIn(c)) return false;
      const reply = options.reply !== false;
      if (text.trim() === '' && attachments.length === 0) {
        if (!reply || !lastMessage()?.is_user) return false;
        return begin('normal');
      }
      if (!(await chat.send(text, attachments))) return false;
      if (reply && chatId() === c) void begin('normal');
      return true;
    },
    speakNow: (member) => begin('normal', member),
    async stop() {
      const c = chatId();
      const t = get(turn);
      const inTurn = t !== null && t.chatId === c;
      if (inTurn && !t.stopping) turn.set({ ...t, stopping: true });
      const r = get(running);
      if (!r || r.chatId !== c) {
        // Between two members of a group turn: the next one is stopped as it starts, which ends the turn.
        if (inTurn) {
          stopWanted = true;
          settleTurn(c);
        }
        return;
      }
      if (r.stopping && !inTurn) return;
      running.set({ ...r, stopping: true });
      if (r.generationId === null || over.has(r.generationId)) {
        stopWanted = true;
        return;
      }
      await stopId(r.generationId);
    },
    // Regenerate keeps what it replaces: a new swipe of the character's last
    // reply (‹ brings the earlier ones back), or after anything else simply
    // a reply. generate.start's own 'regenerate' (SillyTavern's, which
    // drops the reply and all its swipes) stays for scripts.
    regenerate: () => begin(isReply(lastMessage()) ? 'swipe' : 'normal'),
    continue: () => begin('continue'),
    swipeRight: () => begin('swipe'),
    async impersonate() {
      const c = chatId();
      if (!c || get(running)?.chatId === c) return null;
      const mine = ++seq;
      startSeq = mine;
      stopWanted = false;
      running.set({ chatId: c, generationId: null, type: 'impersonate', targetId: null, own: true, joined: false, stopping: false, member: null });
      try {
        const res = await hearth.api.generate.run({ chatId: c, type: 'impersonate' });
        return chatId() === c ? res.text : null; // another chat's composer is not the place for it
      } catch (err) {
        report(err);
        return null;
      } finally {
        const r = get(running);
        if (startSeq === mine && r?.type === 'impersonate' && r.chatId === c) finish();
      }
    },
    async keepFailed() {
      const f = get(failed);
      if (!f || f.chatId !== chatId()) return false;
      const ctx = hearth.getContext();
      // A group member's reply is kept as theirs, as the backend writes one (name and original_avatar).
      const member = f.member === null ? null : (ctx.characters ?? []).find((ch) => ch.avatar === f.member);
      const name = f.member === null ? ctx.name2 || 'Assistant' : (member?.name ?? f.member);
      const speaker = f.member === null ? {} : { original_avatar: f.member };
      try {
        await hearth.api.chat.addMessages(f.chatId, { is_user: false, name, mes: f.text, ...speaker });
        failed.set(null);
        return true;
      } catch (err) {
        toasts.error(err, 'Could not save the text');
        return false;
      }
    },
    dismissFailed: () => failed.set(null),
    canSendEmpty: () => lastMessage()?.is_user === true,
    async inspect(c) {
      try {
        return { ok: true, snapshot: await hearth.api.generate.dryRun({ chatId: c, type: 'normal' }) };
      } catch (err) {
        const e = errorShape(err);
        const friendly = e.code === 'prompt.too_large' || e.code === 'generate.no_connection' ? generationErrorText(err).message : e.message;
        return { ok: false, code: e.code, message: friendly, details: e.details ?? null };
      }
    },
    async loadNote(c) {
      try {
        return readAuthorNote(await hearth.api.chat.getMetadata(c));
      } catch (err) {
        toasts.error(err, "Could not read the Author's Note");
        return null;
      }
    },
    async saveNote(c, note) {
      const problem = authorNoteProblem(note);
      if (problem) {
        toasts.error({ code: 'validation.invalid_argument', message: problem }, "Could not save the Author's Note");
        return false;
      }
      try {
        await hearth.api.chat.saveMetadata(c, { ...note });
        return true;
      } catch (err) {
        toasts.error(err, "Could not save the Author's Note");
        return false;
      }
    },
    start() {
      const on = (k: EventName, fn: (p: Record<string, unknown>) => void) => hearth.api.events.on(type(k), (p) => fn(p as Record<string, unknown>));
      const offs = [
        on('GENERATION_STARTED', onStarted),
        on('STREAM_TOKEN_RECEIVED', onToken),
        on('GENERATION_ENDED', (p) => onEnd(p, false)),
        on('GENERATION_STOPPED', (p) => onEnd(p, true)),
        on('GROUP_WRAPPER_STARTED', onTurnStarted),
        on('GROUP_MEMBER_DRAFTED', onDrafted),
        on('GROUP_WRAPPER_FINISHED', onTurnFinished),
        on('SWIPE_UI_CHANGED', () => swipeUi.set({ ...hearth.getContext().swipe.hidden() })),
        ...COMMIT_EVENTS.map((k) =>
          on(k, (p) => {
            if (p.chatId !== undefined && p.chatId !== get(running)?.chatId) return;
            checkCommitted();
          }),
        ),
      ];
      // Per chat: a switch drops what streamed for the last one and asks whether the new one is generating.
      let shown: string | null = null;
      let lookup = 0;
      const offView = chat.view.subscribe((v) => {
        checkCommitted();
        if (v.chatId === shown) return;
        shown = v.chatId;
        const r = get(running);
        if (r && r.chatId !== v.chatId) {
          clearTimer();
          stopWanted = false;
          running.set(null);
          live.set(EMPTY_LIVE);
        }
        if (get(turn)?.chatId !== v.chatId) turn.set(null);
        failed.update((f) => (f && f.chatId !== v.chatId ? null : f));
        const c = v.chatId;
        if (!c) return;
        const mine = ++lookup;
        hearth.api.generate
          .status()
          .then((st) => {
            if (mine !== lookup || chatId() !== c || !st.generating || st.chatId !== c || !st.generationId) return;
            if (over.has(st.generationId) || get(running)?.generationId === st.generationId || get(running)?.chatId === c) return;
            join(c, st.generationId, st.type, true);
          })
          .catch((err: unknown) => console.warn('Hearth: could not read the generation status', err));
      });
      return () => {
        offs.forEach((off) => off());
        offView();
        clearTimer();
      };
    },
  };
}

const KEY = Symbol('hearth.generation');

/** setGeneration hands the store to the chat view's components. */
export function setGeneration(store: GenerationStore): void {
  setContext(KEY, store);
}

/** getGeneration is the store ChatView set. */
export function getGeneration(): GenerationStore {
  const store = getContext<GenerationStore | undefined>(KEY);
  if (!store) throw new Error('getGeneration() outside the chat view');
  return store;
}

// Windowed loading of one chat: the tail first (so the UI can paint at
// once), then the rest in pages going backwards, yielding to the event loop
// between pages so input never stalls on a large chat. The next page is
// already requested while one is decoded and applied, so the backend's work
// and the transfer overlap the page's own. The reads are not one
// transaction, so a load only counts when the chat's revision was the same
// before and after it; otherwise it starts over.
import { HostError } from './errors';
import type { Call } from './host';
import { deepFreeze } from './readonly';
import type { ChatDetails, StMessage } from './types';

/** How many messages the first (tail) read asks for. */
export const TAIL_SIZE = 100;
/** How many messages each later page asks for. */
export const PAGE_SIZE = 1000;
/** How many page reads may be on their way at once. */
export const IN_FLIGHT = 2;
/** How often a load may start over because the chat changed under it. */
export const MAX_ATTEMPTS = 8;

/** Superseded is thrown inside a load that a newer select() (or close) replaced. */
export class Superseded extends Error {
  constructor() {
    super('superseded');
    this.name = 'Superseded';
  }
}

/** LoadControl is how the cache steers one load. */
export interface LoadControl {
  /** live throws Superseded when this load no longer matters. */
  live(): void;
  /** begin announces the revision this attempt reads at. */
  begin(base: number): void;
  /** dirty reports a change newer than base seen since begin (start over early). */
  dirty(): boolean;
  /** window, when present, receives each consistent-so-far window [start, start + msgs.length). */
  window?(details: ChatDetails, start: number, msgs: StMessage[]): void;
}

/** LoadOptions tune loadChat; the defaults suit real chats. */
export interface LoadOptions {
  tailSize?: number;
  pageSize?: number;
  /** pause lets the event loop run between pages (setTimeout 0 by default). */
  pause?: () => Promise<void>;
  /** first is the chat.get result the caller already has, used by the first attempt. */
  first?: ChatDetails;
}

/** Loaded is a consistent copy of a whole chat at details.revision. */
export interface LoadedChat {
  details: ChatDetails;
  messages: StMessage[];
}

const defaultPause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** asDetails checks and freezes a chat.get answer. */
export function asDetails(v: unknown): ChatDetails {
  const d = v as Partial<ChatDetails> | null;
  if (typeof d !== 'object' || d === null || typeof d.chatId !== 'string' || !Number.isInteger(d.revision) || !Number.isInteger(d.messageCount)) {
    throw new HostError('internal', 'chat.get answered with something that is not a chat');
  }
  return deepFreeze({ ...d, metadata: d.metadata ?? {} } as ChatDetails);
}

function asMessages(v: unknown): StMessage[] {
  if (!Array.isArray(v) || !v.every((m) => typeof m === 'object' && m !== null)) {
    throw new HostError('internal', 'chat.getStMessages answered with something that is not a message list');
  }
  for (const m of v) deepFreeze(m);
  return v as StMessage[];
}

/** loadChat reads chatId whole and consistent; see the file comment. */
export async function loadChat(call: Call, chatId: string, ctl: LoadControl, opts: LoadOptions = {}): Promise<LoadedChat> {
  const tailSize = opts.tailSize ?? TAIL_SIZE;
  const pageSize = opts.pageSize ?? PAGE_SIZE;
  const pause = opts.pause ?? defaultPause;
  let first = opts.first;
  const get = async () => {
    const d = asDetails(await call('chat.get', chatId));
    ctl.live();
    return d;
  };
  const read = async (range: Record<string, number>) => {
    const m = asMessages(await call('chat.getStMessages', chatId, range));
    ctl.live();
    return m;
  };

  attempts: for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const details = first ?? (await get());
    first = undefined;
    ctl.begin(details.revision);
    const total = details.messageCount;
    let start = total;
    let msgs: StMessage[] = [];
    if (ctl.window) {
      // An explicit range rather than { tail }: its indexes are the ones
      // asked for, so a concurrent change can shorten the answer but never
      // mislabel it.
      const s = Math.max(0, total - tailSize);
      if (total > s) {
        msgs = await read({ start: s, end: total });
        if (ctl.dirty() || msgs.length !== total - s) continue attempts;
      }
      start = s;
      ctl.window(details, start, msgs);
    }
    // Page reads in request order; one abandoned by a restart settles unheard.
    const pending: Promise<StMessage[]>[] = [];
    let asked = start;
    while (start > 0) {
      await pause();
      ctl.live();
      if (ctl.dirty()) continue attempts;
      while (pending.length < IN_FLIGHT && asked > 0) {
        const limit = Math.min(pageSize, asked);
        const next = read({ before: asked, limit });
        next.catch(() => {});
        pending.push(next);
        asked -= limit;
      }
      const limit = Math.min(pageSize, start);
      const page = await pending.shift()!;
      if (ctl.dirty() || page.length !== limit) continue attempts;
      msgs = page.concat(msgs);
      start -= limit;
      ctl.window?.(details, start, msgs);
    }
    const after = await get();
    if (ctl.dirty() || after.revision !== details.revision || after.messageCount !== msgs.length) continue;
    return { details: after, messages: msgs };
  }
  throw new HostError('chat.conflict', `chat ${chatId} kept changing while it was loading; try again`, { chatId });
}

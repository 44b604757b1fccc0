// SillyTavern's lib/eventemitter.js EventEmitter, for extensions that make
// emitters of their own (Dialogue Colorizer does). It has the semantics of
// SillyTavern's eventSource, which is one of these: emit() awaits each
// listener in turn, and listeners of the auto-fire events named at
// construction that come after such an event fired are called at once.
// It is built on the window's own emitter (abi/event-source.ts), so both
// behave the same.
import { createEventSource } from '../../abi/event-source';
import type { EventSource } from '../../abi/types';

type Listener = (...args: unknown[]) => unknown;

export class EventEmitter {
  readonly #source: EventSource;

  constructor(autoFireAfterEmit: readonly string[] = []) {
    this.#source = createEventSource(Array.isArray(autoFireAfterEmit) ? autoFireAfterEmit.map(String) : []);
  }

  on(event: string, listener: Listener): void {
    this.#source.on(event, listener);
  }

  once(event: string, listener: Listener): void {
    this.#source.once(event, listener);
  }

  makeFirst(event: string, listener: Listener): void {
    this.#source.makeFirst(event, listener);
  }

  makeLast(event: string, listener: Listener): void {
    this.#source.makeLast(event, listener);
  }

  removeListener(event: string, listener: Listener): void {
    this.#source.removeListener(event, listener);
  }

  off(event: string, listener: Listener): void {
    this.#source.off(event, listener);
  }

  emit(event: string, ...args: unknown[]): Promise<void> {
    return this.#source.emit(event, ...args);
  }

  emitAndWait(event: string, ...args: unknown[]): void {
    this.#source.emitAndWait(event, ...args);
  }
}

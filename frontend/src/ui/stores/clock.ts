// A coarse clock for relative times ("5 min ago") that refresh by themselves.
import { readable, type Readable } from 'svelte/store';

/** now ticks every 30 s while something is subscribed. */
export const now: Readable<number> = readable(Date.now(), (set) => {
  const timer = setInterval(() => set(Date.now()), 30_000);
  return () => clearInterval(timer);
});

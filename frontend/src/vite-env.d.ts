/// <reference types="svelte" />
/// <reference types="vite/client" />

import type { Hearth } from './abi/hearth';

declare global {
  interface Window {
    __HEARTH__?: Hearth;
  }
}

// Shared test setup: an ABI over a FakeHost, ready, with small load windows.
import { createHearthAbi, type AbiOptions } from '../abi';
import type { HearthAbi } from '../types';
import { FakeHost } from './fake-host';

/** Setup is a ready ABI and the fake host it talks to. */
export interface Setup {
  host: FakeHost;
  h: HearthAbi;
}

/** setup builds the ABI over a fresh FakeHost (prepared by prepare) and waits for ready. */
export async function setup(prepare: (host: FakeHost) => void = () => {}, opts: Partial<AbiOptions> = {}): Promise<Setup> {
  const host = new FakeHost();
  prepare(host);
  const h = createHearthAbi(host, { connected: Promise.resolve(), load: { tailSize: 10, pageSize: 7 }, settleMs: 50, ...opts });
  await h.ready;
  return { host, h };
}

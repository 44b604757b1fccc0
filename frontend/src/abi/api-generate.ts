// api.generate: the generate.* host methods (HOST-ABI §6). start, run and
// dryRun run this window's prompt hooks first (prompt-hooks.ts: the
// interceptors may set extension prompts), then send its extension
// prompts (filters evaluated now); prompts passed in
// options.extensionPrompts win over them by key.
import type { ExtensionPrompts, ExtensionPromptWire } from './extension-prompts';
import type { Call } from './host';
import type { PromptHooks } from './prompt-hooks';
import type { GenerateApi, GenerateOptions } from './types';

/** createGenerateApi returns the frozen api.generate; without hooks it sends none (tests). */
export function createGenerateApi(call: Call, prompts: ExtensionPrompts, hooks?: PromptHooks): GenerateApi {
  async function withPrompts(options: GenerateOptions): Promise<GenerateOptions> {
    if (typeof options !== 'object' || options === null) return options;
    const own = await prompts.resolve();
    const given = Array.isArray(options.extensionPrompts) ? options.extensionPrompts : [];
    const keys = new Set(given.map((p) => (p as ExtensionPromptWire).key));
    return { ...options, extensionPrompts: [...own.filter((p) => !keys.has(p.key)), ...given] };
  }
  async function send(method: string, options: GenerateOptions): Promise<unknown> {
    const prepared = hooks ? await hooks.prepare(options, method === 'generate.dryRun') : { options, settled: () => {} };
    try {
      return await call(method, await withPrompts(prepared.options));
    } finally {
      prepared.settled();
    }
  }
  return Object.freeze({
    start: (options: GenerateOptions) => send('generate.start', options) as ReturnType<GenerateApi['start']>,
    run: (options: GenerateOptions) => send('generate.run', options) as ReturnType<GenerateApi['run']>,
    dryRun: (options: GenerateOptions) => send('generate.dryRun', options) as ReturnType<GenerateApi['dryRun']>,
    stop(generationId?: string) {
      return (generationId === undefined ? call('generate.stop') : call('generate.stop', generationId)) as ReturnType<GenerateApi['stop']>;
    },
    // One function for status's two overloads (every generation, or one).
    status: ((generationId?: string) =>
      generationId === undefined ? call('generate.status') : call('generate.status', generationId)) as GenerateApi['status'],
  });
}

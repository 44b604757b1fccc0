// api.generate: the generate.* host methods (HOST-ABI §6). start, run and
// dryRun send this window's extension prompts (filters evaluated now);
// prompts passed in options.extensionPrompts win over them by key.
import type { ExtensionPrompts, ExtensionPromptWire } from './extension-prompts';
import type { Call } from './host';
import type { GenerateApi, GenerateOptions } from './types';

/** createGenerateApi returns the frozen api.generate. */
export function createGenerateApi(call: Call, prompts: ExtensionPrompts): GenerateApi {
  async function withPrompts(options: GenerateOptions): Promise<GenerateOptions> {
    if (typeof options !== 'object' || options === null) return options;
    const own = await prompts.resolve();
    const given = Array.isArray(options.extensionPrompts) ? options.extensionPrompts : [];
    const keys = new Set(given.map((p) => (p as ExtensionPromptWire).key));
    return { ...options, extensionPrompts: [...own.filter((p) => !keys.has(p.key)), ...given] };
  }
  return Object.freeze({
    async start(options: GenerateOptions) {
      return call('generate.start', await withPrompts(options)) as ReturnType<GenerateApi['start']>;
    },
    async run(options: GenerateOptions) {
      return call('generate.run', await withPrompts(options)) as ReturnType<GenerateApi['run']>;
    },
    async dryRun(options: GenerateOptions) {
      return call('generate.dryRun', await withPrompts(options)) as ReturnType<GenerateApi['dryRun']>;
    },
    stop(generationId?: string) {
      return (generationId === undefined ? call('generate.stop') : call('generate.stop', generationId)) as ReturnType<GenerateApi['stop']>;
    },
    // One function for status's two overloads (every generation, or one).
    status: ((generationId?: string) =>
      generationId === undefined ? call('generate.status') : call('generate.status', generationId)) as GenerateApi['status'],
  });
}

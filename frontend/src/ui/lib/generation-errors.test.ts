import { describe, expect, it } from 'vitest';
import { generationErrorText } from './generation-errors';

/** hostError is a thrown failure as the ABI gives it: an Error with a code and maybe details. */
function hostError(code: string, message = code, details?: Record<string, unknown>) {
  return Object.assign(new Error(message), { code, ...(details ? { details } : {}) });
}

describe('generationErrorText', () => {
  it('names each model failure in words a person can act on', () => {
    const t = (code: string, details?: Record<string, unknown>) => generationErrorText(hostError(code, `raw ${code}`, details)).message;
    expect(t('model.rate_limited')).toBe('Rate limited by the model server; wait a moment and retry.');
    expect(t('model.rate_limited', { retryAfterMs: 2500 })).toBe('Rate limited; retry in 2.5 s.');
    expect(t('model.auth_failed', { providerMessage: 'Incorrect API key provided' })).toMatch(/check it in Connections\. The server said: Incorrect API key provided$/);
    expect(t('model.timeout')).toMatch(/did not answer in time/);
    expect(t('model.bad_response')).toMatch(/could not read/);
    expect(t('model.empty_reply')).toMatch(/empty reply/);
    expect(t('generate.busy')).toMatch(/stop it first/);
    expect(t('generate.interrupted')).toMatch(/shutting down/);
    expect(t('model.request_failed')).toBe('The model server refused the request. raw model.request_failed');
    expect(t('chat.name_taken')).toBe('Generation failed: raw chat.name_taken');
    // A server that did not answer is named in the backend's own sentence.
    expect(t('model.unreachable', { address: '127.0.0.1:9999' })).toBe('raw model.unreachable. Is the server running, and is its address right in Connections?');
    expect(t('model.timeout', { address: '127.0.0.1:9999' })).toBe('raw model.timeout.');
  });
});

import { describe, expect, it } from 'vitest';
import { describeError } from './errors';

describe('describeError', () => {
  it('reads HostError-shaped values', () => {
    const err = Object.assign(new Error('the name is taken'), { code: 'chat.name_taken' });
    expect(describeError(err)).toEqual({ message: 'the name is taken', code: 'chat.name_taken' });
    expect(describeError({ code: 'auth.denied', message: 'no' })).toEqual({ message: 'no', code: 'auth.denied' });
  });
  it('says a thrown error of a common code in words, keeping the code', () => {
    const thrown = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(describeError(thrown('generate.no_connection', 'no connection is selected: add one under Connections and select it'))).toEqual({
      message: 'No connection is set up. Add one in Connections.',
      code: 'generate.no_connection',
    });
    expect(describeError(thrown('chat.not_found', 'no chat with id "0f3a9c1e"'))).toEqual({ message: 'That chat no longer exists.', code: 'chat.not_found' });
    expect(describeError(thrown('transport.unavailable', 'cannot reach Hearth: TypeError: Failed to fetch')).message).toMatch(/^Hearth is not answering/);
  });
  it('keeps a message that already says what went wrong', () => {
    expect(describeError(Object.assign(new Error('Nothing answered at 127.0.0.1:9999'), { code: 'model.unreachable' })).message).toBe('Nothing answered at 127.0.0.1:9999');
    // A failure a caller put in words already (a plain {code, message}) keeps them.
    expect(describeError({ code: 'generate.no_connection', message: 'No connection selected.' }).message).toBe('No connection selected.');
  });
  it('falls back to internal', () => {
    expect(describeError(new Error('boom'))).toEqual({ message: 'boom', code: 'internal' });
    expect(describeError('text')).toEqual({ message: 'text', code: 'internal' });
    expect(describeError(42)).toEqual({ message: '42', code: 'internal' });
  });
});

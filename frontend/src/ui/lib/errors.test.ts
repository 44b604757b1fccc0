import { describe, expect, it } from 'vitest';
import { describeError } from './errors';

describe('describeError', () => {
  it('reads HostError-shaped values', () => {
    const err = Object.assign(new Error('chat not found'), { code: 'chat.not_found' });
    expect(describeError(err)).toEqual({ message: 'chat not found', code: 'chat.not_found' });
    expect(describeError({ code: 'auth.denied', message: 'no' })).toEqual({ message: 'no', code: 'auth.denied' });
  });
  it('falls back to internal', () => {
    expect(describeError(new Error('boom'))).toEqual({ message: 'boom', code: 'internal' });
    expect(describeError('text')).toEqual({ message: 'text', code: 'internal' });
    expect(describeError(42)).toEqual({ message: '42', code: 'internal' });
  });
});

import { describe, expect, it } from 'vitest';
import { decodeError, HostError, isErrorShape } from './errors';

describe('decodeError', () => {
  it('decodes the JSON text the Wails bridge rejects with', () => {
    const raw = JSON.stringify({ code: 'chat.conflict', message: 'stale', details: { currentRevision: 7 } });
    const err = decodeError(raw);
    expect(err).toBeInstanceOf(HostError);
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('chat.conflict');
    expect(err.message).toBe('stale');
    expect(err.details).toEqual({ currentRevision: 7 });
  });

  it('decodes the HTTP {"error": shape} body', () => {
    const err = decodeError({ error: { code: 'character.not_found', message: 'no such character' } });
    expect(err.code).toBe('character.not_found');
    expect(err.details).toBeUndefined();
  });

  it('decodes an Error whose message is the JSON shape', () => {
    const err = decodeError(new Error('{"code":"auth.denied","message":"bad token"}'));
    expect(err.code).toBe('auth.denied');
  });

  it('keeps the text of anything else as an internal error', () => {
    expect(decodeError('boom')).toMatchObject({ code: 'internal', message: 'boom' });
    expect(decodeError(new TypeError('x is undefined'))).toMatchObject({ code: 'internal', message: 'x is undefined' });
    expect(decodeError('{"code":1}')).toMatchObject({ code: 'internal' });
    expect(decodeError(undefined)).toMatchObject({ code: 'internal', message: 'undefined' });
  });

  it('returns a HostError unchanged', () => {
    const e = new HostError('patch.invalid', 'bad op');
    expect(decodeError(e)).toBe(e);
  });

  it('treats null details as absent', () => {
    expect(decodeError({ code: 'a.b', message: 'm', details: null }).details).toBeUndefined();
  });
});

describe('isErrorShape', () => {
  it.each([
    [{ code: 'a.b', message: 'm' }, true],
    [{ code: 'a.b', message: 'm', details: { x: 1 } }, true],
    [{ code: '', message: 'm' }, false],
    [{ code: 'a.b' }, false],
    [{ code: 'a.b', message: 'm', details: [1] }, false],
    [null, false],
    ['a.b', false],
  ])('%j → %s', (v, want) => {
    expect(isErrorShape(v)).toBe(want);
  });
});

import { describe, expect, it } from 'vitest';
import { ensureMessageMediaIsArray, getMediaDisplay, getMediaIndex, uploadMedia } from './media';

describe('uploadMedia', () => {
  it('sends a Blob as base64 with its name, and passes base64 through', async () => {
    const calls: unknown[][] = [];
    const call = async (method: string, ...args: unknown[]) => {
      calls.push([method, ...args]);
      return { url: '/api/media/x.png', type: 'image', mime: 'image/png', size: 3, name: 'a.png' };
    };
    const file = new File([new Uint8Array([1, 2, 255])], 'a.png', { type: 'image/png' });
    await uploadMedia(call, file);
    await uploadMedia(call, { fileName: 'b.txt', base64: 'aGk=' });
    expect(calls).toEqual([
      ['chat.uploadMedia', { fileName: 'a.png', base64: 'AQL/' }],
      ['chat.uploadMedia', { fileName: 'b.txt', base64: 'aGk=' }],
    ]);
  });
});

describe('media helpers', () => {
  it('ensureMessageMediaIsArray moves legacy attachments into the arrays', () => {
    const m = { extra: { image: '/a.png', title: 'A', video: '/v.mp4', file: { url: '/f.txt', name: 'f.txt' }, media: { url: '/b.png', type: 'image' } } };
    ensureMessageMediaIsArray(m);
    expect(m.extra).toEqual({
      media: [{ url: '/b.png', type: 'image' }, { url: '/a.png', type: 'image', title: 'A' }, { url: '/v.mp4', type: 'video' }],
      files: [{ url: '/f.txt', name: 'f.txt' }],
      title: 'A',
    });
    const plain = { extra: { media: [{ url: '/c.png', type: 'image' }] } };
    ensureMessageMediaIsArray(plain);
    expect(plain.extra).toEqual({ media: [{ url: '/c.png', type: 'image' }] });
    ensureMessageMediaIsArray({});
  });

  it('getMediaDisplay and getMediaIndex default and clamp', () => {
    expect(getMediaDisplay({})).toBe('list');
    expect(getMediaDisplay({ extra: { media_display: 'gallery' } })).toBe('gallery');
    expect(getMediaDisplay({ extra: { media_display: 'weird' } })).toBe('list');
    const two = [{}, {}];
    expect(getMediaIndex({ extra: { media: two, media_index: 1 } })).toBe(1);
    expect(getMediaIndex({ extra: { media: two, media_index: 2 } })).toBe(0);
    expect(getMediaIndex({ extra: { media: two, media_index: -1 } })).toBe(0);
    expect(getMediaIndex({ extra: { media_index: 0.5 } })).toBe(0);
  });
});

// Message attachments: chat.uploadMedia (a File, a Blob or base64 in, a
// content-addressed reference out) and SillyTavern's pure media helpers of
// getContext(). Attachments live in a message's extra.media[] (images,
// video, audio) and extra.files[] (other files), as SillyTavern keeps them.
import type { Call } from './host';
import type { MediaRef } from './types';

/** What uploadMedia accepts: a browser File or Blob, or base64 with a name. */
export type MediaUpload = Blob | { fileName?: string; base64: string };

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** uploadMedia stores a file on the host and resolves its reference. */
export async function uploadMedia(call: Call, file: MediaUpload): Promise<MediaRef> {
  if (typeof Blob !== 'undefined' && file instanceof Blob) {
    const base64 = toBase64(new Uint8Array(await file.arrayBuffer()));
    const fileName = 'name' in file && typeof file.name === 'string' ? file.name : '';
    return (await call('chat.uploadMedia', { fileName, base64 })) as MediaRef;
  }
  return (await call('chat.uploadMedia', file)) as MediaRef;
}

type Extra = Record<string, unknown>;
type WithExtra = { extra?: Extra };

/**
 * ensureMessageMediaIsArray moves legacy single attachments (extra.image,
 * extra.video, extra.file, a non-array extra.media) into the arrays, in
 * place, as SillyTavern does. Call it on your own copy of a message: the
 * messages getContext().chat hands out are read-only.
 */
export function ensureMessageMediaIsArray(message: WithExtra): void {
  const extra = message.extra;
  if (typeof extra !== 'object' || extra === null) return;
  const media: unknown[] = Array.isArray(extra.media) ? extra.media : extra.media ? [extra.media] : [];
  const files: unknown[] = Array.isArray(extra.files) ? extra.files : [];
  if (typeof extra.image === 'string' && extra.image) media.push({ url: extra.image, type: 'image', title: extra.title ?? '' });
  if (typeof extra.video === 'string' && extra.video) media.push({ url: extra.video, type: 'video' });
  if (typeof extra.file === 'object' && extra.file !== null) files.push(extra.file);
  delete extra.image;
  delete extra.video;
  delete extra.file;
  if (media.length > 0) extra.media = media;
  else delete extra.media;
  if (files.length > 0) extra.files = files;
}

/** The media display modes (SillyTavern's MEDIA_DISPLAY). */
export const MEDIA_DISPLAY = Object.freeze({ LIST: 'list', GALLERY: 'gallery' });

/** getMediaDisplay is the message's display mode, else the default (list). */
export function getMediaDisplay(message: WithExtra): string {
  const d = message.extra?.media_display;
  return d === MEDIA_DISPLAY.GALLERY || d === MEDIA_DISPLAY.LIST ? d : MEDIA_DISPLAY.LIST;
}

/** getMediaIndex is the gallery's selected item, clamped into range (0 when out of range). */
export function getMediaIndex(message: WithExtra): number {
  const media = message.extra?.media;
  const n = Array.isArray(media) ? media.length : 0;
  const i = message.extra?.media_index;
  return typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < n ? i : 0;
}

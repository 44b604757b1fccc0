// What a group's picture may be, and how its members' collage is laid out.

/**
 * PICTURE_DATA_URL matches the pictures a group may show as its own: a
 * base64 raster image inside the group (SillyTavern's editor stores an
 * uploaded group picture as such a data: URL). The windows' CSP allows
 * img-src 'self' data: blob:, so anything else — SillyTavern's default
 * 'img/ai4.png' (a file Hearth does not serve), a path, a remote URL, an
 * SVG that could reach out — is not loaded, and the members' collage shows.
 */
const PICTURE_DATA_URL = /^data:image\/(?:png|jpeg|jpg|gif|webp|avif|bmp);base64,[A-Za-z0-9+/=\s]+$/i;

/** groupPicture returns avatar_url when it is a picture of the group's own that is safe to load, else null. */
export function groupPicture(avatarUrl: string | null | undefined): string | null {
  if (typeof avatarUrl !== 'string') return null;
  const url = avatarUrl.trim();
  return PICTURE_DATA_URL.test(url) ? url : null;
}

/** CollageCell is one member's place in the circle, in percent of its side. */
export interface CollageCell {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * collageCells lays out up to four members: one fills the circle, two split
 * it down the middle, three give the first the left half and the others a
 * quarter each on the right, four make a 2×2 grid.
 */
export function collageCells(count: number): CollageCell[] {
  const n = Math.max(0, Math.min(4, Math.floor(count)));
  if (n === 0) return [];
  if (n === 1) return [{ x: 0, y: 0, w: 100, h: 100 }];
  if (n === 2) return [{ x: 0, y: 0, w: 50, h: 100 }, { x: 50, y: 0, w: 50, h: 100 }];
  if (n === 3) return [{ x: 0, y: 0, w: 50, h: 100 }, { x: 50, y: 0, w: 50, h: 50 }, { x: 50, y: 50, w: 50, h: 50 }];
  return [
    { x: 0, y: 0, w: 50, h: 50 },
    { x: 50, y: 0, w: 50, h: 50 },
    { x: 0, y: 50, w: 50, h: 50 },
    { x: 50, y: 50, w: 50, h: 50 },
  ];
}

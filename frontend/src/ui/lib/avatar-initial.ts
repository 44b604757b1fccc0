// The letter and colour an avatar without a picture shows (Avatar, GroupAvatar).

/** avatarInitial is the name's first letter or digit, upper-cased ('?' for none). */
export function avatarInitial(name: string): string {
  return (name.trim().match(/\p{L}|\p{N}/u)?.[0] ?? '?').toUpperCase();
}

/** avatarHue derives a stable hue (0–359) from the name, so a name keeps its colour. */
export function avatarHue(name: string): number {
  let h = 0;
  for (const ch of name) h = (h * 31 + (ch.codePointAt(0) ?? 0)) % 360;
  return h;
}

// Deterministic SillyTavern-shaped messages for the large-chat test: user
// and assistant turns alternating, 300–1500-character prose bodies with
// *actions* and "dialogue", two swipes on assistant turns. A seeded PRNG
// (mulberry32) makes every run create the same chat.

const WORDS = (
  'the lantern river forest whisper stone ember quietly shadow morning tavern road ' +
  'ancient careful smiled traced map cloak window rain fire glade healer stranger ' +
  'remembered silver silence breath storm path warm distant hollow bright kettle'
).split(' ');

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function prose(rand, target) {
  const out = [];
  let len = 0;
  while (len < target) {
    const n = 6 + Math.floor(rand() * 12);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]);
    let s = words.join(' ');
    s = s[0].toUpperCase() + s.slice(1);
    const kind = rand();
    s = kind < 0.2 ? `*${s}.*` : kind < 0.5 ? `"${s}?"` : `${s}.`;
    out.push(s);
    len += s.length + 1;
    if (rand() < 0.15) out.push('\n\n');
  }
  return out.join(' ');
}

/** messages returns count messages; the first is a user turn when firstIsUser. */
export function messages(count, { seed = 42, firstIsUser = true, charName = 'Cleo' } = {}) {
  const rand = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => {
    const isUser = (i % 2 === 0) === firstIsUser;
    const body = () => prose(rand, 300 + Math.floor(rand() * 1200));
    if (isUser) return { name: 'User', is_user: true, mes: body() };
    const swipes = [body(), body()];
    const swipe_id = Math.floor(rand() * 2);
    return { name: charName, is_user: false, mes: swipes[swipe_id], swipes, swipe_id, extra: { model: 'e2e-gen' } };
  });
}

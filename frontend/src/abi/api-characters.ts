// api.characters: the characters.* host methods, plus avatarUrl, which
// needs no call: the browser server and the desktop asset handler both
// serve avatar images under the same path.
import { bind } from './bind';
import type { Call } from './host';
import type { CharactersApi } from './types';

const CHARACTER_METHODS = ['list', 'get', 'create', 'update', 'delete', 'importCard', 'exportCard', 'saveCard'] as const;

/** avatarUrl returns the image URL for a character's avatar key. */
export function avatarUrl(avatar: string): string {
  return `/api/avatar/${encodeURIComponent(avatar)}`;
}

/** createCharactersApi returns the frozen api.characters. */
export function createCharactersApi(call: Call): CharactersApi {
  return Object.freeze({
    ...bind<CharactersApi>(call, 'characters')(CHARACTER_METHODS),
    avatarUrl,
  });
}

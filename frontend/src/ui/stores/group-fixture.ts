// A group as the host answers it, for tests: SillyTavern's defaults, then fields.
import type { Group } from '../../abi/types';

export function groupFixture(id: string, name: string, fields: Partial<Group> = {}): Group {
  return {
    id,
    name,
    members: ['a.png'],
    disabled_members: [],
    activation_strategy: 0,
    generation_mode: 0,
    allow_self_responses: false,
    auto_mode_delay: 5,
    generation_mode_join_prefix: '',
    generation_mode_join_suffix: '',
    avatar_url: 'img/ai4.png',
    fav: false,
    chat_id: id,
    chats: [id],
    date_added: 1,
    date_last_chat: 0,
    chat_size: 0,
    updatedAt: 1,
    ...fields,
  };
}

-- Hearth schema v4: what an imported SillyTavern JSONL header line carried
-- besides chat_metadata (which becomes the chat's metadata), so that an
-- export writes it back: user_name, character_name, create_date and any
-- key Hearth does not know. Chats made in Hearth have no row; their export
-- header is built from the chat and its character.
CREATE TABLE chat_jsonl_headers (
    chat_id INTEGER PRIMARY KEY REFERENCES chats (id) ON DELETE CASCADE,
    header  TEXT NOT NULL              -- JSON object: the header line without chat_metadata
);

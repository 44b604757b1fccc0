-- Hearth schema v1: characters, chats, messages, swipes, change journal.
-- Order-carrying rows (messages) stay small so renumbering after a middle
-- delete rewrites little; bodies and swipes live in their own tables.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE characters (
    id         INTEGER PRIMARY KEY,
    avatar     TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    card       TEXT NOT NULL,            -- JSON object: the V2 card `data` fields, unknown keys kept
    image      TEXT,                     -- media file name (content-addressed), NULL for none
    created_at INTEGER NOT NULL,         -- unix ms
    updated_at INTEGER NOT NULL
);

CREATE TABLE chats (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,
    owner_kind    TEXT NOT NULL CHECK (owner_kind IN ('character', 'group')),
    owner         TEXT NOT NULL,         -- character avatar or group id
    file_name     TEXT NOT NULL,
    kind          TEXT NOT NULL DEFAULT 'main' CHECK (kind IN ('main', 'checkpoint', 'branch')),
    parent_uuid   TEXT,
    branch_point  INTEGER,
    metadata      TEXT NOT NULL DEFAULT '{}',
    revision      INTEGER NOT NULL DEFAULT 0,
    message_count INTEGER NOT NULL DEFAULT 0,
    bytes         INTEGER NOT NULL DEFAULT 0, -- size of the chat as SillyTavern JSONL, kept incrementally
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,      -- last change, unix ms (SillyTavern's last_mes)
    change_seq    INTEGER NOT NULL,      -- database-wide order of last change: breaks same-millisecond ties
    UNIQUE (owner_kind, owner, file_name)
);
CREATE INDEX chats_by_owner ON chats (owner_kind, owner, change_seq DESC);
CREATE INDEX chats_by_change ON chats (change_seq);

CREATE TABLE messages (
    id      INTEGER PRIMARY KEY,
    chat_id INTEGER NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    idx     INTEGER NOT NULL,
    uuid    TEXT NOT NULL UNIQUE,
    UNIQUE (chat_id, idx)
);

CREATE TABLE message_bodies (
    message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    is_user    INTEGER NOT NULL,
    is_system  INTEGER NOT NULL,
    hidden     INTEGER NOT NULL DEFAULT 0, -- mirrors extra.hidden for retrieval queries
    swipe_id   INTEGER NOT NULL,
    extra      TEXT NOT NULL,              -- JSON object
    fields     TEXT NOT NULL               -- JSON object: every other top-level key (send_date, title, unknown keys)
);

CREATE TABLE message_swipes (
    id         INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    ord        INTEGER NOT NULL,
    mes        TEXT NOT NULL,
    info       TEXT NOT NULL,              -- JSON object: this swipe's swipe_info entry
    UNIQUE (message_id, ord)
);

CREATE TABLE chat_journal (
    chat_id    INTEGER NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    revision   INTEGER NOT NULL,
    method     TEXT NOT NULL,
    ops        TEXT NOT NULL,              -- RFC 6902 operations, old -> new
    inverse    TEXT NOT NULL,              -- RFC 6902 operations, new -> old
    size       INTEGER NOT NULL,           -- bytes of ops + inverse, for the per-chat cap
    created_at INTEGER NOT NULL,
    PRIMARY KEY (chat_id, revision)
);

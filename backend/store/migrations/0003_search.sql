-- Hearth schema v3: search chunks and their full-text index (HOST-ABI §3.6).

-- What a message contributes to search, read straight from the message
-- rows: the active swipe's text, the chat role (is_user → user; a narrator
-- message → system; anything else → assistant) and extra.hidden. The one
-- place this rule lives: the backfill below and every rebuild select from it.
CREATE VIEW chunk_source AS
SELECT m.id AS message_id,
       m.chat_id AS chat_id,
       CASE WHEN b.is_user THEN 'user'
            WHEN json_extract(b.extra, '$.type') = 'narrator' THEN 'system'
            ELSE 'assistant' END AS role,
       b.hidden AS hidden,
       s.mes AS body
FROM messages m
JOIN message_bodies b ON b.message_id = m.id
JOIN message_swipes s ON s.message_id = m.id AND s.ord = b.swipe_id;

-- One chunk per message, hidden ones included but flagged: search leaves
-- them out unless asked, and retrieval reads only hidden = 0. A message is
-- one chunk whatever its length (a hit names a message; BM25 weighs length).
-- The CHECK keeps the ids inside the bits of the index key (chunks_fts), so
-- an overflow fails a write instead of mixing chats up.
CREATE TABLE chunks (
    message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    chat_id    INTEGER NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    hidden     INTEGER NOT NULL,
    chars      INTEGER NOT NULL,          -- length(body) in characters: BM25 of 1–2 character queries
    body       TEXT NOT NULL,
    CHECK (message_id > 0 AND message_id < 137438953472 AND chat_id > 0 AND chat_id < 67108864)
);
-- Covers a search's look-ups of candidate messages by (chat, message),
-- which so never read the pages holding the text.
CREATE INDEX chunks_by_chat ON chunks (chat_id, message_id, role, hidden, chars);

-- Messages whose chunk is missing or out of date. Triggers queue every
-- message row inserted and every change to what a chunk is made of, by
-- whatever code (a write, chat creation, a branch's INSERT … SELECT, an
-- import, a write with skipChunkRebuild), so no path can leave a chunk
-- stale unnoticed. Emptied for a chat by its next write that does not skip
-- the rebuild, and before a search reads it.
CREATE TABLE chunks_pending (
    message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    chat_id    INTEGER NOT NULL
);
CREATE INDEX chunks_pending_by_chat ON chunks_pending (chat_id);

CREATE TRIGGER message_added AFTER INSERT ON messages BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) VALUES (new.id, new.chat_id);
END;

CREATE TRIGGER message_body_changed AFTER UPDATE OF is_user, hidden, swipe_id, extra ON message_bodies BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE id = new.message_id;
END;

CREATE TRIGGER message_swipe_added AFTER INSERT ON message_swipes BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE id = new.message_id;
END;

CREATE TRIGGER message_swipe_changed AFTER UPDATE OF mes, ord ON message_swipes BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE id = new.message_id;
END;

-- The full-text index: trigrams (substrings of 3+ characters in any script,
-- case-folded), contentless (the text lives in chunks). Its rowid, the key,
-- is chat_id << 37 | message_id, so one chat's rows are one rowid range that
-- FTS5 seeks directly. Each body is indexed with two U+FDD0 after it (a
-- noncharacter, which queries drop): then every occurrence of a 1–2
-- character string starts some trigram, and chunks_terms finds it by prefix.
-- Fewer, larger merges (automerge 16) keep writes cheap; queries hardly notice.
CREATE VIRTUAL TABLE chunks_fts USING fts5 (body, content = '', contentless_delete = 1, tokenize = 'trigram');
CREATE VIRTUAL TABLE chunks_terms USING fts5vocab (chunks_fts, 'instance');
INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', 16);

-- Backfill: every message already stored gets its chunk, indexed now.
INSERT INTO chunks (message_id, chat_id, role, hidden, chars, body)
SELECT message_id, chat_id, role, hidden, length(body), body FROM chunk_source WHERE true;
INSERT INTO chunks_fts (rowid, body) SELECT (chat_id << 37) | message_id, body || char(64976, 64976) FROM chunks;

-- Index work left to do, by key. Indexing a message costs about a
-- millisecond of trigram tokenizing and merging, and un-indexing a deleted
-- chat one per message, so writes only queue it (triggers below); it is
-- done after the write commits, in the background, and before any search
-- reads the rows. stale = 1: the index still holds an old version of the
-- key that must go first. (Invariant: the index holds the key exactly when
-- it has a chunk and is not queued, or is queued with stale = 1.)
CREATE TABLE chunks_unindexed (
    key   INTEGER PRIMARY KEY,
    stale INTEGER NOT NULL
);

CREATE TRIGGER chunk_added AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_unindexed (key, stale) VALUES ((new.chat_id << 37) | new.message_id, 0) ON CONFLICT (key) DO NOTHING;
END;

CREATE TRIGGER chunk_rewritten AFTER UPDATE OF body ON chunks WHEN old.body IS NOT new.body BEGIN
    INSERT INTO chunks_unindexed (key, stale) VALUES ((old.chat_id << 37) | old.message_id, 1) ON CONFLICT (key) DO NOTHING;
END;

-- Also fires for chunks removed by cascade (a message or a chat deleted).
CREATE TRIGGER chunk_removed AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_unindexed (key, stale) VALUES ((old.chat_id << 37) | old.message_id, 1) ON CONFLICT (key) DO NOTHING;
END;

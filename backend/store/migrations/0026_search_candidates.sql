-- Hearth schema v26: the search index keeps no positions, and search
-- chunks no copy of the text.
--
-- The trigram index with positions (detail=full) and the chunks' copy of
-- each message's text were two thirds of the database besides the
-- messages: 31 MB and 14 MB for a 10,000-message chat whose SillyTavern
-- file is 47 MB. Without positions the index is a fifth of that, but FTS5
-- can no longer match a phrase (a query's trigrams in sequence): a search
-- now asks it for the messages holding every trigram of the query, and
-- checks each one's text for the query itself (chats/search_index.go),
-- reading the text where it lives, through chunk_source.

-- Chunks keep what a search filters and ranks on; the text comes from
-- chunk_source. The table is rebuilt to drop its body (and the triggers
-- on it go with it).
CREATE TABLE chunks_v26 (
    message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    chat_id    INTEGER NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    hidden     INTEGER NOT NULL,
    chars      INTEGER NOT NULL,          -- the text's length in characters: BM25
    CHECK (message_id > 0 AND message_id < 137438953472 AND chat_id > 0 AND chat_id < 67108864)
);
INSERT INTO chunks_v26 (message_id, chat_id, role, hidden, chars)
SELECT message_id, chat_id, role, hidden, chars FROM chunks;
DROP TABLE chunks;
ALTER TABLE chunks_v26 RENAME TO chunks;
CREATE INDEX chunks_by_chat ON chunks (chat_id, message_id, role, hidden, chars);

-- The index, as in schema v3 but without positions, starts empty: every
-- chunk is queued for the background indexer (and for a search's
-- catch-up, which indexes what it reads before reading it).
DROP TABLE chunks_terms;
DROP TABLE chunks_fts;
CREATE VIRTUAL TABLE chunks_fts USING fts5 (body, content = '', contentless_delete = 1, tokenize = 'trigram', detail = 'none');
CREATE VIRTUAL TABLE chunks_terms USING fts5vocab (chunks_fts, 'instance');
INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', 16);
DELETE FROM chunks_unindexed;
INSERT INTO chunks_unindexed (key, stale) SELECT (chat_id << 37) | message_id, 0 FROM chunks WHERE true;

-- Index work queued as in schema v3, for rows added and removed.
CREATE TRIGGER chunk_added AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_unindexed (key, stale) VALUES ((new.chat_id << 37) | new.message_id, 0) ON CONFLICT (key) DO NOTHING;
END;

CREATE TRIGGER chunk_removed AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_unindexed (key, stale) VALUES ((old.chat_id << 37) | old.message_id, 1) ON CONFLICT (key) DO NOTHING;
END;

-- A chunk no longer holds the text whose change re-indexed it (schema v3's
-- chunk_rewritten): the triggers that see a message's active text change
-- queue its re-indexing themselves, for every indexed message showing the
-- body: a swipe added as the active one, the active swipe edited or
-- moved, another swipe chosen, the message pointed at another body. (A
-- swipe is removed only along with a change of the others' ord or the
-- swipe_id, or with its message.)
-- A message without a chunk yet is indexed when it gets one (chunk_added),
-- with the text current then. Each keeps queueing the chunk rebuild too.
DROP TRIGGER message_swipe_added;
CREATE TRIGGER message_swipe_added AFTER INSERT ON message_swipes BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE body_id = new.body_id;
    INSERT INTO chunks_unindexed (key, stale)
    SELECT (c.chat_id << 37) | c.message_id, 1 FROM messages m JOIN chunks c ON c.message_id = m.id
    WHERE m.body_id = new.body_id AND new.ord = (SELECT swipe_id FROM message_bodies WHERE id = new.body_id)
    ON CONFLICT (key) DO NOTHING;
END;

DROP TRIGGER message_swipe_changed;
CREATE TRIGGER message_swipe_changed AFTER UPDATE OF mes, ord ON message_swipes BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE body_id = new.body_id;
    INSERT INTO chunks_unindexed (key, stale)
    SELECT (c.chat_id << 37) | c.message_id, 1 FROM messages m JOIN chunks c ON c.message_id = m.id
    WHERE m.body_id = new.body_id AND (old.mes IS NOT new.mes OR old.ord IS NOT new.ord)
      AND (SELECT swipe_id FROM message_bodies WHERE id = new.body_id) IN (old.ord, new.ord)
    ON CONFLICT (key) DO NOTHING;
END;

DROP TRIGGER message_body_changed;
CREATE TRIGGER message_body_changed AFTER UPDATE OF is_user, hidden, swipe_id, extra ON message_bodies BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE body_id = new.id;
    INSERT INTO chunks_unindexed (key, stale)
    SELECT (c.chat_id << 37) | c.message_id, 1 FROM messages m JOIN chunks c ON c.message_id = m.id
    WHERE m.body_id = new.id AND old.swipe_id IS NOT new.swipe_id
    ON CONFLICT (key) DO NOTHING;
END;

DROP TRIGGER message_body_moved;
CREATE TRIGGER message_body_moved AFTER UPDATE OF body_id ON messages BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) VALUES (new.id, new.chat_id);
    INSERT INTO chunks_unindexed (key, stale)
    SELECT (chat_id << 37) | message_id, 1 FROM chunks WHERE message_id = new.id AND old.body_id IS NOT new.body_id
    ON CONFLICT (key) DO NOTHING;
END;

-- Hearth schema v26: the search index keeps no positions, and search
-- chunks no copy of the text.
--
-- The trigram index with positions (detail=full) and the chunks' copy of
-- each message's text were two thirds of the database besides the
-- messages: 31 MB and 14 MB for a 10,000-message chat whose SillyTavern
-- file is 47 MB. Without positions the index is a fifth of that, but FTS5
-- can no longer match a phrase (a query's trigrams in sequence): a search
-- now asks it for the messages holding every trigram of the query, and
-- checks each one's text for the query itself (search/search_index.go),
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
-- chunk_rewritten, gone with the old table). Every change to a message's
-- active text already queues the message in chunks_pending (the triggers
-- of schema v17, and the code that inserts messages); rebuilding a queued
-- message that has a chunk queues its re-indexing too (search.rebuildQueued).
-- The triggers stay one statement each: they fire for every swipe row an
-- import writes.

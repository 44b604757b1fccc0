-- Hearth schema v23: floor commits clustered by their key, without
-- foreign-key look-ups on insert.
--
-- A checkpoint or branch at message 9,000 copies about 9,000 commits, and
-- each copied row cost a rowid table, its primary-key index, two indexes,
-- and a look-up in messages and in floor_states for the two foreign keys:
-- about 10 µs a row, half of the whole branch. The table is now WITHOUT
-- ROWID (the primary key is the table), and the two references are kept
-- by the code that writes commits (always in the transaction that read the
-- message and the namespace) instead of being checked for every row. What
-- their cascades did, triggers do: a message or a floor state that goes
-- takes its commits along.
--
-- floor_commit_keys references floor_commits, and dropping a parent with
-- foreign keys on deletes its children first, so the keys are set aside
-- and brought back around the rebuild.

CREATE TEMP TABLE floor_commit_keys_v23 AS SELECT chat_id, ns, key, seq FROM floor_commit_keys;
DROP TABLE floor_commit_keys;

CREATE TABLE floor_commits_v23 (
    chat_id    INTEGER NOT NULL,
    ns         TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    message_id INTEGER NOT NULL,        -- messages.id; goes with the message
    swipe_id   INTEGER NOT NULL,
    ops        TEXT NOT NULL,           -- RFC 6902 operations
    key        TEXT,                    -- the first top-level key the ops touch
    PRIMARY KEY (chat_id, ns, seq)      -- (chat_id, ns) is a floor_states row; goes with it
) WITHOUT ROWID;
INSERT INTO floor_commits_v23 (chat_id, ns, seq, message_id, swipe_id, ops, key)
SELECT chat_id, ns, seq, message_id, swipe_id, ops, key FROM floor_commits;
DROP TABLE floor_commits;
ALTER TABLE floor_commits_v23 RENAME TO floor_commits;

CREATE INDEX floor_commits_by_message ON floor_commits (message_id);
CREATE INDEX floor_commits_by_key ON floor_commits (chat_id, ns, key, seq) WHERE key IS NOT NULL;

CREATE TRIGGER floor_commits_message_gone AFTER DELETE ON messages BEGIN
    DELETE FROM floor_commits WHERE message_id = old.id;
END;

CREATE TRIGGER floor_commits_state_gone AFTER DELETE ON floor_states BEGIN
    DELETE FROM floor_commits WHERE chat_id = old.chat_id AND ns = old.ns;
END;

-- As in schema v18: a commit that goes notes its namespace and its key.
CREATE TRIGGER floor_commit_dropped AFTER DELETE ON floor_commits
WHEN EXISTS (SELECT 1 FROM chats WHERE id = old.chat_id) BEGIN
    INSERT OR IGNORE INTO floor_dirty (chat_id, ns) VALUES (old.chat_id, old.ns);
    INSERT OR IGNORE INTO floor_dirty_keys (chat_id, ns, key) SELECT old.chat_id, old.ns, old.key WHERE old.key IS NOT NULL;
END;

-- floor_commit_keys as in schema v6.
CREATE TABLE floor_commit_keys (
    chat_id INTEGER NOT NULL,
    ns      TEXT NOT NULL,
    key     TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    PRIMARY KEY (chat_id, ns, key, seq),
    FOREIGN KEY (chat_id, ns, seq) REFERENCES floor_commits (chat_id, ns, seq) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX floor_commit_keys_by_commit ON floor_commit_keys (chat_id, ns, seq);
INSERT INTO floor_commit_keys (chat_id, ns, key, seq) SELECT chat_id, ns, key, seq FROM temp.floor_commit_keys_v23;
DROP TABLE temp.floor_commit_keys_v23;

CREATE TRIGGER floor_key_dropped AFTER DELETE ON floor_commit_keys BEGIN
    INSERT OR IGNORE INTO floor_dirty_keys (chat_id, ns, key)
    SELECT old.chat_id, old.ns, old.key WHERE EXISTS (SELECT 1 FROM chats WHERE id = old.chat_id);
END;

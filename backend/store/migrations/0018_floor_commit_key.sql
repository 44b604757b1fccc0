-- Hearth schema v18: a floor commit's first key in its own row.
--
-- Nearly every commit a reducer makes touches one top-level key, and the
-- key lived only in floor_commit_keys: a second row per commit, with its
-- own index and a foreign-key check, written on every commit and copied
-- for every commit a branch or checkpoint takes along (about half of
-- copying a floor log). The first key a commit touches is now a column of
-- floor_commits, indexed for the key-by-key settle; floor_commit_keys
-- keeps only the second and later keys of the commits that touch several.
-- A commit whose key is NULL touches no key (its operations act on the
-- whole value) and has no rows there.

ALTER TABLE floor_commits ADD COLUMN key TEXT;

-- Moving a key row into its commit is not a dropped key: no notes.
DROP TRIGGER floor_key_dropped;

UPDATE floor_commits SET key = (
    SELECT min(fk.key) FROM floor_commit_keys fk
    WHERE fk.chat_id = floor_commits.chat_id AND fk.ns = floor_commits.ns AND fk.seq = floor_commits.seq);

DELETE FROM floor_commit_keys WHERE key = (
    SELECT fc.key FROM floor_commits fc
    WHERE fc.chat_id = floor_commit_keys.chat_id AND fc.ns = floor_commit_keys.ns AND fc.seq = floor_commit_keys.seq);

CREATE INDEX floor_commits_by_key ON floor_commits (chat_id, ns, key, seq) WHERE key IS NOT NULL;

CREATE TRIGGER floor_key_dropped AFTER DELETE ON floor_commit_keys BEGIN
    INSERT OR IGNORE INTO floor_dirty_keys (chat_id, ns, key)
    SELECT old.chat_id, old.ns, old.key WHERE EXISTS (SELECT 1 FROM chats WHERE id = old.chat_id);
END;

-- A commit that goes notes its namespace and, now, its own key.
DROP TRIGGER floor_commit_dropped;
CREATE TRIGGER floor_commit_dropped AFTER DELETE ON floor_commits
WHEN EXISTS (SELECT 1 FROM chats WHERE id = old.chat_id) BEGIN
    INSERT OR IGNORE INTO floor_dirty (chat_id, ns) VALUES (old.chat_id, old.ns);
    INSERT OR IGNORE INTO floor_dirty_keys (chat_id, ns, key) SELECT old.chat_id, old.ns, old.key WHERE old.key IS NOT NULL;
END;

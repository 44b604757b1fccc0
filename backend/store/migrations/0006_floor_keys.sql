-- Hearth schema v6: which top-level keys each floor-state commit touches,
-- so settling a change replays only the keys it affects (HOST-ABI §4.2).
--
-- A floor state's value is an object; an operation on /k/... reads and
-- writes only key k. So when the active commits change (a message or swipe
-- deleted, a swipe chosen, a branch cut), every key that no affected commit
-- touches keeps its value, and each key that one touches is the replay of
-- the commits touching it alone. A namespace is "entangled" once a commit
-- reads or writes the whole value (path "") or moves or copies one key
-- into another: from then on settling replays its whole log.

ALTER TABLE floor_states ADD COLUMN entangled INTEGER NOT NULL DEFAULT 0;

-- One row per commit and top-level key it touches; key is the first
-- segment of the JSON pointer as written (~0 and ~1 escapes kept).
CREATE TABLE floor_commit_keys (
    chat_id INTEGER NOT NULL,
    ns      TEXT NOT NULL,
    key     TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    PRIMARY KEY (chat_id, ns, key, seq),
    FOREIGN KEY (chat_id, ns, seq) REFERENCES floor_commits (chat_id, ns, seq) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX floor_commit_keys_by_commit ON floor_commit_keys (chat_id, ns, seq);

-- Keys whose commits changed since the last settle (a commit dropped, by
-- whatever cascade): settling replays them, then clears the notes.
CREATE TABLE floor_dirty_keys (
    chat_id INTEGER NOT NULL,
    ns      TEXT NOT NULL,
    key     TEXT NOT NULL,
    PRIMARY KEY (chat_id, ns, key)
) WITHOUT ROWID;

-- Notes are taken only while the chat exists: deleting a chat (or its
-- character) cascades through its commits and must leave none behind.
CREATE TRIGGER floor_key_dropped AFTER DELETE ON floor_commit_keys BEGIN
    INSERT OR IGNORE INTO floor_dirty_keys (chat_id, ns, key)
    SELECT old.chat_id, old.ns, old.key WHERE EXISTS (SELECT 1 FROM chats WHERE id = old.chat_id);
END;

DROP TRIGGER floor_commit_dropped;
CREATE TRIGGER floor_commit_dropped AFTER DELETE ON floor_commits BEGIN
    INSERT OR IGNORE INTO floor_dirty (chat_id, ns)
    SELECT old.chat_id, old.ns WHERE EXISTS (SELECT 1 FROM chats WHERE id = old.chat_id);
END;
DELETE FROM floor_dirty WHERE chat_id NOT IN (SELECT id FROM chats);

-- Backfill the commits already stored, and mark entangled the namespaces
-- whose commits touch the root or cross keys.
CREATE TEMP VIEW floor_op_paths AS
SELECT fc.chat_id AS chat_id, fc.ns AS ns, fc.seq AS seq,
       json_extract(op.value, '$.op') AS op,
       json_extract(op.value, '$.path') AS path,
       json_extract(op.value, '$.from') AS "from"
FROM floor_commits fc, json_each(fc.ops) op;

INSERT OR IGNORE INTO floor_commit_keys (chat_id, ns, key, seq)
SELECT chat_id, ns, substr(path, 2, instr(substr(path, 2) || '/', '/') - 1), seq
FROM floor_op_paths WHERE path LIKE '/%';

UPDATE floor_states SET entangled = 1 WHERE EXISTS (
    SELECT 1 FROM floor_op_paths p
    WHERE p.chat_id = floor_states.chat_id AND p.ns = floor_states.ns
      AND (p.path IS NULL OR p.path NOT LIKE '/%'
           OR (p.op IN ('move', 'copy') AND (p."from" IS NULL OR p."from" NOT LIKE '/%'
               OR substr(p."from", 2, instr(substr(p."from", 2) || '/', '/') - 1)
                  IS NOT substr(p.path, 2, instr(substr(p.path, 2) || '/', '/') - 1)))));

DROP VIEW floor_op_paths;

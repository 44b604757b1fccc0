-- Hearth schema v2: chat state, floor states and character state.

-- Namespaced JSON per chat with a revision per namespace. A deleted
-- namespace keeps its row with value NULL, so its revision keeps counting
-- and a writer holding a stale revision can never match a re-created one.
CREATE TABLE chat_state (
    chat_id  INTEGER NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    ns       TEXT NOT NULL,
    value    TEXT,
    revision INTEGER NOT NULL,
    PRIMARY KEY (chat_id, ns)
) WITHOUT ROWID;

-- A namespace owned by a floor state: its materialized value lives in
-- chat_state, its commit log in floor_commits.
CREATE TABLE floor_states (
    chat_id  INTEGER NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    ns       TEXT NOT NULL,
    next_seq INTEGER NOT NULL,
    log_rev  INTEGER NOT NULL,           -- +1 whenever the log changes
    PRIMARY KEY (chat_id, ns)
) WITHOUT ROWID;

-- One commit of a floor state, attached to the message row it was made on:
-- deleting the message drops its commits and renumbering follows for free.
CREATE TABLE floor_commits (
    chat_id    INTEGER NOT NULL,
    ns         TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    swipe_id   INTEGER NOT NULL,
    ops        TEXT NOT NULL,           -- RFC 6902 operations
    PRIMARY KEY (chat_id, ns, seq),
    FOREIGN KEY (chat_id, ns) REFERENCES floor_states (chat_id, ns) ON DELETE CASCADE
);
CREATE INDEX floor_commits_by_message ON floor_commits (message_id);

-- Namespaces whose commits went away in the running transaction (a message
-- or swipe deleted): the write settles them and empties this table again
-- before it commits.
CREATE TABLE floor_dirty (
    chat_id INTEGER NOT NULL,
    ns      TEXT NOT NULL,
    PRIMARY KEY (chat_id, ns)
) WITHOUT ROWID;

CREATE TRIGGER floor_commit_dropped AFTER DELETE ON floor_commits BEGIN
    INSERT OR IGNORE INTO floor_dirty (chat_id, ns) VALUES (old.chat_id, old.ns);
END;

-- Namespaced JSON per character card, shared by all its chats.
CREATE TABLE character_state (
    character_id INTEGER NOT NULL REFERENCES characters (id) ON DELETE CASCADE,
    ns           TEXT NOT NULL,
    value        TEXT NOT NULL,
    PRIMARY KEY (character_id, ns)
) WITHOUT ROWID;

-- Hearth schema v10: generation records. A row is written when a
-- generation starts and settled when it ends, so a generation cut short
-- by a crash is found at the next start and reported failed
-- ("interrupted"), and status(generationId) answers after the fact.

CREATE TABLE generations (
    id          TEXT PRIMARY KEY,
    chat_id     TEXT NOT NULL,
    type        TEXT NOT NULL,
    status      TEXT NOT NULL,       -- running, ended, stopped, failed
    error       TEXT,                -- JSON {code, message, details} when failed
    message_id  TEXT,                -- the message the reply landed in
    idx         INTEGER,
    swipe_id    INTEGER,
    started_at  INTEGER NOT NULL,    -- unix ms
    ended_at    INTEGER
);

CREATE INDEX generations_by_chat ON generations (chat_id, started_at);
CREATE INDEX generations_running ON generations (status) WHERE status = 'running';

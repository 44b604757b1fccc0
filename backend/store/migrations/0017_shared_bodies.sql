-- Hearth schema v17: message bodies and swipes shared between chats.
--
-- A checkpoint or branch starts as a copy of its source's first messages.
-- Copying their bodies and swipes (kilobytes each) made a branch at message
-- 9,000 cost about a second, most of it writing text both chats already
-- hold. Now a message row points at its body (message_bodies.id) and its
-- swipes hang off the body, so a branch copies only the small message rows
-- and shares the rest. A write to a shared body first gives the message its
-- own copy (chats/messages_store.go: ownBody), so the chats never see each
-- other's edits. A body goes when the last message pointing at it does.

DROP VIEW chunk_source;

ALTER TABLE messages ADD COLUMN body_id INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET body_id = id;
CREATE INDEX messages_by_body ON messages (body_id);

-- Bodies keep their ids (a body's id was its message's), now their own key.
CREATE TABLE bodies_v17 (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,
    is_user   INTEGER NOT NULL,
    is_system INTEGER NOT NULL,
    hidden    INTEGER NOT NULL DEFAULT 0, -- mirrors extra.hidden for retrieval queries
    swipe_id  INTEGER NOT NULL,
    extra     TEXT NOT NULL,              -- JSON object
    fields    TEXT NOT NULL               -- JSON object: every other top-level key (send_date, title, unknown keys)
);
INSERT INTO bodies_v17 (id, name, is_user, is_system, hidden, swipe_id, extra, fields)
SELECT message_id, name, is_user, is_system, hidden, swipe_id, extra, fields FROM message_bodies;
DROP TABLE message_bodies;
ALTER TABLE bodies_v17 RENAME TO message_bodies;

CREATE TABLE swipes_v17 (
    id      INTEGER PRIMARY KEY,
    body_id INTEGER NOT NULL REFERENCES message_bodies (id) ON DELETE CASCADE,
    ord     INTEGER NOT NULL,
    mes     TEXT NOT NULL,
    info    TEXT NOT NULL,                -- JSON object: this swipe's swipe_info entry
    UNIQUE (body_id, ord)
);
INSERT INTO swipes_v17 (id, body_id, ord, mes, info) SELECT id, message_id, ord, mes, info FROM message_swipes;
DROP TABLE message_swipes;
ALTER TABLE swipes_v17 RENAME TO message_swipes;

-- The last message pointing at a body takes it (and its swipes) along,
-- whether it went alone, in a batch or with its chat.
CREATE TRIGGER message_body_released AFTER DELETE ON messages
WHEN NOT EXISTS (SELECT 1 FROM messages WHERE body_id = old.body_id) BEGIN
    DELETE FROM message_bodies WHERE id = old.body_id;
END;

-- Search chunks (schema v3), read through the body a message points at.
CREATE VIEW chunk_source AS
SELECT m.id AS message_id,
       m.chat_id AS chat_id,
       CASE WHEN b.is_user THEN 'user'
            WHEN json_extract(b.extra, '$.type') = 'narrator' THEN 'system'
            ELSE 'assistant' END AS role,
       b.hidden AS hidden,
       s.mes AS body
FROM messages m
JOIN message_bodies b ON b.id = m.body_id
JOIN message_swipes s ON s.body_id = m.body_id AND s.ord = b.swipe_id;

-- The triggers that queue chunk rebuilds went with the old tables: the
-- same rules, for every message pointing at the changed body, and for a
-- message pointed at another body.
CREATE TRIGGER message_body_changed AFTER UPDATE OF is_user, hidden, swipe_id, extra ON message_bodies BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE body_id = new.id;
END;

CREATE TRIGGER message_swipe_added AFTER INSERT ON message_swipes BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE body_id = new.body_id;
END;

CREATE TRIGGER message_swipe_changed AFTER UPDATE OF mes, ord ON message_swipes BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE body_id = new.body_id;
END;

CREATE TRIGGER message_body_moved AFTER UPDATE OF body_id ON messages BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) VALUES (new.id, new.chat_id);
END;

-- Hearth schema v27: a search chunk names the row that holds its text.
--
-- Since schema v26 a search reads each candidate's text to check it for
-- the query, through chunk_source: the message, its body and the body's
-- active swipe, three lookups and an index seek for each of about a
-- thousand candidates of a typical query over 100,000 messages. A chunk
-- now keeps the rowid of the message_swipes row that holds its text, so a
-- search reads the text in one lookup by that rowid. The chunk is rebuilt
-- whenever the row changes (every change to a message's active text
-- queues it in chunks_pending), and a search leaves out the messages still
-- queued when it reads (search/search_index.go), so a chunk it reads never
-- names a row that stopped being its text.

DROP VIEW chunk_source;
CREATE VIEW chunk_source AS
SELECT m.id AS message_id,
       m.chat_id AS chat_id,
       CASE WHEN b.is_user THEN 'user'
            WHEN json_extract(b.extra, '$.type') = 'narrator' THEN 'system'
            ELSE 'assistant' END AS role,
       b.hidden AS hidden,
       s.id AS swipe_row,
       s.mes AS body
FROM messages m
JOIN message_bodies b ON b.id = m.body_id
JOIN message_swipes s ON s.body_id = m.body_id AND s.ord = b.swipe_id;

ALTER TABLE chunks ADD COLUMN swipe_row INTEGER NOT NULL DEFAULT 0;
UPDATE chunks SET swipe_row = coalesce((SELECT t.swipe_row FROM chunk_source t WHERE t.message_id = chunks.message_id), 0) WHERE true;

-- The covering index a search filters and reads candidates through gains
-- the row.
DROP INDEX chunks_by_chat;
CREATE INDEX chunks_by_chat ON chunks (chat_id, message_id, role, hidden, chars, swipe_row);

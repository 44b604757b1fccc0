-- Hearth schema v19: a copied chat's chunks are rebuilt from a backlog.
--
-- A checkpoint or branch copies thousands of message rows at once, and
-- the message_added trigger queued each in chunks_pending: a row, an index
-- entry and a foreign-key check per message, and then the chat's next
-- write rebuilt every chunk of the copy in its own transaction (a quarter
-- of a second before a reply to a 9,000-message branch was stored). A copy
-- now leaves one backlog row instead: the messages of chat_id with ids from
-- next_message_id up still need their chunks. The background indexer and
-- a search's catch-up work through it in small batches, in id order, and
-- drop the row once past the chat's last message.
CREATE TABLE chunks_backlog (
    chat_id         INTEGER PRIMARY KEY REFERENCES chats (id) ON DELETE CASCADE,
    next_message_id INTEGER NOT NULL
);

-- A message the backlog will reach is not queued on its own. One whose id
-- is below the cursor (an id reused after the largest was deleted) is.
DROP TRIGGER message_added;
CREATE TRIGGER message_added AFTER INSERT ON messages
WHEN NOT EXISTS (SELECT 1 FROM chunks_backlog WHERE chat_id = new.chat_id AND next_message_id <= new.id) BEGIN
    INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) VALUES (new.id, new.chat_id);
END;

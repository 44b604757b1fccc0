-- Hearth schema v20: a chat's last lorebook activation goes with the chat.
--
-- lorebook_activations is keyed by the chat's public id, with no foreign
-- key, and nothing removed a deleted chat's row: it stayed for good, and
-- lastActivation kept answering for a chat that was gone.

DELETE FROM lorebook_activations WHERE chat_id NOT IN (SELECT uuid FROM chats);

CREATE TRIGGER chat_activation_dropped AFTER DELETE ON chats BEGIN
    DELETE FROM lorebook_activations WHERE chat_id = old.uuid;
END;

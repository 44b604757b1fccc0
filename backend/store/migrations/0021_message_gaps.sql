-- Hearth schema v21: deleting a message leaves its position vacant.
--
-- messages.idx was the message's index, so deleting one in the middle of
-- a long chat renumbered every row after it (about 25 ms for 5,000 rows).
-- Now idx is a position, in chat order but with vacancies: each chat lists
-- its vacant positions in idx_gaps (internal/msgorder encodes them), and a
-- message's index is its position less the vacancies below it. A chat with
-- no vacancies (every chat, until its first delete in the middle) stores
-- an empty list, and its positions are its indexes.

ALTER TABLE chats ADD COLUMN idx_gaps BLOB NOT NULL DEFAULT x'';

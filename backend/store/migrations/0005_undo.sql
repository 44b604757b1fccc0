-- Hearth schema v5: undo and redo over the chat change journal.

-- The journal entry of an undo or a redo (chat_journal.method 'undo' or
-- 'redo') names the revision of the ordinary write whose change it
-- reverted or re-applied; every journal entry without a row here is an
-- ordinary write. The row is written in the same transaction as its
-- journal entry but before it (the journal row goes in last), hence the
-- deferred key; it goes when the journal entry is pruned or the chat deleted.
CREATE TABLE chat_undo (
    chat_id  INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    target   INTEGER NOT NULL,
    PRIMARY KEY (chat_id, revision),
    FOREIGN KEY (chat_id, revision) REFERENCES chat_journal (chat_id, revision)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;

-- Undo walks the journal newest first reading revisions and methods, and
-- pruning sums entry sizes; both read this index instead of rows whose
-- operations spill over many pages.
CREATE INDEX chat_journal_heads ON chat_journal (chat_id, revision, method, size);

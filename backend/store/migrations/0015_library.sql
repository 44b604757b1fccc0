-- Hearth schema v15: the SillyTavern library import ledger (backend/library).
--
-- library_imports remembers every item an import of a SillyTavern user
-- folder stored, so importing the same folder again duplicates nothing:
-- an item is known by its library (the user folder's absolute path), its
-- kind and its path inside the folder (source_key, '/'-separated). The
-- content hash tells "already imported" from "changed since the last
-- import", and finds a folder that was moved or copied. hearth_id is what
-- the item became (a character's avatar, a chat's id, a book's name, a
-- persona's or preset's id); extra holds what Hearth has no field for but
-- an export writes back (a persona descriptor's unknown keys), as JSON.
CREATE TABLE library_imports (
    library        TEXT NOT NULL,
    kind           TEXT NOT NULL,        -- lorebook, character, chat, group, persona, preset, settings
    source_key     TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    hearth_id      TEXT NOT NULL,
    extra          TEXT,
    imported_ms    INTEGER NOT NULL,
    PRIMARY KEY (library, kind, source_key)
);
CREATE INDEX library_imports_content ON library_imports (kind, source_key, content_sha256);
CREATE INDEX library_imports_hearth ON library_imports (kind, hearth_id);

-- library_files keeps SillyTavern files Hearth has no model for yet, byte
-- for byte, so an export writes them back unchanged: legacy group
-- definitions (groups/*.json) and their chats (group chats/*.jsonl), the
-- last imported settings.json (an export writes Hearth's personas and
-- World Info selection into it), and each imported chat-completion preset
-- file (written back as it was while the preset is unchanged in Hearth).
-- path is the file's path inside a SillyTavern user folder.
CREATE TABLE library_files (
    path           TEXT PRIMARY KEY,
    kind           TEXT NOT NULL,        -- group, group_chat, settings, preset
    body           BLOB NOT NULL,
    content_sha256 TEXT NOT NULL,
    imported_ms    INTEGER NOT NULL
);

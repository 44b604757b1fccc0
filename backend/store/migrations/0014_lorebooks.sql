-- Hearth schema v14: lorebooks (SillyTavern World Info). body is the book
-- as SillyTavern writes worlds/<name>.json (backend/worldinfo.Encode), so
-- an export is the stored text and unknown fields survive. Which books a
-- chat uses is not stored here: the global selection and settings are the
-- settings rows 'worldinfo.global' and 'worldinfo.settings', a character's
-- book its card's extensions.world, a chat's its metadata world_info.

CREATE TABLE lorebooks (
    name       TEXT PRIMARY KEY,         -- the file name without .json
    body       TEXT NOT NULL,
    entries    INTEGER NOT NULL,         -- entry count, for the list
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);

-- The last activation of each chat's generations, for lastActivation and
-- the reply's "what the lorebooks added" view.
CREATE TABLE lorebook_activations (
    chat_id    TEXT PRIMARY KEY,
    body       TEXT NOT NULL,            -- JSON {timestampMs, trigger, entries}
    updated_ms INTEGER NOT NULL
);

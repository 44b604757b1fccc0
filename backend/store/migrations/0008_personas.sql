-- Hearth schema v8: personas, the user's identities (SillyTavern's user
-- avatars with their power_user.persona_descriptions entries).

CREATE TABLE personas (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    avatar      TEXT,                    -- media file name (content-addressed), NULL for none
    position    INTEGER NOT NULL,        -- persona_description_positions: 0, 2, 3, 4 or 9
    depth       INTEGER NOT NULL,        -- for position 4 (at depth)
    role        INTEGER NOT NULL,        -- for position 4: 0 system, 1 user, 2 assistant
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- The active and the default persona are the settings rows
-- 'personas.active' and 'personas.default' (JSON string ids); a chat's lock
-- is its metadata key "persona". All three are removed with their persona.

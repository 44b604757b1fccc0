-- Hearth schema v9: generation presets (samplers, budgets, prompt order).
-- body is the whole preset as JSON (backend/prompt.Preset); id and name
-- are columns too, so a list reads no bodies. The built-in preset
-- "default" is not stored: it is prompt.DefaultPreset().

CREATE TABLE presets (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- The active preset is the settings row 'presets.active' (a JSON string
-- id); it is removed with its preset, and no row means "default".

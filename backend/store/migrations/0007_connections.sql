-- Hearth schema v7: model connections. API keys are not here: they live
-- in the 0600 secrets file next to the database (see backend/connections).

CREATE TABLE connections (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    provider   TEXT NOT NULL,
    base_url   TEXT NOT NULL,
    model      TEXT NOT NULL,
    headers    TEXT NOT NULL,        -- JSON object of header name → value
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- The active connection is the settings row 'connections.active' (a JSON
-- string id); it is removed with its connection.

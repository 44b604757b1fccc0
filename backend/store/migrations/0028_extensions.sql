-- Hearth schema v28: installed extensions (EXTENSIONS.md) and their storage.
-- An extension's files live in <data>/extensions/<id>/; its row says where
-- they came from (source_kind path|zip|url and the path, the zip's file
-- name or the URL), the manifest as installed, the tier, whether it is on,
-- the permissions granted (a JSON array, a subset of the manifest's) and
-- the last error the runtime reported (NULL: none).

CREATE TABLE extensions (
    id           TEXT PRIMARY KEY COLLATE NOCASE,
    source_kind  TEXT NOT NULL CHECK (source_kind IN ('path', 'zip', 'url')),
    source       TEXT NOT NULL,
    manifest     TEXT NOT NULL,
    mode         TEXT NOT NULL CHECK (mode IN ('sandboxed', 'page')),
    enabled      INTEGER NOT NULL DEFAULT 0,
    granted      TEXT NOT NULL DEFAULT '[]',
    installed_at INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    last_error   TEXT
);

-- api.extensions.storage: JSON values by key, per extension. Rows outlive
-- their extension's row (a remove without clean keeps them for a
-- reinstall), so there is no foreign key. bytes is len(key) + len(value),
-- what the 10 MiB quota counts.
CREATE TABLE extension_storage (
    extension_id TEXT NOT NULL COLLATE NOCASE,
    key          TEXT NOT NULL,
    value        TEXT NOT NULL,
    bytes        INTEGER NOT NULL,
    PRIMARY KEY (extension_id, key)
) WITHOUT ROWID;

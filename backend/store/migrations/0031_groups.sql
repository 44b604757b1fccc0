-- Hearth schema v31: group chats' groups (backend/groups, HOST-ABI §5.1).
--
-- A group is SillyTavern's groups/<id>.json object, kept whole in data
-- (snake_case keys, numeric enums, unknown keys kept), keyed by
-- SillyTavern's group id: String(Date.now()) for a group it made. name and
-- fav are copied out of data on every write, for lists.
--
-- members and disabled_members stay ordered arrays inside data, the one
-- copy of them: their order is the speaking order (list strategy) and
-- what a SillyTavern export writes back, and an imported file may carry
-- entries a table keyed by (group, avatar) could not hold (a muted avatar
-- that is no longer a member). group_members is an index derived from
-- data on every write of the group, in the same transaction: every
-- character avatar the group names (a member, a muted one, a per-member
-- override), so a character's deletion finds its groups without reading
-- every group.
CREATE TABLE groups (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    fav        INTEGER NOT NULL DEFAULT 0,
    data       TEXT NOT NULL,            -- JSON object: the whole group, id included
    created_at INTEGER NOT NULL,         -- unix ms
    updated_at INTEGER NOT NULL
);

CREATE TABLE group_members (
    avatar   TEXT NOT NULL,
    group_id TEXT NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    PRIMARY KEY (avatar, group_id)
) WITHOUT ROWID;
CREATE INDEX group_members_by_group ON group_members (group_id);

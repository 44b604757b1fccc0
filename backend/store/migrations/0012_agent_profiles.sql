-- Hearth schema v12: agent profiles (AGENT.md §9). body is the whole
-- profile as normalised JSON (backend/agent/profile.Profile), unknown
-- top-level keys included; every read parses it again, and a body that no
-- longer parses is reported, not dropped. The built-in profile
-- "default-writer" is not stored: it is profile.DefaultWriter().

CREATE TABLE agent_profiles (
    id         TEXT PRIMARY KEY,
    body       TEXT NOT NULL,
    updated_ms INTEGER NOT NULL     -- unix ms of the last save
);

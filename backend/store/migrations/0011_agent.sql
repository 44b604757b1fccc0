-- Hearth schema v11: agent runs, their event logs, workspace checkpoints and
-- the per-chat persist/ state. A run is a row written when it starts and
-- updated with every event, so a run cut short by a crash is found at the
-- next start (status not terminal) and turned "interrupted", and readEvents
-- answers after the fact, with every window closed.
--
-- chat_id is the Hearth chat uuid (the agent's stableChatId). It carries no
-- foreign key, like generations.chat_id: a run's history and its checkpoint
-- manifests outlive a deleted chat until the agent's own cleanup removes them.

CREATE TABLE agent_runs (
    id                TEXT PRIMARY KEY,          -- "run_" + UUID
    chat_id           TEXT NOT NULL,
    workspace_id      TEXT NOT NULL,             -- "ws_" + 16 hex of sha256("chat:" + chat_id)
    profile_id        TEXT,                      -- NULL when the run used no stored profile
    generation_type   TEXT NOT NULL,             -- normal, swipe, continue, ...
    presentation      TEXT NOT NULL,             -- foreground or background
    status            TEXT NOT NULL,             -- created ... completed, cancelled, failed, interrupted
    error             TEXT,                      -- JSON {code, message, details} once failed or interrupted
    last_seq          INTEGER NOT NULL DEFAULT 0, -- seq of the newest event: the next one is last_seq + 1, assigned in the same transaction
    created_ms        INTEGER NOT NULL,          -- unix ms
    updated_ms        INTEGER NOT NULL,
    ended_ms          INTEGER,                   -- set when the status became terminal
    input_tokens      INTEGER NOT NULL DEFAULT 0, -- usage totals over every model turn
    output_tokens     INTEGER NOT NULL DEFAULT 0,
    rounds            INTEGER NOT NULL DEFAULT 0, -- model requests made
    calls             INTEGER NOT NULL DEFAULT 0, -- tool calls dispatched
    snapshot          TEXT NOT NULL,             -- JSON: the prompt snapshot the run started from (kept so a run can be inspected or replayed)
    profile           TEXT NOT NULL,             -- JSON: the profile as resolved at start; later edits of the profile do not change a run
    pending           TEXT,                      -- JSON {callId, tool, args}: the tool call awaiting approval; survives a restart
    commit_message_id TEXT,                      -- uuid of the chat message the run's first commit created
    commits           TEXT NOT NULL DEFAULT '[]' -- JSON array: the run's chat commits, for AgentMessageExtra and rollback
);

-- listRuns({chatId}) and listRuns() newest first, ties by id; id makes
-- the order total so no sort is needed.
CREATE INDEX agent_runs_by_chat ON agent_runs (chat_id, created_ms, id);
CREATE INDEX agent_runs_by_created ON agent_runs (created_ms, id);
-- The startup sweep looks only at unfinished runs, oldest first: a partial
-- index stays as small as the number of live runs, however long the history.
CREATE INDEX agent_runs_unfinished ON agent_runs (created_ms, id)
    WHERE status NOT IN ('completed', 'cancelled', 'failed', 'interrupted');

-- One row per event; (run_id, seq) is the key and the read order, so a page
-- of readEvents is one range scan. WITHOUT ROWID keeps the rows clustered by
-- run, so a run's log reads as contiguous pages.
CREATE TABLE agent_events (
    run_id  TEXT NOT NULL,
    seq     INTEGER NOT NULL,                -- from 1, no gaps, per run
    ts_ms   INTEGER NOT NULL,                -- unix ms
    level   TEXT NOT NULL,                   -- debug, info, warn, error
    type    TEXT NOT NULL,                   -- run_created, model_delta, checkpoint_created, ...
    payload TEXT NOT NULL,                   -- JSON object, at most 1 MiB
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- A checkpoint is a manifest of content-addressed blobs; the blobs themselves
-- live under <data>/agent/blobs and are written before the row.
CREATE TABLE agent_checkpoints (
    id         TEXT PRIMARY KEY,             -- "cp_" + random hex
    run_id     TEXT NOT NULL,
    seq        INTEGER NOT NULL,             -- 1.. per run: the order readDiff defaults from (first, latest)
    reason     TEXT NOT NULL,                -- initial, write_file, apply_patch, rollback, ...
    manifest   TEXT NOT NULL,                -- JSON {path: {sha256, bytes}}: the whole workspace at this point
    files      TEXT NOT NULL,                -- JSON [path]: paths changed since the previous checkpoint
    created_ms INTEGER NOT NULL,
    UNIQUE (run_id, seq)                     -- also the (run_id, seq) index
);

-- The persist/ folder a chat's next run starts from: written when a run
-- completes, forked with the chat when it is branched.
CREATE TABLE agent_chat_state (
    chat_id    TEXT PRIMARY KEY,
    persist    TEXT NOT NULL,                -- JSON manifest {path: {sha256, bytes}}
    run_id     TEXT NOT NULL,                -- the run that produced it (the parent's run for a fork)
    updated_ms INTEGER NOT NULL
);

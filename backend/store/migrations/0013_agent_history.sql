-- Hearth schema v13: persist/ as it was at any point of a chat's history,
-- so a branch forks the agent state of its branch point (AGENT.md §2), not
-- the parent's latest.
--
-- A completed run keeps the persist/ manifest it left and the message that
-- was the chat's last when it completed (persist_at): a fork at index i
-- takes the newest run whose persist_at still sits at or before i. A fork
-- also remembers what it inherited, for when its source is deleted.

ALTER TABLE agent_runs ADD COLUMN persist TEXT;     -- JSON manifest {path: {sha256, bytes}} of persist/ at completion
ALTER TABLE agent_runs ADD COLUMN persist_at TEXT;  -- uuid of the chat's last message then ('' for an empty chat)

ALTER TABLE agent_chat_state ADD COLUMN inherited TEXT;      -- JSON manifest the chat was forked with
ALTER TABLE agent_chat_state ADD COLUMN inherited_run TEXT;  -- the run that produced it

-- Runs that completed before v13 left only the chat's latest state: that
-- one is known, placed at the run's first commit when it made one.
UPDATE agent_runs SET
    persist = (SELECT s.persist FROM agent_chat_state s WHERE s.run_id = agent_runs.id AND s.chat_id = agent_runs.chat_id),
    persist_at = commit_message_id
WHERE status = 'completed';

-- A fork looks for its source's runs that left state, newest first.
CREATE INDEX agent_runs_persisted ON agent_runs (chat_id, ended_ms DESC, id DESC) WHERE persist IS NOT NULL;

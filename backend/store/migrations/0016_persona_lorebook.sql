-- Hearth schema v16: the lorebook bound to a persona (SillyTavern's
-- power_user.persona_descriptions[avatar].lorebook). Its entries join
-- every generation where the persona speaks; '' binds none.

ALTER TABLE personas ADD COLUMN lorebook TEXT NOT NULL DEFAULT '';

-- Hearth schema v30: what SillyTavern's prompt hooks did to a generation
-- (EXTENSIONS.md §6), the JSON of generate.HooksRecord: the window's
-- interceptors and prompt-ready listeners, each with its time, whether it
-- changed the prompt, timed out or was ignored; or why none ran ("no
-- window"). NULL: a generation recorded before v30.

ALTER TABLE generations ADD COLUMN hooks TEXT;

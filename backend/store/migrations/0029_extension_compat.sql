-- Hearth schema v29: a page extension's compatibility scan (EXTENSIONS.md
-- §5), the JSON of stcompat.Usage: what its code was found to use of
-- SillyTavern, judged against what Hearth provides each time it is read.
-- NULL: not scanned (a sandboxed extension, or one installed before v29,
-- scanned when its report is first asked for).

ALTER TABLE extensions ADD COLUMN compat TEXT;

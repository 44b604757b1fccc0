// Package library moves a whole SillyTavern library in and out of Hearth:
// `hearth import st PATH` and `hearth export st PATH`, and the host's
// library.importST / library.exportST.
//
// An import reads a SillyTavern user folder (data/<user>, or a whole
// install, which names one) and hands every file to the domain service
// that already imports that format — worldinfo for worlds/*.json,
// characters for cards, chats for JSONL, personas, presets — one item per
// transaction, so a broken file fails alone and nothing is half-stored.
// The order matters: lorebooks come before characters, so a card whose
// extensions.world names a book finds it instead of making a second copy
// from its embedded character_book; characters come before chats, which
// belong to them. Third-party extensions come last (import_extensions.go):
// the user's extensions/ and, given an install, its global ones, each
// installed turned off through the extensions service, with its
// extension_settings entry put in its storage for the page tier.
//
// A ledger (the library_imports table) makes an import repeatable: every
// item stored is remembered by its folder, kind and path with a hash of its
// bytes, and a second import of the same folder skips it, saying whether it
// changed since. The ledger also remembers the file names SillyTavern used,
// so an export names characters, chats and persona images as they were.
//
// What Hearth has no model for yet is kept as data (the library_files
// table): legacy group definitions and group chats, the settings.json an
// export writes personas and World Info into, each preset file as it came.
// An export writes a folder SillyTavern opens as a user folder; docs/API.md
// ("SillyTavern library") lists what a round trip normalizes.
package library

// Package worldinfo holds Hearth's lorebooks (SillyTavern's "World Info"):
// the worlds/<name>.json model, read and written without losing a field
// SillyTavern or an extension put there, the conversion to and from a
// character card's embedded character_book, and the activation engine that
// decides, for one generation, which entries enter the prompt and where.
//
// The engine follows SillyTavern's public/scripts/world-info.js
// (checkWorldInfo and its helpers) rule for rule, quirks included, so a
// chat moved between the two activates the same entries and keeps its
// timed effects (chat metadata timedWorldInfo). Beyond what an Engine
// remembers (compiled keys, and keys too slow to match again), it is
// pure: the caller hands in the books, the chat, the settings, a token
// counter, a random source, a clock, a context and the timed-effect
// state, and gets back the texts per position and the new state to
// store. A scan is bounded (ActivationDeadline, a cap on backtracking
// keys per book, a timeout per match) and ends with its context. The
// engine touches no database, and the package imports neither the prompt
// nor the generate package; callers map Result onto theirs.
package worldinfo

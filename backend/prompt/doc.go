// Package prompt assembles a chat-completion request from a card, a
// persona, a preset, the chat's history and its injections. It is pure:
// no storage, no clock, no network; the same Input always gives the same
// Prompt, which is what its golden tests hold it to.
package prompt

package host

import (
	"context"
	"strings"

	"hearth/backend/events"
	"hearth/backend/extensions/stcompat"
)

// ABIVersion is the window.__HEARTH__ contract version this host serves.
const ABIVersion = 1

// Capabilities describes what this host offers, so a client (or an
// extension) can feature-detect instead of guessing from a version string.
type Capabilities struct {
	ABIVersion int               `json:"abiVersion"`
	Namespaces map[string]int    `json:"namespaces"`
	Methods    []string          `json:"methods"`
	Features   []string          `json:"features"`
	EventTypes map[string]string `json:"eventTypes"`
	// STCompat is the SillyTavern version the page tier's compat modules
	// follow, which a manifest's minimum_client_version is compared with.
	STCompat string `json:"stCompat"`
}

// registerHost adds the host's self-description methods.
func registerHost(r *Router) {
	r.Register("host.capabilities", func(ctx context.Context, a Args) (any, error) {
		methods := r.Methods()
		ns := map[string]int{"events": 1}
		for _, m := range methods {
			if prefix, _, ok := strings.Cut(m, "."); ok && prefix != "host" {
				ns[prefix] = 1
			}
		}
		return Capabilities{
			ABIVersion: ABIVersion,
			Namespaces: ns,
			Methods:    methods,
			Features: []string{"chat.revision", "chat.patch", "chat.journal", "chat.spindle", "chat.branches", "chat.search", "chat.jsonl", "chat.undo", "state.chat", "state.floor", "state.character",
				"chat.media", "personas", "presets", "presets.st_import", "generate", "generate.dry_run", "generate.extension_prompts", "agent", "characters.cards", "groups", "worldinfo", "library"},
			EventTypes: events.TypeNames,
			STCompat:   stcompat.Level(),
		}, nil
	})
}

package host

import (
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/generate"
	"hearth/backend/media"
	"hearth/backend/personas"
	"hearth/backend/presets"
	"hearth/backend/state"
)

// Services are the domain services the router exposes.
type Services struct {
	Chats       *chats.Service
	Characters  *characters.Service
	State       *state.Service
	Connections *connections.Service
	Personas    *personas.Service
	Presets     *presets.Service
	Generate    *generate.Service
	// Media stores message attachments (chat.uploadMedia).
	Media *media.Store
}

// New returns a router with every ABI method registered.
func New(s Services) *Router {
	r := NewRouter()
	registerHost(r)
	registerCharacters(r, s.Characters)
	registerChats(r, s.Chats)
	registerState(r, s.State)
	registerConnections(r, s.Connections)
	registerPersonas(r, s.Personas)
	registerPresets(r, s.Presets)
	registerGenerate(r, s.Generate)
	registerMedia(r, s.Media)
	return r
}

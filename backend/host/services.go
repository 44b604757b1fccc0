package host

import (
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/state"
)

// Services are the domain services the router exposes.
type Services struct {
	Chats       *chats.Service
	Characters  *characters.Service
	State       *state.Service
	Connections *connections.Service
}

// New returns a router with every ABI method registered.
func New(s Services) *Router {
	r := NewRouter()
	registerHost(r)
	registerCharacters(r, s.Characters)
	registerChats(r, s.Chats)
	registerState(r, s.State)
	registerConnections(r, s.Connections)
	return r
}

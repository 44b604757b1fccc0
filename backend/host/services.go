package host

import (
	"hearth/backend/agent"
	"hearth/backend/agent/profile"
	"hearth/backend/agent/skills"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/extensions"
	"hearth/backend/generate"
	"hearth/backend/groups"
	"hearth/backend/library"
	"hearth/backend/media"
	"hearth/backend/personas"
	"hearth/backend/presets"
	"hearth/backend/search"
	"hearth/backend/state"
	"hearth/backend/worldinfo"
)

// Services are the domain services the router exposes.
type Services struct {
	Chats      *chats.Service
	Search     *search.Service
	Characters *characters.Service
	// Groups stores group chats' groups; without it, api.groups is absent.
	Groups      *groups.Service
	State       *state.Service
	Connections *connections.Service
	Personas    *personas.Service
	Presets     *presets.Service
	Generate    *generate.Service
	// Media stores message attachments (chat.uploadMedia).
	Media *media.Store
	// Agent runs agents; AgentProfiles stores their profiles; Bus tells
	// windows the profiles changed. Without Agent, api.agent is absent.
	Agent         *agent.Service
	AgentProfiles *profile.Store
	Skills        *skills.Library
	Bus           *events.Bus
	// WorldInfo stores lorebooks; without it, api.worldinfo is absent.
	WorldInfo *worldinfo.Service
	// Library imports and exports SillyTavern user folders; without it,
	// api.library is absent.
	Library *library.Service
	// Extensions installs extensions and keeps their storage; without
	// it, api.extensions is absent.
	Extensions *extensions.Service
}

// New returns a router with every ABI method registered.
func New(s Services, opts ...Option) *Router {
	r := NewRouter(opts...)
	registerHost(r)
	registerCharacters(r, s.Characters)
	if s.Groups != nil {
		registerGroups(r, s.Groups)
		registerGroupAuto(r, s.Generate)
	}
	registerChats(r, s.Chats)
	registerSearch(r, s.Search)
	registerState(r, s.State)
	registerConnections(r, s.Connections)
	registerPersonas(r, s.Personas)
	registerPresets(r, s.Presets)
	registerGenerate(r, s.Generate)
	registerMedia(r, s.Media)
	if s.WorldInfo != nil {
		registerWorldInfo(r, s.WorldInfo, s.Chats)
	}
	if s.Library != nil {
		registerLibrary(r, s.Library)
	}
	if s.Extensions != nil {
		registerExtensions(r, s.Extensions)
	}
	if s.Agent != nil {
		registerAgent(r, s.Agent, s.AgentProfiles, s.Skills, s.Bus)
	}
	return r
}

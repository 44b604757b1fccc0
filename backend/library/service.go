package library

import (
	"sync"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/extensions"
	"hearth/backend/groups"
	"hearth/backend/personas"
	"hearth/backend/presets"
	"hearth/backend/store"
	"hearth/backend/worldinfo"
)

// Error codes of library imports and exports (HOST-ABI §0).
const (
	// CodeNotFound: the path does not exist or cannot be read.
	CodeNotFound = "library.not_found"
	// CodeNotSillyTavern: the path is no SillyTavern user folder or install.
	CodeNotSillyTavern = "library.not_sillytavern"
	// CodeSeveralUsers: an install with several user folders and no
	// default-user; details.users names them.
	CodeSeveralUsers = "library.several_users"
	// CodeTargetNotEmpty: an export's folder exists and holds files.
	CodeTargetNotEmpty = "library.target_not_empty"
	// CodeBusy: another import or export is running.
	CodeBusy = "library.busy"
)

// Item kinds, as Summary's skipped and failed entries name them.
const (
	KindLorebook  = "lorebook"
	KindCharacter = "character"
	KindChat      = "chat"
	KindGroup     = "group"
	KindPersona   = "persona"
	KindPreset    = "preset"
	KindSettings  = "settings"
	KindExtension = "extension"
)

// Deps are the services an import stores through and an export reads.
type Deps struct {
	DB         *store.Store
	Bus        *events.Bus
	Characters *characters.Service
	Chats      *chats.Service
	Groups     *groups.Service
	WorldInfo  *worldinfo.Service
	Personas   *personas.Service
	Presets    *presets.Service
	// Extensions installs the library's third-party extensions (turned
	// off) and keeps their SillyTavern settings in their storage.
	Extensions *extensions.Service
	// Access is which folders imports and exports may use; the zero
	// value allows any absolute path.
	Access Access
	Now    func() time.Time
}

// Service imports and exports SillyTavern libraries. One runs at a time:
// two imports of the same folder at once would both find it new.
type Service struct {
	d       Deps
	running sync.Mutex
}

// New returns the library service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Progress is one step of an import or export: phase is the kind of item
// being worked on, done of total of that phase are finished, current is
// the item's path inside the folder.
type Progress struct {
	Phase   string `json:"phase"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Current string `json:"current"`
}

// Counts are how many items of each kind an import stored or an export
// wrote.
type Counts struct {
	Characters int `json:"characters"`
	Chats      int `json:"chats"`
	Lorebooks  int `json:"lorebooks"`
	Personas   int `json:"personas"`
	Presets    int `json:"presets"`
	// Groups and GroupChats are SillyTavern's groups and the group chats
	// they name, as Hearth groups and chats; GroupFiles the group and
	// group chat files kept as they are (not importable: see Import).
	Groups     int `json:"groups"`
	GroupChats int `json:"groupChats"`
	GroupFiles int `json:"groupFiles"`
	// Extensions are the third-party extensions an import installed,
	// each turned off; an export writes none, so it is 0 there.
	Extensions int `json:"extensions"`
}

// Skipped is an item left alone on purpose, and why.
type Skipped struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Failed is an item that could not be stored or written; Error is the
// service's message. Nothing of it was kept.
type Failed struct {
	Kind  string `json:"kind"`
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Summary is an import's answer. Paths are relative to Folder, the
// SillyTavern user folder the import read, except those of the install's
// global extensions, which are relative to Install.
type Summary struct {
	Folder string `json:"folder"`
	// Install is the SillyTavern install the import was pointed at (its
	// real path), when it was one rather than a user folder: the global
	// extensions come from there. Empty for a user folder alone.
	Install  string    `json:"install,omitempty"`
	Imported Counts    `json:"imported"`
	Skipped  []Skipped `json:"skipped"`
	Failed   []Failed  `json:"failed"`
	// Messages counts the chat messages imported.
	Messages int `json:"messages"`
}

// ExportSummary is an export's answer. Paths are relative to Folder.
type ExportSummary struct {
	Folder   string   `json:"folder"`
	Exported Counts   `json:"exported"`
	Failed   []Failed `json:"failed"`
	Messages int      `json:"messages"`
}

// Access is the folders this service's imports and exports may use.
func (s *Service) Access() Access { return s.d.Access }

// lock takes the one-at-a-time lock or says another run holds it.
func (s *Service) lock() error {
	if !s.running.TryLock() {
		return apperr.New(CodeBusy, "another SillyTavern library import or export is running; try again when it ends")
	}
	return nil
}

// reporter calls progress (when given) and publishes LIBRARY_PROGRESS,
// at most every reportEvery for the steps in between: a 10,000-file
// library must not flood a window with events.
type reporter struct {
	op       string
	bus      *events.Bus
	progress func(Progress)
	last     time.Time
}

const reportEvery = 50 * time.Millisecond

func (r *reporter) report(p Progress) {
	now := time.Now()
	if p.Done != 0 && p.Done != p.Total && now.Sub(r.last) < reportEvery {
		return
	}
	r.last = now
	if r.progress != nil {
		r.progress(p)
	}
	if r.bus != nil {
		r.bus.Publish(events.Event{Type: events.LibraryProgress, Payload: &events.LibraryProgressPayload{
			Op: r.op, Phase: p.Phase, Done: p.Done, Total: p.Total, Current: p.Current,
		}})
	}
}

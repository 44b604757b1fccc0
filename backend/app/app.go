// Package app wires Hearth's parts together for one data dir: the store,
// the event bus, the domain services and the host router. Both the desktop
// window and `hearth serve` start from Open; tests and benchmarks do too.
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"hearth/backend/agent"
	"hearth/backend/agent/profile"
	"hearth/backend/agent/runstore"
	"hearth/backend/agent/skills"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/extensions"
	"hearth/backend/generate"
	"hearth/backend/groups"
	"hearth/backend/host"
	"hearth/backend/library"
	"hearth/backend/media"
	"hearth/backend/personas"
	"hearth/backend/presets"
	"hearth/backend/search"
	"hearth/backend/state"
	"hearth/backend/store"
	"hearth/backend/worldinfo"
)

// App is an opened data dir with everything running on it.
type App struct {
	DataDir    string
	Store      *store.Store
	Bus        *events.Bus
	Media      *media.Store
	Characters *characters.Service
	// Groups stores group chats' groups; a character's delete drops it
	// from them.
	Groups *groups.Service
	Chats  *chats.Service
	// Search answers chat.search; Indexer keeps its index current in the
	// background, from Open until Close.
	Search      *search.Service
	Indexer     *search.Indexer
	State       *state.Service
	Connections *connections.Service
	Personas    *personas.Service
	Presets     *presets.Service
	Generate    *generate.Service
	// Agent runs agents (AGENT.md); AgentProfiles stores their profiles.
	Agent         *agent.Service
	AgentProfiles *profile.Store
	// Skills is the library of skills runs read (<data>/skills).
	Skills *skills.Library
	// WorldInfo stores lorebooks and activates them for prompts.
	WorldInfo *worldinfo.Service
	// Library imports and exports whole SillyTavern user folders.
	Library *library.Service
	// Extensions installs extensions under <data>/extensions and keeps
	// their registry and storage.
	Extensions *extensions.Service
	Router     *host.Router

	lock *dirLock
	idle *idleReleaser
}

// Option adjusts what Open sets up.
type Option func(*options)

type options struct {
	libraryConfined bool
	libraryRoots    []string
	safeMode        bool
}

// SafeMode starts the app in extensions' safe mode (--safe-mode): every
// extension off until the user leaves it, whatever is saved.
func SafeMode(on bool) Option {
	return func(o *options) { o.safeMode = on }
}

// LibraryRoots confines library.importST and exportST to the folders under
// roots (none turns them off). `hearth serve` opens with it: its callers
// are whoever reached the server, not the person at this machine.
func LibraryRoots(roots []string) Option {
	return func(o *options) {
		o.libraryConfined = true
		o.libraryRoots = append([]string(nil), roots...)
	}
}

// Open opens (creating as needed) the data dir and starts the services.
// One process at a time may have a data dir open: another's Open is
// CodeDataDirInUse.
func Open(ctx context.Context, dataDir string, opts ...Option) (*App, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir %s: %w", dataDir, err)
	}
	access, err := library.NewAccess(dataDir, o.libraryConfined, o.libraryRoots)
	if err != nil {
		return nil, err
	}
	lock, err := lockDataDir(dataDir)
	if err != nil {
		return nil, err
	}
	a, err := open(ctx, dataDir, access, o.safeMode)
	if err != nil {
		lock.release()
		return nil, err
	}
	a.lock = lock
	return a, nil
}

// open starts the services on the locked data dir.
func open(ctx context.Context, dataDir string, access library.Access, safeMode bool) (*App, error) {
	db, err := store.Open(ctx, filepath.Join(dataDir, "hearth.db"), store.Options{BackupDir: filepath.Join(dataDir, "backups")})
	if err != nil {
		return nil, err
	}
	files, err := media.New(filepath.Join(dataDir, "media"))
	if err != nil {
		db.Close()
		return nil, err
	}
	bus := events.NewBus()
	now := time.Now
	a := &App{DataDir: dataDir, Store: db, Bus: bus, Media: files}
	a.Indexer = search.NewIndexer(db)
	a.WorldInfo = worldinfo.NewService(db, bus, now, worldinfo.Hooks{Renamed: a.lorebookRenamed})
	// A character's delete drops it from its groups, which are made
	// next: the hook reaches them through a.
	a.Characters = characters.New(db, bus, files, a.WorldInfo, now, characters.WithHooks(characters.Hooks{
		Deleting: func(ctx context.Context, tx *store.Tx, avatar string) error {
			return a.Groups.DropMemberIn(ctx, tx, avatar)
		},
	}))
	a.Groups = groups.New(db, bus, a.Characters, now)
	// Personas and the agent need chats, so chats reaches them through
	// a, once they are made (no call reaches chats before Open returns).
	a.Chats = chats.New(db, bus, a.Characters, now, chats.Hooks{
		UserName: func(ctx context.Context, chatID string) string { return a.Personas.UserName(ctx, chatID) },
		AfterFork: func(ctx context.Context, tx *store.Tx, f chats.Fork) error {
			return a.Agent.ForkPersist(ctx, tx, f)
		},
		CloneLorebook: a.WorldInfo.CloneForFork,
		Groups:        a.Groups,
		Index:         a.Indexer,
	})
	a.Search = search.New(db)
	a.Personas = personas.New(db, bus, files, a.Chats, now)
	a.State = state.New(db, bus)
	a.Connections = connections.New(db, bus, connections.NewSecrets(filepath.Join(dataDir, "secrets.json")), now)
	a.Presets = presets.New(db, bus, now)
	if err := a.Connections.Prune(ctx); err != nil {
		db.Close()
		return nil, err
	}
	a.Generate, err = generate.New(ctx, db, bus, generate.Sources{
		Chats: a.Chats, Characters: a.Characters, Connections: a.Connections,
		Preset: a.presetFor, Persona: a.Personas.ForPrompt, Media: files, WorldInfo: a.WorldInfo, Groups: a.Groups,
	}, now)
	if err != nil {
		db.Close()
		return nil, err
	}
	a.AgentProfiles = profile.NewStore(db, now)
	a.Skills = skills.Open(filepath.Join(dataDir, "skills"))
	a.Agent, err = agent.New(ctx, agent.Deps{
		DB: db, Bus: bus, Runs: runstore.New(db, now), Profiles: a.AgentProfiles, Skills: a.Skills,
		Chats: a.Chats, Search: a.Search, Characters: a.Characters, Generate: a.Generate, Connections: a.Connections,
		Dir: filepath.Join(dataDir, "agent"), Now: now,
	})
	if err != nil {
		a.Generate.Close()
		db.Close()
		return nil, err
	}
	a.Extensions = extensions.New(db, bus, extensions.Options{Dir: filepath.Join(dataDir, "extensions"), Now: now, ReadPath: access.ReadRoot, SafeMode: safeMode})
	a.Library = library.New(library.Deps{DB: db, Bus: bus, Characters: a.Characters, Chats: a.Chats, Groups: a.Groups,
		WorldInfo: a.WorldInfo, Personas: a.Personas, Presets: a.Presets, Extensions: a.Extensions, Access: access, Now: now})
	a.idle = newIdleReleaser(idleRelease, func() { a.ReleaseMemory(context.Background()) })
	a.Router = host.New(host.Services{Chats: a.Chats, Search: a.Search, Characters: a.Characters, Groups: a.Groups, State: a.State, Connections: a.Connections, Personas: a.Personas,
		Presets: a.Presets, Generate: a.Generate, Media: files, Agent: a.Agent, AgentProfiles: a.AgentProfiles, Skills: a.Skills, Bus: bus,
		WorldInfo: a.WorldInfo, Library: a.Library, Extensions: a.Extensions}, host.OnLargeCall(largeCall, a.idle.large))
	// Last, so that an open that fails leaves no goroutine behind. A
	// write made before this point has its round run now.
	a.Indexer.Start()
	return a, nil
}

// lorebookRenamed points the cards, chats and personas bound to the
// lorebook from at to, inside the rename's transaction.
func (a *App) lorebookRenamed(ctx context.Context, tx *store.Tx, from, to string) error {
	if err := a.Characters.RenameWorldIn(ctx, tx, from, to); err != nil {
		return err
	}
	with, _ := json.Marshal(to)
	if _, err := a.Chats.ReplaceMetadataValueIn(ctx, tx, "world_info", from, with); err != nil {
		return err
	}
	return a.Personas.RenameLorebookIn(ctx, tx, from, to)
}

// Close stops running generations (recorded as interrupted), the bus and
// the background indexer, and closes the database. Safe to call twice.
func (a *App) Close() error {
	a.idle.close()
	a.Agent.Close()
	a.Generate.Close()
	a.Bus.Close()
	// After the services that write chats, before the database: a round
	// under way is cancelled, and its goroutine gone once Close returns.
	a.Indexer.Close()
	err := a.Store.Close()
	if a.lock != nil {
		a.lock.release()
	}
	return err
}

// DefaultDataDir is --data-dir's fallback: $HEARTH_DATA_DIR, else the OS
// user data dir + "/hearth".
func DefaultDataDir() (string, error) {
	if d := os.Getenv("HEARTH_DATA_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserConfigDir()
	if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" {
		base, err = xdg, nil
	} else if home, herr := os.UserHomeDir(); herr == nil && err == nil && filepath.Base(base) == ".config" {
		base = filepath.Join(home, ".local", "share")
	}
	if err != nil {
		return "", fmt.Errorf("find user data dir: %w", err)
	}
	return filepath.Join(base, "hearth"), nil
}

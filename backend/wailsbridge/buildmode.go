package wailsbridge

// Wails compiles a different runtime depending on build tags: `wails build`
// sets "desktop,production", `wails dev` sets "dev", and its bindings
// generator sets "bindings". A plain `go build` gets a Wails whose Run only
// returns an error. These constants let the desktop entry point tell the
// cases apart before it opens any data.
const (
	// GeneratingBindings is true in the throwaway binary `wails build`
	// compiles with -tags bindings and runs once to write JavaScript
	// bindings; it must only declare its bound struct and exit.
	GeneratingBindings = buildMode == "bindings"
	// WindowCompiledIn is true when Wails can actually open a window.
	WindowCompiledIn = buildMode == "window"
)

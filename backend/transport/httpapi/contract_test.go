package httpapi_test

import (
	"context"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/transport/httpapi"
)

// overHTTP serves the scenario's app on a real loopback server and calls it
// through POST /api/invoke.
func overHTTP(e *apptest.Env) apptest.Invoker {
	srv, err := httpapi.New(httpapi.Config{Router: e.App.Router, Bus: e.App.Bus, Avatars: e.App.Characters, Addr: "127.0.0.1:0"})
	if err != nil {
		e.T.Fatalf("new server: %v", err)
	}
	url, err := srv.Start(context.Background())
	if err != nil {
		e.T.Fatalf("start server: %v", err)
	}
	e.T.Cleanup(func() { srv.Close() })
	return httpapi.NewClient(url, srv.Token())
}

// TestContractOverHTTP runs the host contract scenarios through the HTTP
// transport: same results, same error codes, same events.
func TestContractOverHTTP(t *testing.T) {
	t.Parallel()
	for name, scenarios := range map[string][]apptest.Scenario{
		"luker":      apptest.LukerScenarios(),
		"spindle":    apptest.SpindleScenarios(),
		"swipes":     apptest.SwipeMetadataScenarios(),
		"patch":      apptest.PatchScenarios(),
		"lifecycle":  apptest.LifecycleScenarios(),
		"characters": apptest.CharacterScenarios(),
		"depth":      apptest.DepthScenarios(),
		"state":      apptest.StateScenarios(),
		"branches":   apptest.BranchScenarios(),
		"jsonl":      apptest.JsonlScenarios(),
		"undo":       apptest.UndoScenarios(),
		"search":     apptest.SearchScenarios(),
		"generate":   apptest.GenerateScenarios(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			apptest.Run(t, scenarios, overHTTP)
		})
	}
}

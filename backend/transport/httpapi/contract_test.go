package httpapi_test

import (
	"context"
	"testing"

	"hearth/backend/host/hosttest"
	"hearth/backend/transport/httpapi"
)

// overHTTP serves the scenario's app on a real loopback server and calls it
// through POST /api/invoke.
func overHTTP(e *hosttest.Env) hosttest.Invoker {
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
	for name, scenarios := range map[string][]hosttest.Scenario{
		"luker":      hosttest.LukerScenarios(),
		"spindle":    hosttest.SpindleScenarios(),
		"swipes":     hosttest.SwipeMetadataScenarios(),
		"patch":      hosttest.PatchScenarios(),
		"lifecycle":  hosttest.LifecycleScenarios(),
		"characters": hosttest.CharacterScenarios(),
		"depth":      hosttest.DepthScenarios(),
		"state":      hosttest.StateScenarios(),
		"branches":   hosttest.BranchScenarios(),
		"jsonl":      hosttest.JsonlScenarios(),
		"undo":       hosttest.UndoScenarios(),
		"search":     hosttest.SearchScenarios(),
		"generate":   hosttest.GenerateScenarios(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			hosttest.Run(t, scenarios, overHTTP)
		})
	}
}

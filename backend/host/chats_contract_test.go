package host_test

import (
	"testing"

	"hearth/backend/app/apptest"
)

func TestChatContractLuker(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.LukerScenarios(), nil)
}

func TestChatContractSpindle(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.SpindleScenarios(), nil)
}

func TestChatContractSwipesMetadata(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.SwipeMetadataScenarios(), nil)
}

func TestChatContractPatch(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.PatchScenarios(), nil)
}

func TestChatContractLifecycle(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.LifecycleScenarios(), nil)
}

func TestCharacterContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.CharacterScenarios(), nil)
}

func TestDepthContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.DepthScenarios(), nil)
}

func TestStateContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.StateScenarios(), nil)
}

func TestBranchContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.BranchScenarios(), nil)
}

func TestUndoContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.UndoScenarios(), nil)
}

func TestJsonlContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.JsonlScenarios(), nil)
}

func TestSearchContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.SearchScenarios(), nil)
}

func TestGenerateContract(t *testing.T) {
	t.Parallel()
	apptest.Run(t, apptest.GenerateScenarios(), nil)
}

package host_test

import (
	"testing"

	"hearth/backend/host/hosttest"
)

func TestChatContractLuker(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.LukerScenarios(), nil)
}

func TestChatContractSpindle(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.SpindleScenarios(), nil)
}

func TestChatContractSwipesMetadata(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.SwipeMetadataScenarios(), nil)
}

func TestChatContractPatch(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.PatchScenarios(), nil)
}

func TestChatContractLifecycle(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.LifecycleScenarios(), nil)
}

func TestCharacterContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.CharacterScenarios(), nil)
}

func TestDepthContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.DepthScenarios(), nil)
}

func TestStateContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.StateScenarios(), nil)
}

func TestBranchContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.BranchScenarios(), nil)
}

func TestUndoContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.UndoScenarios(), nil)
}

func TestJsonlContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.JsonlScenarios(), nil)
}

func TestSearchContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.SearchScenarios(), nil)
}

func TestGenerateContract(t *testing.T) {
	t.Parallel()
	hosttest.Run(t, hosttest.GenerateScenarios(), nil)
}

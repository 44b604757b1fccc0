package wailsbridge

import (
	"runtime"
	"strings"
	"testing"
)

func TestCheckDisplay(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("only Linux needs $DISPLAY or $WAYLAND_DISPLAY")
	}
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	if err := CheckDisplay(env(map[string]string{"DISPLAY": ":0"})); err != nil {
		t.Errorf("X11: %v", err)
	}
	if err := CheckDisplay(env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"})); err != nil {
		t.Errorf("Wayland: %v", err)
	}
	err := CheckDisplay(env(nil))
	if err == nil || !strings.Contains(err.Error(), "hearth serve") {
		t.Errorf("no display: %v", err)
	}
}

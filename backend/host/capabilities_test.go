package host_test

import (
	"context"
	"encoding/json"
	"testing"

	"hearth/backend/app"
	"hearth/backend/extensions/stcompat"
)

func TestCapabilitiesListEveryNamespace(t *testing.T) {
	t.Parallel()
	a, err := app.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out, err := a.Router.Invoke(context.Background(), "host.capabilities", nil)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ABIVersion int               `json:"abiVersion"`
		Namespaces map[string]int    `json:"namespaces"`
		Methods    []string          `json:"methods"`
		EventTypes map[string]string `json:"eventTypes"`
		STCompat   string            `json:"stCompat"`
	}
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	if c.ABIVersion != 1 || c.Namespaces["chat"] != 1 || c.Namespaces["characters"] != 1 || c.Namespaces["groups"] != 1 || c.Namespaces["host"] != 0 {
		t.Errorf("capabilities = %+v", c)
	}
	if c.EventTypes["CHAT_CHANGED"] != "chat_id_changed" || len(c.Methods) < 25 {
		t.Errorf("eventTypes/methods incomplete: %d methods", len(c.Methods))
	}
	if c.STCompat == "" || c.STCompat != stcompat.Level() {
		t.Errorf("stCompat %q", c.STCompat)
	}
}

func TestUnknownMethod(t *testing.T) {
	t.Parallel()
	a, err := app.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Router.Invoke(context.Background(), "chat.nope", nil); err == nil {
		t.Fatal("unknown method succeeded")
	}
	if _, err := a.Router.Invoke(context.Background(), "chat.count", []byte(`{"not":"an array"}`)); err == nil {
		t.Fatal("non-array args accepted")
	}
}

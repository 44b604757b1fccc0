package events

import (
	"fmt"
	"reflect"
	"testing"
)

// strict makes Publish panic on an event Check refuses. It is on in test
// binaries only: there a publish site that uses an unregistered type, or
// builds a payload the registry does not declare for it, fails the test
// that reaches it, at the line that published. In the app an event still
// goes out as it is: the wire format does not depend on the registry, and
// Publish runs in after-commit hooks, where a panic would take the process
// down after the write was stored.
var strict = testing.Testing()

// Check reports whether e is a registered bus event whose payload is a
// non-nil pointer to the struct its Spec declares.
func Check(e Event) error {
	s, ok := Lookup(e.Type)
	if !ok {
		return fmt.Errorf("events: %q is not a registered event type (backend/events/registry.go)", e.Type)
	}
	if s.Window {
		return fmt.Errorf("events: %s is fired by each window, not published on the bus", s.Name)
	}
	want := reflect.PointerTo(s.Payload)
	got := reflect.TypeOf(e.Payload)
	if got != want {
		return fmt.Errorf("events: %s payload is %v, want %v", s.Name, got, want)
	}
	if reflect.ValueOf(e.Payload).IsNil() {
		return fmt.Errorf("events: %s payload is a nil %v", s.Name, want)
	}
	return nil
}

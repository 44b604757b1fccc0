package events

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRegistryNamesAndValuesAreUnique: one entry per constant name and per
// wire value; Lookup and TypeNames agree with the list.
func TestRegistryNamesAndValuesAreUnique(t *testing.T) {
	t.Parallel()
	constName := regexp.MustCompile(`^[A-Z][A-Z_]*[A-Z]$`)
	names, values := map[string]bool{}, map[string]bool{}
	for _, s := range Specs() {
		if !constName.MatchString(s.Name) {
			t.Errorf("%q is not a SCREAMING_SNAKE constant name", s.Name)
		}
		if s.Type == "" {
			t.Errorf("%s has no value", s.Name)
		}
		if names[s.Name] {
			t.Errorf("name %s registered twice", s.Name)
		}
		if values[s.Type] {
			t.Errorf("value %q registered twice", s.Type)
		}
		names[s.Name], values[s.Type] = true, true
		if got, ok := Lookup(s.Type); !ok || got.Name != s.Name {
			t.Errorf("Lookup(%q) = %v, %v", s.Type, got.Name, ok)
		}
		if TypeNames[s.Name] != s.Type {
			t.Errorf("TypeNames[%s] = %q, want %q", s.Name, TypeNames[s.Name], s.Type)
		}
	}
	if len(TypeNames) != len(Specs()) {
		t.Errorf("TypeNames has %d names, the registry %d", len(TypeNames), len(Specs()))
	}
	if _, ok := Lookup("no_such_event"); ok {
		t.Error("Lookup found an unregistered type")
	}
}

// TestEveryEventHasPayloadPermissionAndDoc: a payload struct whose keys
// are all distinct and typed for TypeScript, a known permission (PermNone
// being the explicit "no extension"), and a line of documentation.
func TestEveryEventHasPayloadPermissionAndDoc(t *testing.T) {
	t.Parallel()
	for _, s := range Specs() {
		if !slices.Contains(Permissions(), s.Permission) {
			t.Errorf("%s: permission %q is not one of %v", s.Name, s.Permission, Permissions())
		}
		if strings.TrimSpace(s.Doc) == "" {
			t.Errorf("%s has no doc", s.Name)
		}
		if s.Payload == nil || s.Payload.Kind() != reflect.Struct {
			t.Errorf("%s: payload %v is not a struct", s.Name, s.Payload)
			continue
		}
		checkFields(t, s.Name, s.Payload)
	}
}

// checkFields holds a payload struct (and the structs it holds) to what
// the generated TypeScript can describe: every key once, every any-typed
// value with a ts tag.
func checkFields(t *testing.T, where string, typ reflect.Type) {
	t.Helper()
	keys := map[string]bool{}
	for _, f := range Fields(typ) {
		if keys[f.Key] {
			t.Errorf("%s: key %q twice (encoding/json would drop both)", where, f.Key)
		}
		keys[f.Key] = true
		inner := f.Type
		for inner.Kind() == reflect.Pointer || inner.Kind() == reflect.Slice {
			inner = inner.Elem()
		}
		if inner.Kind() == reflect.Interface && f.TS == "" {
			t.Errorf("%s.%s holds %v without a ts tag naming its TypeScript type", where, f.Key, f.Type)
		}
		if inner.Kind() == reflect.Struct && f.TS == "" {
			checkFields(t, where+"."+f.Key, inner)
		}
	}
}

// TestEveryConstantIsRegistered parses registry.go: each string constant
// it declares is a registered value, and each registered value one of
// those constants, so no publisher can hold a type the registry lacks.
func TestEveryConstantIsRegistered(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "registry.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("constant %s is not a string literal", name.Name)
				}
				v, _ := strconv.Unquote(lit.Value)
				consts[v] = name.Name
			}
		}
	}
	if len(consts) == 0 {
		t.Fatal("found no constants in registry.go")
	}
	for v, name := range consts {
		if _, ok := Lookup(v); !ok {
			t.Errorf("constant %s = %q has no registry entry", name, v)
		}
	}
	for _, s := range Specs() {
		if _, ok := consts[s.Type]; !ok {
			t.Errorf("%s = %q has no constant in registry.go", s.Name, s.Type)
		}
	}
}

// TestCheck: Check takes a registered bus event with a pointer to its
// payload struct and refuses everything else, naming the event.
func TestCheck(t *testing.T) {
	t.Parallel()
	if err := Check(Event{Type: MessageSent, Payload: &MessagePayload{}}); err != nil {
		t.Errorf("valid event refused: %v", err)
	}
	for name, c := range map[string]struct {
		e    Event
		want string
	}{
		"unregistered":      {Event{Type: "no_such_event", Payload: &MessagePayload{}}, `"no_such_event" is not a registered event type`},
		"window event":      {Event{Type: AppReady, Payload: &AppReadyPayload{}}, "APP_READY is fired by each window"},
		"another's payload": {Event{Type: MessageSent, Payload: &MessageReceivedPayload{}}, "MESSAGE_SENT payload is *events.MessageReceivedPayload, want *events.MessagePayload"},
		"value not pointer": {Event{Type: MessageSent, Payload: MessagePayload{}}, "MESSAGE_SENT payload is events.MessagePayload"},
		"map":               {Event{Type: ChatDeleted, Payload: map[string]any{"chatId": "c"}}, "CHAT_DELETED payload is map[string]interface {}"},
		"no payload":        {Event{Type: ChatDeleted}, "CHAT_DELETED payload is <nil>"},
		"nil pointer":       {Event{Type: ChatDeleted, Payload: (*ChatDeletedPayload)(nil)}, "CHAT_DELETED payload is a nil"},
	} {
		err := Check(c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check = %v, want an error containing %q", name, err, c.want)
		}
	}
}

// TestPublishPanicsInTests: in a test binary, publishing an event Check
// refuses panics at the publish site, before any subscriber gets it.
func TestPublishPanicsInTests(t *testing.T) {
	t.Parallel()
	if !strict {
		t.Fatal("strict is off in a test binary")
	}
	b := NewBus()
	defer b.Close()
	got := make(chan Event, 1)
	unsubscribe := b.Subscribe(func(e Event) { got <- e })
	defer unsubscribe()
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(error).Error(), `"made_up" is not a registered event type`) {
				t.Errorf("recovered %v", r)
			}
		}()
		b.Publish(Event{Type: "made_up", Payload: &AppReadyPayload{}})
	}()
	b.Publish(Event{Type: ConnectionsChanged, Payload: &ConnectionsChangedPayload{ConnectionID: "c"}})
	if e := <-got; e.Type != ConnectionsChanged {
		t.Errorf("subscriber got %s first", e.Type)
	}
}

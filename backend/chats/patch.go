package chats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
)

// patchOp is one decoded RFC 6902 operation with its pointers split.
type patchOp struct {
	raw  json.RawMessage
	op   string
	path []string
	from []string // move/copy only
	val  json.RawMessage
}

// MaxPatchOps bounds one patch call.
const MaxPatchOps = 10000

// decodeOps validates the shape of every op before anything is applied.
func decodeOps(raws []json.RawMessage) ([]patchOp, error) {
	if len(raws) > MaxPatchOps {
		return nil, apperr.New(apperr.CodeTooMany, "at most %d patch operations per call", MaxPatchOps)
	}
	out := make([]patchOp, len(raws))
	for i, raw := range raws {
		var o opFields
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, patchInvalid(i, "must be an object with string op and path")
		}
		var err error
		if out[i], err = o.decode(i, raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// opFields are the members of one operation as read, before validation.
type opFields struct {
	Op    *string         `json:"op"`
	Path  *string         `json:"path"`
	From  *string         `json:"from"`
	Value json.RawMessage `json:"value"` // "null" when the value is null, nil when absent
}

// decode validates op number i (raw is its JSON) and splits its pointers.
func (o opFields) decode(i int, raw json.RawMessage) (patchOp, error) {
	if o.Op == nil || o.Path == nil {
		return patchOp{}, patchInvalid(i, "must be an object with string op and path")
	}
	p := patchOp{raw: raw, op: *o.Op}
	var err error
	if p.path, err = splitPointer(*o.Path); err != nil {
		return patchOp{}, patchInvalid(i, err.Error())
	}
	switch p.op {
	case "add", "replace", "test":
		if o.Value == nil {
			return patchOp{}, patchInvalid(i, p.op+" needs a value")
		}
		p.val = o.Value
	case "remove":
	case "move", "copy":
		if o.From == nil {
			return patchOp{}, patchInvalid(i, p.op+" needs from")
		}
		if p.from, err = splitPointer(*o.From); err != nil {
			return patchOp{}, patchInvalid(i, err.Error())
		}
	default:
		return patchOp{}, patchInvalid(i, fmt.Sprintf("unknown op %q", p.op))
	}
	if len(p.path) == 0 && p.op != "test" {
		return patchOp{}, patchInvalid(i, "the document root cannot be "+p.op+"d; patch /metadata or /messages")
	}
	if len(p.path) > 0 && p.path[0] != "metadata" && p.path[0] != "messages" {
		return patchOp{}, patchInvalid(i, "paths start with /metadata or /messages")
	}
	return p, nil
}

func patchInvalid(i int, why string) error {
	return apperr.New(apperr.CodePatchInvalid, "patch op %d: %s", i, why).WithDetails(map[string]any{"op": i})
}

// splitPointer parses a JSON pointer, refusing prototype-polluting segments
// that JavaScript callers must never be able to write.
func splitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("path %q must start with /", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		if s == "__proto__" || s == "constructor" && i+1 < len(parts) && parts[i+1] == "prototype" {
			return nil, fmt.Errorf("path %q touches %s", p, s)
		}
		parts[i] = s
	}
	return parts, nil
}

func joinPointer(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	esc := make([]string, len(parts))
	for i, s := range parts {
		esc[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	}
	return "/" + strings.Join(esc, "/")
}

// Patch applies RFC 6902 operations atomically to the chat document
// { metadata, messages }. Retrying an `add /messages/N` whose value equals
// message N is a no-op, so a client may resend after a lost reply.
func (s *Service) Patch(ctx context.Context, chatID string, raws []json.RawMessage, opts WriteOptions) (int64, error) {
	ops, err := decodeOps(raws)
	if err != nil {
		return 0, err
	}
	return s.mutate(ctx, chatID, "patch", opts, func(m *mutation) error {
		ops, err := dropIdempotentAdds(ctx, m, ops)
		if err != nil || len(ops) == 0 {
			return err
		}
		if local, ok := localTargets(ops, m.chat.messageCount); ok {
			err = s.patchLocal(ctx, m, ops, local)
		} else {
			err = s.patchWhole(ctx, m, ops)
		}
		if err != nil || !m.changed {
			return err
		}
		// CHAT_PATCHED goes first, as for undo: a window applies its
		// operations, then takes CHAT_METADATA_UPDATED's metadata as it is.
		m.emitFirst(events.ChatPatched, &events.ChatPatchedPayload{Ops: m.ops, Length: m.chat.messageCount})
		return nil
	})
}

// messageIndex parses the index segment of /messages/N.
func messageIndex(seg string) (int, bool) {
	if seg == "" || (len(seg) > 1 && seg[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(seg)
	return n, err == nil && n >= 0
}

// dropIdempotentAdds removes leading `add /messages/N` ops whose value is
// the stored message N (the retry of an add that already landed).
func dropIdempotentAdds(ctx context.Context, m *mutation, ops []patchOp) ([]patchOp, error) {
	for len(ops) > 0 {
		op := ops[0]
		if op.op != "add" || len(op.path) != 2 || op.path[0] != "messages" {
			break
		}
		n, ok := messageIndex(op.path[1])
		if !ok || n >= m.chat.messageCount {
			break
		}
		sm, err := loadAt(ctx, m.tx, m.chat, n)
		if err != nil {
			return nil, err
		}
		if !sameMessage(sm.msg, op.val) {
			break
		}
		ops = ops[1:]
	}
	return ops, nil
}

// sameMessage reports whether val describes stored message msg (ignoring
// the host-assigned id when val has none).
func sameMessage(msg *StMessage, val json.RawMessage) bool {
	o, err := jsonx.DecodeObject(val, "value")
	if err != nil {
		return false
	}
	if _, ok := o["id"]; !ok {
		o["id"] = jsonx.Raw(msg.ID)
	}
	var a, b any
	if json.Unmarshal(msg.mustJSON(), &a) != nil {
		return false
	}
	got, _ := o.MarshalJSON()
	if json.Unmarshal(got, &b) != nil {
		return false
	}
	return jsonEqual(a, b)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// localTargets reports whether every op stays inside /metadata or inside
// one existing message (no structural change to the message array), and
// which messages they touch.
func localTargets(ops []patchOp, count int) (map[int]bool, bool) {
	touched := map[int]bool{}
	target := func(path []string) (string, bool) {
		switch {
		case len(path) >= 1 && path[0] == "metadata":
			return "metadata", true
		case len(path) >= 3 && path[0] == "messages":
			n, ok := messageIndex(path[1])
			if !ok || n >= count {
				return "", false
			}
			touched[n] = true
			return "messages/" + path[1], true
		}
		return "", false
	}
	for _, op := range ops {
		t, ok := target(op.path)
		if !ok {
			return nil, false
		}
		if op.from != nil {
			f, ok := target(op.from)
			if !ok || f != t {
				return nil, false
			}
		}
	}
	return touched, true
}

// applyOne applies a single op to doc, rebased to rest of its path.
func applyOne(doc []byte, op patchOp, strip int, index int) ([]byte, error) {
	o := map[string]any{"op": op.op, "path": joinPointer(op.path[strip:])}
	if op.val != nil {
		o["value"] = op.val
	}
	if op.from != nil {
		o["from"] = joinPointer(op.from[strip:])
	}
	b, _ := json.Marshal([]any{o})
	p, err := jsonpatch.DecodePatch(b)
	if err != nil {
		return nil, patchInvalid(index, err.Error())
	}
	out, err := jsonx.ApplyPatch(doc, p, patchOptions)
	if err != nil {
		if op.op == "test" {
			return nil, apperr.New(apperr.CodePatchTestFailed, "patch op %d: test failed at %s", index, joinPointer(op.path)).
				WithDetails(map[string]any{"op": index, "path": joinPointer(op.path)})
		}
		return nil, patchInvalid(index, err.Error())
	}
	return out, nil
}

// patchLocal applies ops that each stay inside /metadata or one message,
// loading only the messages they touch.
func (s *Service) patchLocal(ctx context.Context, m *mutation, ops []patchOp, touched map[int]bool) error {
	meta, _ := m.chat.metadata.MarshalJSON()
	docs := map[int][]byte{}
	stored := map[int]storedMessage{}
	for n := range touched {
		sm, err := loadAt(ctx, m.tx, m.chat, n)
		if err != nil {
			return err
		}
		stored[n], docs[n] = sm, sm.msg.mustJSON()
	}
	// The ops go one at a time, so the library's bound on what copies add
	// counts one op; the sum over the patch is kept here.
	var copied int
	for i, op := range ops {
		var before, after []byte
		var err error
		if op.path[0] == "metadata" {
			before = meta
			meta, err = applyOne(meta, op, 1, i)
			after = meta
		} else {
			n, _ := messageIndex(op.path[1])
			before = docs[n]
			docs[n], err = applyOne(docs[n], op, 2, i)
			after = docs[n]
		}
		if err != nil {
			return err
		}
		if op.op == "copy" {
			if copied += len(after) - len(before); copied > jsonx.MaxCopyBytes {
				return patchInvalid(i, fmt.Sprintf("the patch's copies add more than %d MiB", jsonx.MaxCopyBytes>>20))
			}
		}
	}
	next, err := jsonx.DecodeObject(meta, "metadata")
	if err != nil {
		return apperr.New(apperr.CodePatchInvalid, "metadata must stay an object")
	}
	if err := setMetadata(m, next); err != nil {
		return err
	}
	for n, sm := range stored {
		doc, err := jsonx.DecodeObject(docs[n], "message")
		if err != nil {
			return apperr.New(apperr.CodePatchInvalid, "message %d must stay an object", n)
		}
		msg, err := messageFromPatched(sm.msg, doc, n, s.now)
		if err != nil {
			return err
		}
		if _, err := s.rewrite(ctx, m, sm, msg); err != nil {
			return err
		}
	}
	return nil
}

// messageFromEdit is messageFromPatched for the common case of an edit:
// doc is was (old as stored, split into members) with at most its "mes"
// and "swipes" changed, the swipes as many as before. Then the result is
// old with those texts, and decoding every other member again (a tenth of
// an undo of an edit) is skipped. ok is false for anything else, which
// messageFromPatched then decides. old must hold a send_date, as every
// stored message does, since newMessage would add one.
func messageFromEdit(old *StMessage, was, doc jsonx.Object) (msg *StMessage, ok bool) {
	if len(doc) != len(was) {
		return nil, false
	}
	if _, dated := old.Fields["send_date"]; !dated {
		return nil, false
	}
	var mes, swipes json.RawMessage
	for k, v := range doc {
		w, found := was[k]
		switch {
		case !found:
			return nil, false
		case bytes.Equal(v, w):
		case k == "mes":
			mes = v
		case k == "swipes":
			swipes = v
		default:
			return nil, false
		}
	}
	msg = old.Clone()
	if swipes != nil {
		texts, err := jsonx.Strings(swipes, "swipes")
		if err != nil || len(texts) != len(old.Swipes) {
			return nil, false
		}
		msg.Swipes = texts
	}
	if mes != nil {
		text, err := jsonx.String(mes, "mes")
		if err != nil {
			return nil, false
		}
		if text != old.Mes() {
			msg.Swipes[msg.SwipeID] = text
		}
	}
	return msg, true
}

// messageFromPatched validates a patched message document against the
// message invariants. A changed mes sets the active swipe; otherwise mes
// follows swipes[swipe_id]. The id is read-only.
func messageFromPatched(old *StMessage, doc jsonx.Object, index int, now func() time.Time) (*StMessage, error) {
	o := doc.Clone()
	if raw, ok := o["id"]; ok {
		if id, err := jsonx.String(raw, "id"); err != nil || id != old.ID {
			return nil, apperr.New(apperr.CodePatchInvalid, "message %d: id is read-only", index)
		}
		delete(o, "id")
	}
	if raw, ok := o["mes"]; ok {
		if mes, err := jsonx.String(raw, "mes"); err == nil && mes == old.Mes() {
			delete(o, "mes")
		}
	}
	msg, err := newMessage(o, fmt.Sprintf("messages[%d]", index), func(bool) string { return old.Name }, now())
	if err != nil {
		return nil, err
	}
	msg.ID = old.ID
	return msg, nil
}

package runstore

import (
	"bytes"
	"encoding/json"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
)

// Length bounds of the strings callers pass. Run and checkpoint ids are
// about 40 bytes and chat ids 36; the bounds leave room without letting a
// script send a megabyte where an id goes.
const (
	maxIDBytes     = 128
	maxChatIDBytes = 256
	maxNameBytes   = 64  // generation type, presentation, event type, level
	maxReasonBytes = 256 // checkpoint reason
)

// invalid is a validation error naming the field.
func invalid(field, format string, args ...any) error {
	return apperr.Invalid(format, args...).WithDetails(map[string]any{"field": field})
}

// CheckEventsLimit refuses a page size for Events outside
// 1..MaxEventsLimit. The host checks a limit it was given with it, since
// Events reads 0 as "not given".
func CheckEventsLimit(limit int) error { return checkLimit(limit, MaxEventsLimit) }

// CheckListLimit refuses a page size for List outside 1..MaxListLimit, as
// CheckEventsLimit does for Events.
func CheckListLimit(limit int) error { return checkLimit(limit, MaxListLimit) }

// checkLimit refuses a limit outside 1..maxLimit rather than cutting it:
// a caller asking for more than a page gets told, not a short page it may
// read as the end.
func checkLimit(limit, maxLimit int) error {
	if limit < 1 || limit > maxLimit {
		return apperr.Invalid("limit must be between 1 and %d, got %d", maxLimit, limit).
			WithDetails(map[string]any{"field": "limit", "min": 1, "max": maxLimit, "got": limit})
	}
	return nil
}

// checkText refuses an empty, too long or control-character string.
func checkText(field, v string, maxBytes int) error {
	switch {
	case v == "":
		return invalid(field, "%s is required", field)
	case len(v) > maxBytes:
		return invalid(field, "%s is %d bytes; at most %d are allowed", field, len(v), maxBytes)
	case inputs.HasControl(v):
		return invalid(field, "%s %q holds a control character", field, inputs.Short(v))
	}
	return nil
}

// checkRunID checks a run id a caller sent. An id of the right shape that
// names no run is not an input error: the lookup answers agent.run_not_found.
func checkRunID(id string) error { return checkText("runId", id, maxIDBytes) }

// checkEventType allows lower snake case with dots ("run_created",
// "tool.result"): types are names, never text.
func checkEventType(typ string) error {
	if err := checkText("type", typ, maxNameBytes); err != nil {
		return err
	}
	for _, c := range []byte(typ) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '.' {
			return invalid("type", "event type %q: only a-z, 0-9, '_' and '.' are allowed", inputs.Short(typ))
		}
	}
	return nil
}

// checkJSON checks that raw is JSON of the kind its first byte announces
// ('{' an object, '[' an array).
func checkJSON(field string, raw json.RawMessage, open byte) error {
	trimmed := bytes.TrimSpace(raw)
	kind := map[byte]string{'{': "an object", '[': "an array"}[open]
	if len(trimmed) == 0 || trimmed[0] != open || !json.Valid(trimmed) {
		return invalid(field, "%s must be %s in JSON", field, kind)
	}
	return nil
}

// marshalPayload marshals an event payload: nil is {}, anything else must
// marshal to an object of at most MaxPayloadBytes. HTML is not escaped so
// stored model text stays readable.
func marshalPayload(p any) ([]byte, error) {
	if p == nil {
		return []byte("{}"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, invalid("payload", "event payload does not marshal to JSON: %v", err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) == 0 || b[0] != '{' {
		return nil, invalid("payload", "event payload must be a JSON object")
	}
	if len(b) > MaxPayloadBytes {
		return nil, apperr.Invalid("event payload is %d bytes; at most %d are allowed: cut long texts and point at the workspace file", len(b), MaxPayloadBytes).
			WithDetails(map[string]any{"field": "payload", "bytes": len(b), "maxBytes": MaxPayloadBytes})
	}
	return b, nil
}

// checkLevel defaults "" to info and refuses unknown levels.
func checkLevel(level string) (string, error) {
	switch level {
	case "":
		return LevelInfo, nil
	case LevelDebug, LevelInfo, LevelWarn, LevelError:
		return level, nil
	}
	return "", invalid("level", "unknown event level %q: use debug, info, warn or error", inputs.Short(level))
}

// checkStatus refuses a status that is not one of the run statuses.
func checkStatus(field, status string) error {
	if !KnownStatus(status) {
		return invalid(field, "unknown run status %q", inputs.Short(status))
	}
	return nil
}

// checkChange validates the parts of a Change that come as data.
func checkChange(ch Change) error {
	if ch.Status != "" {
		if err := checkStatus("status", ch.Status); err != nil {
			return err
		}
	}
	if ch.Pending != nil && !ch.ClearPending {
		if err := checkJSON("pending", ch.Pending, '{'); err != nil {
			return err
		}
	}
	if ch.Commits != nil {
		if err := checkJSON("commits", ch.Commits, '['); err != nil {
			return err
		}
	}
	if ch.CommitMessageID != nil {
		if err := checkText("commitMessageId", *ch.CommitMessageID, maxChatIDBytes); err != nil {
			return err
		}
	}
	if ch.AddRounds < 0 || ch.AddCalls < 0 || (ch.AddUsage != nil && (ch.AddUsage.InputTokens < 0 || ch.AddUsage.OutputTokens < 0)) {
		return invalid("usage", "usage, rounds and calls only grow: a negative count was given")
	}
	return nil
}

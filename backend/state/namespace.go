package state

import (
	"regexp"
	"strings"

	"hearth/backend/apperr"
)

// Suffixes of the namespaces a floor state keeps for itself.
const (
	LogSuffix    = "__floor_log"
	OrphanSuffix = "__orphans"
)

var namespaceRe = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// checkNamespace validates a namespace name (any name, reserved ones too:
// they are readable).
func checkNamespace(ns string) error {
	if !namespaceRe.MatchString(ns) {
		return apperr.Invalid("namespace %q must be 1-128 characters of A-Z a-z 0-9 _ . : -", clip(ns)).
			WithDetails(map[string]any{"namespace": clip(ns)})
	}
	return nil
}

// reserved reports whether ns belongs to a floor state's private keeping.
func reserved(ns string) bool {
	return strings.HasSuffix(ns, LogSuffix) || strings.HasSuffix(ns, OrphanSuffix)
}

// checkWritable validates ns for a plain chat-state write.
func checkWritable(ns string) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	if reserved(ns) {
		return apperr.New(apperr.CodeStateReserved, "namespace %q is reserved: names ending in %s or %s belong to floor states", ns, LogSuffix, OrphanSuffix).
			WithDetails(map[string]any{"namespace": ns})
	}
	return nil
}

func floorOwned(ns string) error {
	return apperr.New(apperr.CodeStateFloorOwned, "namespace %q is owned by a floor state; write it through createFloorState", ns).
		WithDetails(map[string]any{"namespace": ns})
}

func clip(s string) string {
	if len(s) > 140 {
		return s[:140] + "…"
	}
	return s
}

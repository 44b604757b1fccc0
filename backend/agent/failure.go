package agent

import (
	"math"
	"reflect"
	"slices"

	"hearth/backend/apperr"
)

// Bounds of the details a failed run reports. A provider's message is
// already cut to 500 bytes (providers.maxProviderMessage), so
// maxFailureDetailBytes keeps it whole; the bounds are for what no one
// cut, since the same details go on every window's bus.
const (
	maxFailureDetails     = 16
	maxFailureDetailBytes = 1024
)

// requestFailed is the error of a run whose model request failed for good:
// model.request_failed (AGENT.md §3), whatever the provider answered, so
// a run's failures have one code; the provider's code stays in
// details.cause (model.auth_failed, model.unreachable…) next to its
// details (status, providerMessage), for the window to offer a fix.
func requestFailed(err error) *apperr.Error {
	ae := apperr.As(err)
	if ae == nil {
		return apperr.New(CodeModelRequestFailed, "the model request failed: %v", err)
	}
	details := make(map[string]any, len(ae.Details)+1)
	for k, v := range ae.Details {
		details[k] = v
	}
	details["cause"] = ae.Code
	return apperr.New(CodeModelRequestFailed, "the model request failed (%s): %s", ae.Code, ae.Message).WithDetails(details)
}

// runFailure is how a failed run reports err, in its row (getRun,
// listRuns) and in its run_failed event alike: err's code and message,
// and its own details bounded by failureDetails. A new value: err may be
// shared, and a foreign error becomes internal with its text (apperr.Local).
func runFailure(err error) *apperr.Error {
	ae := apperr.As(err)
	if ae == nil {
		ae = apperr.Local(err)
	}
	return &apperr.Error{Code: ae.Code, Message: ae.Message, Details: failureDetails(ae.Details)}
}

// failureDetails keeps what a failure's details say in a form that cannot
// keep the failure from being recorded or flood the bus: scalars only (a
// nested map or list could hold a tool's arguments, and is not what a
// window acts on), strings cut to maxFailureDetailBytes, no NaN or
// infinity (JSON has none, and a payload that does not marshal is never
// stored, leaving the run unfinished), at most maxFailureDetails members
// with cause kept first. Nil when nothing is left.
func failureDetails(in map[string]any) map[string]any {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if i := slices.Index(keys, "cause"); i > 0 {
		copy(keys[1:i+1], keys[:i])
		keys[0] = "cause"
	}
	out := map[string]any{}
	for _, k := range keys {
		if len(out) == maxFailureDetails {
			break
		}
		if v, ok := scalarDetail(in[k]); ok {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// scalarDetail returns v as a failure detail keeps it, or false when it is
// not a finite scalar.
func scalarDetail(v any) (any, bool) {
	if v == nil {
		return nil, true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return cut(rv.String(), maxFailureDetailBytes), true
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v, true
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		return v, !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return nil, false
}

// failedPayload is run_failed's payload (AGENT.md §8): { code, message },
// and details when the failure has any (details.cause names the
// provider's code of a failed model request, which the window reads to
// offer Connections).
func failedPayload(ae *apperr.Error) map[string]any {
	p := map[string]any{"code": ae.Code, "message": ae.Message}
	if len(ae.Details) > 0 {
		p["details"] = ae.Details
	}
	return p
}

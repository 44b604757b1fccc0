// Package extensions installs, registers and stores data for Hearth
// extensions (EXTENSIONS.md): packages read from a folder, an uploaded
// zip or an https URL, checked in full before anything is installed, a
// registry row per extension in SQLite, and each extension's own
// key-value storage.
package extensions

import "hearth/backend/apperr"

// Error codes of this package (EXTENSIONS.md §1 and §3).
const (
	CodeInvalidManifest = "extension.invalid_manifest"
	CodeInvalidPackage  = "extension.invalid_package"
	CodeExists          = "extension.exists"
	CodeNotFound        = "extension.not_found"
	CodeQuotaExceeded   = "extension.quota_exceeded"
	CodeFetchFailed     = "extension.fetch_failed"
	CodeNotUpdatable    = "extension.not_updatable"
)

// badManifest is extension.invalid_manifest naming the field at fault.
func badManifest(field, format string, args ...any) *apperr.Error {
	return apperr.New(CodeInvalidManifest, "manifest.json: "+field+": "+format, args...).
		WithDetails(map[string]any{"field": field})
}

// badPackage is extension.invalid_package naming the file at fault.
func badPackage(file, format string, args ...any) *apperr.Error {
	return apperr.New(CodeInvalidPackage, file+": "+format, args...).
		WithDetails(map[string]any{"file": file})
}

func notFound(id string) *apperr.Error {
	return apperr.New(CodeNotFound, "no extension %q is installed", id).WithDetails(map[string]any{"id": id})
}

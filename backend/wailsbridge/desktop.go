package wailsbridge

import "hearth/backend/host"

// RegisterDesktop adds to r the methods only the desktop window serves:
// the save methods (RegisterSaveFiles) and library.pickFolder
// (RegisterPickFolder). backend/tools/abimethods lists the routes through
// it too, so a desktop method registered here is one the ABI's method
// check knows of.
func RegisterDesktop(r *host.Router, ex Exporters, save SaveDialog, pick FolderDialog) {
	RegisterSaveFiles(r, ex, save)
	RegisterPickFolder(r, pick)
}

package library

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/extensions"
)

// Where SillyTavern keeps third-party extensions (EXTENSIONS.md §4). A
// user's are in the user folder, under extensions/; an install's global
// ones ("Install for all users") under public/scripts/extensions/third-
// party, which also held every third-party extension before user folders
// existed. TauriTavern keeps its global ones beside its users, in
// data/extensions/third-party (extensions/third-party when the import
// was pointed at its data folder). The globals are reachable only from
// an install: a user folder alone does not name the install around it.
const dirUserExtensions = "extensions"

var globalExtensionDirs = []string{
	"public/scripts/extensions/third-party",
	"data/extensions/third-party",
	"extensions/third-party",
}

// StorageKeyExtensionSettings is the storage key (in the extension's own
// namespace, api.extensions.storage) of its share of SillyTavern's
// extension_settings: an object of the extension_settings keys it owns
// and their values, as the page-tier runtime reads and writes it
// (frontend/src/extensions/st/settings.ts). The import writes the one
// key it found for the extension: { "<key>": <the value as it was> }.
const StorageKeyExtensionSettings = "st.extension_settings"

// settingsKeyExtensions names settings.json's extension_settings in the
// summary; an extension's entry is settingsKeyExtensions + "/" + key.
const settingsKeyExtensions = fileSettings + "#extension_settings"

// extensionSettings keeps settings.json's extension_settings for the
// extensions phase. A value that is not an object carries nobody's
// settings over, and says so.
func (r *importRun) extensionSettings(st stSettings) {
	raw := bytes.TrimSpace(st.ExtensionSettings)
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		r.fail(KindSettings, settingsKeyExtensions, errors.New("extension_settings is not an object; no extension's settings were carried over"))
		return
	}
	r.extSettings = m
}

// installExtensions installs the user's third-party extensions, then the
// install's global ones, each turned off: the person turns on what they
// trust in Hearth's manager. SillyTavern's disabledExtensions needs no
// reading, since nothing comes in on. An id Hearth has already is
// skipped (the user's extension wins over a global one of the same name,
// as in SillyTavern); a package the extensions service refuses (a bad
// manifest, a symbolic link, too big) fails alone.
func (r *importRun) installExtensions() error {
	var items []entry
	// libraries maps an item's path to its ledger folder: the user
	// folder, or the install for a global one. User paths have two
	// parts (extensions/<name>) and global ones more, so none clash.
	libraries := map[string]string{}
	add := func(f folder, dirs ...string) {
		for _, dir := range dirs {
			for _, e := range r.extensionFolders(f, dir) {
				libraries[e.rel] = f.root
				items = append(items, e)
			}
		}
	}
	add(r.f, dirUserExtensions)
	if r.install.root != "" {
		add(r.install, globalExtensionDirs...)
	}
	return r.each("extensions", items, func(e entry) error { return r.extension(e, libraries[e.rel]) })
}

// extensionFolders lists the folders of dir inside f that may hold an
// extension. Links out of f are skipped, like every kind's; dot-folders
// (.git) are passed over in silence, as SillyTavern's forks do; a folder
// that cannot be read fails, and the rest of the import goes on.
func (r *importRun) extensionFolders(f folder, dir string) []entry {
	entries, outside, err := f.list(dir)
	if err != nil {
		r.fail(KindExtension, dir, err)
		return nil
	}
	for _, rel := range outside {
		r.skip(KindExtension, rel, "a symbolic link to outside the folder (or past the entry limit); not followed")
	}
	var out []entry
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.name, "."):
		case !e.isDir:
			r.skip(KindExtension, e.rel, "not an extension folder")
		default:
			out = append(out, e)
		}
	}
	return out
}

// extension installs the extension folder e, turned off, through the
// extensions service (its id rule, its package checks: symbolic links,
// sizes, the manifest; .git is left out), then carries its settings.
// The ledger remembers it by path and the hash of its manifest.
func (r *importRun) extension(e entry, library string) error {
	manifest := filepath.Join(e.abs, extensions.ManifestName)
	info, err := os.Lstat(manifest)
	switch {
	case errIsNotExist(err):
		r.skip(KindExtension, e.rel, "no manifest.json: not an extension SillyTavern would load")
		return nil
	case err != nil:
		r.fail(KindExtension, e.rel, err)
		return nil
	}
	// A manifest that is no plain file, or too big, is refused by the
	// service below; only a plain one is read here, for the ledger.
	var raw []byte
	if info.Mode().IsRegular() && info.Size() <= extensions.MaxManifestBytes {
		raw, _ = read(entry{abs: manifest, size: info.Size()}, extensions.MaxManifestBytes)
	}
	sha := hashOf(raw)
	if seen, _, err := r.knownIn(library, KindExtension, e.rel, sha); err != nil || seen {
		return err
	}
	ext, err := r.s.d.Extensions.Install(r.ctx, extensions.Source{Path: e.abs}, extensions.InstallOptions{Enable: false})
	switch {
	case apperr.CodeOf(err) == extensions.CodeExists:
		id, _ := apperr.As(err).Details["id"].(string)
		if from, ok := r.extIDs[strings.ToLower(id)]; ok {
			r.skip(KindExtension, e.rel, fmt.Sprintf("has the id %q of %s, imported just before (SillyTavern too loads the user's extension over a global one of the same name)", id, from))
		} else {
			r.skip(KindExtension, e.rel, fmt.Sprintf("an extension %q is installed in Hearth already; Hearth's copy kept", id))
		}
		return nil
	case err != nil:
		r.fail(KindExtension, e.rel, err)
		return nil
	}
	r.extIDs[strings.ToLower(ext.ID)] = e.rel
	r.sum.Imported.Extensions++
	if err := r.s.remember(r.ctx, record{Library: library, Kind: KindExtension, Key: e.rel, SHA: sha, HearthID: ext.ID}); err != nil {
		return err
	}
	r.carrySettings(e.name, ext.ID)
	return nil
}

// carrySettings stores the extension_settings entry of the extension
// whose folder is name — extension_settings[name], else
// extension_settings["third-party/<name>"], the two keys SillyTavern
// extensions use — in the storage of the installed extension id (see
// StorageKeyExtensionSettings). Settings stored there already (an earlier
// install removed without its data) are kept; a skip or failure here is
// the settings' (KindSettings), the extension is installed either way.
// Only this one entry of
// settings.json is read: the rest, secrets included, never reaches an
// extension.
func (r *importRun) carrySettings(name, id string) {
	key, value := "", json.RawMessage(nil)
	for _, k := range []string{name, "third-party/" + name} {
		if v, ok := r.extSettings[k]; ok && string(bytes.TrimSpace(v)) != "null" {
			key, value = k, v
			break
		}
	}
	if key == "" {
		return
	}
	rel := settingsKeyExtensions + "/" + key
	have, err := r.s.d.Extensions.StorageGet(r.ctx, id, StorageKeyExtensionSettings)
	if err != nil {
		r.fail(KindSettings, rel, err)
		return
	}
	if string(have) != "null" {
		r.skip(KindSettings, rel, fmt.Sprintf("%s has settings stored in Hearth already; those kept", id))
		return
	}
	share, err := json.Marshal(map[string]json.RawMessage{key: value})
	if err == nil {
		err = r.s.d.Extensions.StorageSet(r.ctx, id, StorageKeyExtensionSettings, share)
	}
	if err != nil {
		r.fail(KindSettings, rel, fmt.Errorf("its settings were not carried over: %s", message(err)))
	}
}

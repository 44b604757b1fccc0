package library

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"hearth/backend/personas"
	"hearth/backend/worldinfo"
)

// stSettings is what Hearth reads of SillyTavern's settings.json.
type stSettings struct {
	UserAvatar string `json:"user_avatar"`
	PowerUser  struct {
		Personas       map[string]json.RawMessage `json:"personas"`
		Descriptions   map[string]json.RawMessage `json:"persona_descriptions"`
		DefaultPersona json.RawMessage            `json:"default_persona"`
	} `json:"power_user"`
	WorldInfo json.RawMessage `json:"world_info_settings"`
	// ExtensionSettings is read apart (extensionSettings), so that a
	// value of another shape spoils only the extensions' settings.
	ExtensionSettings json.RawMessage `json:"extension_settings"`
}

// settingsKeyWorldInfo is the ledger key of settings.json's World Info
// part (world_info_settings).
const settingsKeyWorldInfo = fileSettings + "#world_info_settings"

// settings imports what settings.json holds that Hearth models: the
// personas with their descriptions and avatar images (User Avatars/), the
// default and the selected persona, and the World Info settings with the
// global lorebook selection. The file itself is kept, so an export writes
// Hearth's personas and World Info into it and leaves the rest as it was.
func (r *importRun) settings() error {
	entries, outside, err := r.f.list("")
	if err != nil {
		return err
	}
	var file *entry
	for i, e := range entries {
		if e.name == fileSettings && !e.isDir {
			file = &entries[i]
		}
	}
	if file == nil {
		for _, rel := range outside {
			if rel == fileSettings {
				r.skip(KindSettings, rel, "a symbolic link to outside the folder; not followed")
			}
		}
		return nil
	}
	r.rep.report(Progress{Phase: "settings", Done: 0, Total: 1, Current: fileSettings})
	raw, err := read(*file, maxSettingsBytes)
	if err != nil {
		r.fail(KindSettings, fileSettings, err)
		return nil
	}
	var st stSettings
	if err := json.Unmarshal(raw, &st); err != nil {
		r.fail(KindSettings, fileSettings, fmt.Errorf("settings.json is not SillyTavern's settings: %v", err))
		return nil
	}
	if err := r.rememberAndKeep(record{}, keptFile{Path: fileSettings, Kind: keptSettings, Body: raw}); err != nil {
		return err
	}
	if err := r.personaList(st); err != nil {
		return err
	}
	if err := r.worldInfo(st); err != nil {
		return err
	}
	r.extensionSettings(st)
	r.rep.report(Progress{Phase: "settings", Done: 1, Total: 1})
	return nil
}

// stDescriptor is the part of a persona_descriptions entry Hearth keeps
// in fields; the whole entry goes to the ledger, so keys Hearth has no
// field for (title, connections …) are written back on export.
type stDescriptor struct {
	Description *string  `json:"description"`
	Lorebook    any      `json:"lorebook"`
	Position    *float64 `json:"position"`
	Depth       *float64 `json:"depth"`
	Role        *float64 `json:"role"`
}

// personaList imports power_user.personas, in avatar-file order.
func (r *importRun) personaList(st stSettings) error {
	images := map[string]entry{}
	avatarFiles, _, err := r.files(KindPersona, dirAvatars, []string{".png", ".jpg", ".jpeg", ".webp", ".gif"}, "")
	if err != nil {
		return err
	}
	for _, e := range avatarFiles {
		images[e.name] = e
	}
	files := make([]string, 0, len(st.PowerUser.Personas))
	for f := range st.PowerUser.Personas {
		files = append(files, f)
	}
	sort.Strings(files)
	var items []entry
	for _, f := range files {
		items = append(items, entry{rel: dirAvatars + "/" + f, name: f})
	}
	for _, e := range avatarFiles {
		if _, ok := st.PowerUser.Personas[e.name]; !ok {
			r.skip(KindPersona, e.rel, "no persona in settings.json names this picture")
		}
	}
	err = r.each("personas", items, func(e entry) error {
		return r.persona(e, st, images)
	})
	if err != nil {
		return err
	}
	return r.personaFlags(st)
}

// persona imports one persona: its name, its descriptor and its picture.
func (r *importRun) persona(e entry, st stSettings, images map[string]entry) error {
	if e.name == "" || e.name == "." || e.name == ".." || strings.ContainsAny(e.name, "/\\\x00") {
		r.fail(KindPersona, e.rel, errors.New("the persona's avatar file name is not a file name"))
		return nil
	}
	var name string
	if err := json.Unmarshal(st.PowerUser.Personas[e.name], &name); err != nil {
		r.fail(KindPersona, e.rel, errors.New("its name in settings.json is not a string"))
		return nil
	}
	descRaw := st.PowerUser.Descriptions[e.name]
	var desc stDescriptor
	if len(descRaw) > 0 && string(descRaw) != "null" {
		if err := json.Unmarshal(descRaw, &desc); err != nil {
			r.fail(KindPersona, e.rel, fmt.Errorf("its persona_descriptions entry is not SillyTavern's: %v", err))
			return nil
		}
	}
	var image []byte
	if img, ok := images[e.name]; ok {
		var err error
		if image, err = read(img, personas.MaxAvatarBytes); err != nil {
			r.fail(KindPersona, e.rel, err)
			return nil
		}
	}
	sha := hashOf([]byte(name), descRaw, image)
	seen, id, err := r.known(KindPersona, e.rel, sha)
	if err != nil {
		return err
	}
	if seen {
		if _, err := r.s.d.Personas.Get(r.ctx, id); err == nil {
			r.personas[e.name] = id
		}
		return nil
	}
	in := personas.Input{Name: &name, Description: desc.Description}
	if book, ok := desc.Lorebook.(string); ok {
		in.Lorebook = &book
	}
	for _, f := range []struct {
		v    *float64
		dst  **int
		name string
	}{{desc.Position, &in.Position, "position"}, {desc.Depth, &in.Depth, "depth"}, {desc.Role, &in.Role, "role"}} {
		if f.v == nil {
			continue
		}
		if *f.v != math.Trunc(*f.v) || math.Abs(*f.v) > 1e9 {
			r.fail(KindPersona, e.rel, fmt.Errorf("its %s %v is not a whole number", f.name, *f.v))
			return nil
		}
		n := int(*f.v)
		*f.dst = &n
	}
	if image != nil {
		in.Avatar, _ = json.Marshal(map[string]string{"base64": base64.StdEncoding.EncodeToString(image)})
	}
	p, err := r.s.d.Personas.Save(r.ctx, in)
	if err != nil {
		r.fail(KindPersona, e.rel, err)
		return nil
	}
	r.personas[e.name] = p.ID
	r.sum.Imported.Personas++
	var extra bytes.Buffer
	if len(descRaw) > 0 && json.Compact(&extra, descRaw) != nil {
		extra.Reset()
	}
	return r.s.remember(r.ctx, record{Library: r.f.root, Kind: KindPersona, Key: e.rel, SHA: sha, HearthID: p.ID, Extra: extra.String()})
}

// personaFlags makes SillyTavern's default persona (power_user.
// default_persona) and selected persona (user_avatar) Hearth's default and
// active one, where Hearth has none yet: an import never overrides a
// choice made in Hearth.
func (r *importRun) personaFlags(st stSettings) error {
	var def string
	_ = json.Unmarshal(st.PowerUser.DefaultPersona, &def)
	for _, flag := range []struct {
		file    string
		current func() (*personas.Persona, error)
		set     func(*string) (*personas.Persona, error)
	}{
		{def, func() (*personas.Persona, error) { return r.s.d.Personas.Default(r.ctx) }, func(id *string) (*personas.Persona, error) { return r.s.d.Personas.SetDefault(r.ctx, id) }},
		{st.UserAvatar, func() (*personas.Persona, error) { return r.s.d.Personas.Active(r.ctx) }, func(id *string) (*personas.Persona, error) { return r.s.d.Personas.SetActive(r.ctx, id) }},
	} {
		id, ok := r.personas[flag.file]
		if flag.file == "" || !ok {
			continue
		}
		cur, err := flag.current()
		if err != nil {
			return err
		}
		if cur != nil {
			continue
		}
		if _, err := flag.set(&id); err != nil {
			r.fail(KindSettings, fileSettings, err)
		}
	}
	return nil
}

// worldInfoKeys are the world_info_settings keys Hearth's World Info
// settings have (worldinfo.Config's JSON names, globalSelect aside).
func worldInfoKeys() []string {
	raw, _ := json.Marshal(worldinfo.Config{})
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "globalSelect" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// worldInfo imports world_info_settings: the activation settings Hearth
// has, and world_info.globalSelect added to Hearth's global selection
// (books Hearth does not have are left out, as SillyTavern leaves them).
func (r *importRun) worldInfo(st stSettings) error {
	if len(st.WorldInfo) == 0 || string(st.WorldInfo) == "null" {
		return nil
	}
	sha := hashOf(st.WorldInfo)
	if seen, _, err := r.known(KindSettings, settingsKeyWorldInfo, sha); err != nil || seen {
		return err
	}
	var m map[string]json.RawMessage
	var sel struct {
		GlobalSelect []string `json:"globalSelect"`
	}
	if err := json.Unmarshal(st.WorldInfo, &m); err != nil {
		r.fail(KindSettings, settingsKeyWorldInfo, fmt.Errorf("world_info_settings is not an object: %v", err))
		return nil
	}
	if raw, ok := m["world_info"]; ok {
		if err := json.Unmarshal(raw, &sel); err != nil {
			r.fail(KindSettings, settingsKeyWorldInfo, fmt.Errorf("world_info.globalSelect is not a list of names: %v", err))
			return nil
		}
	}
	patch := map[string]json.RawMessage{}
	for _, k := range worldInfoKeys() {
		if v, ok := m[k]; ok {
			patch[k] = v
		}
	}
	cur, err := r.s.d.WorldInfo.Config(r.ctx)
	if err != nil {
		return err
	}
	books, err := r.s.d.WorldInfo.List(r.ctx)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, b := range books {
		have[b.Name] = true
	}
	global := append([]string{}, cur.GlobalSelect...)
	for _, name := range sel.GlobalSelect {
		switch {
		case !have[name]:
			r.skip(KindSettings, settingsKeyWorldInfo, fmt.Sprintf("the global lorebook %q is not in Hearth; left out of the selection", name))
		case !contains(global, name):
			global = append(global, name)
		}
	}
	patch["globalSelect"], _ = json.Marshal(global)
	body, _ := json.Marshal(patch)
	if _, err := r.s.d.WorldInfo.SaveConfig(r.ctx, body); err != nil {
		r.fail(KindSettings, settingsKeyWorldInfo, err)
		return nil
	}
	return r.s.remember(r.ctx, record{Library: r.f.root, Kind: KindSettings, Key: settingsKeyWorldInfo, SHA: sha, HearthID: "worldinfo"})
}

// maxPresetBytes is the presets service's own cap on a preset file.
const maxPresetBytes = 4 << 20

// presetOrigin is a preset's ledger extra: the hash of its export right
// after the import. While Hearth's export still hashes the same, the
// preset is unchanged and the file it came from is written back.
type presetOrigin struct {
	ExportSHA string `json:"exportSha256"`
}

// presets imports OpenAI Settings/*.json through presets.Import and
// keeps each file as it came.
func (r *importRun) presets() error {
	files, _, err := r.files(KindPreset, dirPresets, []string{".json"}, "not a preset file (.json)")
	if err != nil {
		return err
	}
	return r.each("presets", files, func(e entry) error {
		raw, err := read(e, maxPresetBytes)
		if err != nil {
			r.fail(KindPreset, e.rel, err)
			return nil
		}
		sha := hashOf(raw)
		if seen, _, err := r.known(KindPreset, e.rel, sha); err != nil || seen {
			return err
		}
		res, err := r.s.d.Presets.Import(r.ctx, e.name, raw)
		if err != nil {
			r.fail(KindPreset, e.rel, err)
			return nil
		}
		out, err := r.s.d.Presets.Export(r.ctx, res.Preset.ID)
		if err != nil {
			return err
		}
		extra, _ := json.Marshal(presetOrigin{ExportSHA: hashOf(out.JSON)})
		r.sum.Imported.Presets++
		return r.rememberAndKeep(record{Library: r.f.root, Kind: KindPreset, Key: e.rel, SHA: sha, HearthID: res.Preset.ID, Extra: string(extra)},
			keptFile{Path: e.rel, Kind: keptPreset, Body: raw})
	})
}

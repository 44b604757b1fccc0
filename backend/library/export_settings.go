package library

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"hearth/backend/personas"
)

// personas writes each persona's picture to User Avatars/ and settings.json
// with Hearth's personas and World Info in it: the settings.json of the
// last import where there is one (every other key as it was), else a
// file of only those keys.
func (x *exportRun) personas() error {
	list, err := x.s.d.Personas.List(x.ctx)
	if err != nil {
		return err
	}
	origins, err := x.s.origins(x.ctx, KindPersona)
	if err != nil {
		return err
	}
	base, err := x.s.keptBody(x.ctx, fileSettings)
	if err != nil {
		return err
	}
	doc, err := parseObject(base)
	if base == nil || err != nil {
		doc, _ = parseObject([]byte("{}"))
	}
	power := doc.child("power_user")
	oldNames, oldDescs := power.child("personas"), power.child("persona_descriptions")
	files := map[string]string{} // persona id → avatar file
	names := &object{vals: map[string]json.RawMessage{}}
	descs := &object{vals: map[string]json.RawMessage{}}
	byFile := map[string]personas.Persona{}
	for i, p := range list {
		x.rep.report(Progress{Phase: "personas", Done: i, Total: len(list), Current: p.Name})
		image, ext, err := x.personaImage(p)
		if err != nil {
			x.fail(KindPersona, dirAvatars+"/"+p.Name, err)
			continue
		}
		name := personaFileName(p, ext)
		o, imported := origins[p.ID]
		if imported {
			name = path.Base(o.key)
		}
		rel := x.claim(dirAvatars, name)
		if err := writeFile(x.root, rel, image); err != nil {
			x.fail(KindPersona, rel, err)
			continue
		}
		file := path.Base(rel)
		files[p.ID], byFile[file] = file, p
		desc, err := parseObject([]byte(o.extra))
		if !imported || err != nil {
			desc = oldDescs.child(file)
		}
		desc.setValue("description", p.Description)
		desc.setValue("position", p.Position)
		desc.setValue("depth", p.Depth)
		desc.setValue("role", p.Role)
		if _, had := desc.vals["lorebook"]; had || p.Lorebook != "" {
			desc.setValue("lorebook", p.Lorebook)
		}
		descs.setObject(file, desc)
		x.sum.Exported.Personas++
	}
	x.rep.report(Progress{Phase: "personas", Done: len(list), Total: len(list)})
	// SillyTavern's order of personas where it had them, Hearth's new ones after.
	var order []string
	for _, file := range oldNames.keys {
		if _, ok := byFile[file]; ok {
			order = append(order, file)
		}
	}
	order = append(order, newFiles(byFile, oldNames)...)
	ordered := &object{vals: map[string]json.RawMessage{}}
	for _, file := range order {
		names.setValue(file, byFile[file].Name)
		ordered.set(file, descs.vals[file])
	}
	power.setObject("personas", names)
	power.setObject("persona_descriptions", ordered)
	def, err := x.s.d.Personas.Default(x.ctx)
	if err != nil {
		return err
	}
	if def != nil && files[def.ID] != "" {
		power.setValue("default_persona", files[def.ID])
	} else {
		power.setValue("default_persona", nil)
	}
	doc.setObject("power_user", power)
	if active, err := x.s.d.Personas.Active(x.ctx); err != nil {
		return err
	} else if active != nil && files[active.ID] != "" {
		doc.setValue("user_avatar", files[active.ID])
	}
	if err := x.worldInfo(doc); err != nil {
		return err
	}
	out, err := indentJS(doc.marshal())
	if err == nil {
		err = writeFile(x.root, fileSettings, out)
	}
	if err != nil {
		x.fail(KindSettings, fileSettings, err)
	}
	return nil
}

// newFiles lists the files of byFile that old does not name, sorted.
func newFiles(byFile map[string]personas.Persona, old *object) []string {
	var out []string
	for f := range byFile {
		if _, ok := old.vals[f]; !ok {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// personaImage reads the persona's picture and its extension; a persona
// without one gets the placeholder.
func (x *exportRun) personaImage(p personas.Persona) ([]byte, string, error) {
	if p.AvatarURL == nil {
		return placeholderAvatar, ".png", nil
	}
	file, err := x.s.d.Personas.ImagePath(x.ctx, p.ID)
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("read the picture of persona %s: %w", p.Name, err)
	}
	ext := strings.ToLower(filepath.Ext(file))
	if ext == "" {
		ext = ".png"
	}
	return data, ext, nil
}

var unsafeFileChars = regexp.MustCompile(`[^\p{L}\p{N} _.,'()&!-]+`)

// personaFileName names the picture of a persona made in Hearth as
// SillyTavern names new ones: <time>-<name>.<ext>.
func personaFileName(p personas.Persona, ext string) string {
	name := strings.Trim(unsafeFileChars.ReplaceAllString(p.Name, "_"), ". ")
	if name == "" {
		name = "persona"
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return fmt.Sprintf("%d-%s%s", p.CreatedAt, name, ext)
}

// worldInfo writes Hearth's World Info settings and global selection into
// doc's world_info_settings, keeping the keys Hearth has no setting for.
func (x *exportRun) worldInfo(doc *object) error {
	cfg, err := x.s.d.WorldInfo.Config(x.ctx)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		return err
	}
	wis := doc.child("world_info_settings")
	wi := wis.child("world_info")
	wi.setValue("globalSelect", cfg.GlobalSelect)
	wis.set("world_info", wi.marshal())
	for _, k := range worldInfoKeys() {
		wis.set(k, values[k])
	}
	doc.setObject("world_info_settings", wis)
	return nil
}

// presets writes OpenAI Settings/<name>.json: a preset unchanged since its
// import as the file it came from, byte for byte; any other as Hearth's
// SillyTavern export (presets.ToST).
func (x *exportRun) presets() error {
	list, err := x.s.d.Presets.List(x.ctx)
	if err != nil {
		return err
	}
	origins, err := x.s.origins(x.ctx, KindPreset)
	if err != nil {
		return err
	}
	for i, p := range list {
		if p.Builtin {
			continue
		}
		x.rep.report(Progress{Phase: "presets", Done: i, Total: len(list), Current: p.Name})
		out, err := x.s.d.Presets.Export(x.ctx, p.ID)
		if err != nil {
			x.fail(KindPreset, dirPresets+"/"+p.Name, err)
			continue
		}
		name, data := out.FileName, []byte(out.JSON)
		if o, ok := origins[p.ID]; ok {
			var po presetOrigin
			if json.Unmarshal([]byte(o.extra), &po) == nil && po.ExportSHA == hashOf(out.JSON) {
				if body, err := x.s.keptBody(x.ctx, o.key); err == nil && body != nil {
					name, data = path.Base(o.key), body
				}
			}
		}
		rel := x.claim(dirPresets, name)
		if err := writeFile(x.root, rel, data); err != nil {
			x.fail(KindPreset, rel, err)
			continue
		}
		x.sum.Exported.Presets++
	}
	x.rep.report(Progress{Phase: "presets", Done: len(list), Total: len(list)})
	return nil
}

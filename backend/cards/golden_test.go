package cards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wI2L/jsondiff"
)

// goldenBlob describes bytes by size and hash, so goldens stay readable.
type goldenBlob struct {
	Type   string `json:"type,omitempty"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

func blob(kind string, b []byte) *goldenBlob {
	if b == nil {
		return nil
	}
	sum := sha256.Sum256(b)
	return &goldenBlob{Type: kind, Bytes: len(b), SHA256: hex.EncodeToString(sum[:])}
}

// goldenAsset is an Asset with its content described.
type goldenAsset struct {
	Asset
	Content *goldenBlob `json:"content"`
}

// goldenImport is what a golden import file holds.
type goldenImport struct {
	Format      Format          `json:"format"`
	Version     Version         `json:"version"`
	SpecVersion string          `json:"specVersion"`
	Warnings    []string        `json:"warnings"`
	Image       *goldenBlob     `json:"image"`
	Assets      []goldenAsset   `json:"assets"`
	Data        json.RawMessage `json:"data"`
}

// checkGolden compares got with testdata/golden/<name>, as JSON (an RFC
// 6902 diff when they differ) and, for exports, byte for byte.
func checkGolden(t *testing.T, name string, got []byte, exact bool) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	patch, err := jsondiff.CompareJSON(want, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(patch) > 0 {
		t.Errorf("%s differs from the golden file (want → got, RFC 6902):\n%s", name, patch)
	} else if exact && !bytes.Equal(want, got) {
		t.Errorf("%s has the golden file's content but not its bytes:\nwant %q\n got %q", name, want, got)
	}
}

// TestImportGolden imports every fixture and compares the result with its
// golden file.
func TestImportGolden(t *testing.T) {
	t.Parallel()
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			imp, err := Decode(name, readFile(t, "fixtures", name))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := imp.Data.MarshalJSON()
			var indented bytes.Buffer
			if err := json.Indent(&indented, data, "  ", "  "); err != nil {
				t.Fatal(err)
			}
			g := goldenImport{
				Format: imp.Format, Version: imp.Version, SpecVersion: imp.SpecVersion,
				Warnings: imp.Warnings, Image: blob(imp.ImageType, imp.Image), Assets: []goldenAsset{},
				Data: indented.Bytes(),
			}
			for _, a := range imp.Assets {
				g.Assets = append(g.Assets, goldenAsset{Asset: a, Content: blob("", a.Data)})
			}
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(g); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "import_"+strings.ReplaceAll(name, ".", "_")+".json", out.Bytes(), false)
		})
	}
}

// TestExportGolden pins the exact JSON files EncodeJSON writes, V2 and V3,
// for the V2 and V3 fixtures: SillyTavern's layout, mirrors included.
func TestExportGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixture string
		version Version
	}{
		{"v2.json", V2},
		{"v2.json", V3},
		{"v3.json", V3},
		{"v1.json", V3},
	} {
		name := "export_" + strings.TrimSuffix(tc.fixture, ".json") + "_as_v" + string(rune('0'+tc.version)) + ".json"
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			imp, err := Decode(tc.fixture, readFile(t, "fixtures", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			out, err := EncodeJSON(imp.Data, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, name, out, true)
		})
	}
}

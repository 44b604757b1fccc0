package personas

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func pngBytes(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, c)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func avatarJSON(data []byte, mime string) json.RawMessage {
	obj := map[string]string{"base64": base64.StdEncoding.EncodeToString(data)}
	if mime != "" {
		obj["mime"] = mime
	}
	raw, _ := json.Marshal(obj)
	return raw
}

func TestAvatarsAreStoredServedReplacedAndRemoved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	red := pngBytes(t, color.RGBA{255, 0, 0, 255})
	p := e.save(Input{Name: ptr("Wren"), Avatar: avatarJSON(red, "image/png")})
	if p.AvatarURL == nil || !strings.HasPrefix(*p.AvatarURL, "/api/persona-avatar/"+p.ID+"?v=") {
		t.Fatalf("avatarUrl %v", p.AvatarURL)
	}
	path, err := e.svc.ImagePath(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, red) {
		t.Fatal("the stored file is not the upload")
	}
	first := *p.AvatarURL

	// A data URL, a JPEG, a GIF and a WebP are avatars too; the URL changes
	// with the image.
	var jpg, gf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gf, img, nil); err != nil {
		t.Fatal(err)
	}
	webp := append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 24)...)
	for _, c := range []struct {
		data []byte
		mime string
	}{{jpg.Bytes(), "image/jpeg"}, {gf.Bytes(), "image/gif"}, {webp, "image/webp"}} {
		dataURL, _ := json.Marshal("data:" + c.mime + ";base64," + base64.StdEncoding.EncodeToString(c.data))
		p = e.save(Input{ID: &p.ID, Avatar: dataURL})
		if path, err = e.svc.ImagePath(ctx, p.ID); err != nil || !strings.HasSuffix(path, map[string]string{"image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}[c.mime]) {
			t.Fatalf("%s stored at %q (%v)", c.mime, path, err)
		}
	}
	if *p.AvatarURL == first {
		t.Error("the avatar URL did not change with the image")
	}
	// Absent keeps it; null removes it.
	p = e.save(Input{ID: &p.ID, Name: ptr("Wren II")})
	if p.AvatarURL == nil {
		t.Fatal("a save without avatar removed it")
	}
	var in Input
	if err := json.Unmarshal([]byte(`{"avatar": null}`), &in); err != nil {
		t.Fatal(err)
	}
	in.ID = &p.ID
	p = e.save(in)
	if p.AvatarURL != nil {
		t.Fatalf("avatar null kept %v", *p.AvatarURL)
	}
	if _, err := e.svc.ImagePath(ctx, p.ID); apperr.CodeOf(err) != CodeNotFound {
		t.Errorf("image of a persona without one: %v", err)
	}
	if _, err := e.svc.ImagePath(ctx, "nope"); apperr.CodeOf(err) != CodeNotFound {
		t.Errorf("image of a missing persona: %v", err)
	}
}

func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	red := pngBytes(t, color.RGBA{255, 0, 0, 255})
	p := e.save(Input{Name: ptr("Wren"), Description: ptr("kept"), Avatar: avatarJSON(red, "")})
	before, _ := e.svc.List(ctx)
	e.events()
	big := make([]byte, MaxAvatarBytes+1)
	copy(big, red)
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	bad := []struct {
		name string
		in   Input
	}{
		{"no name", Input{Description: ptr("x")}},
		{"blank name", Input{Name: ptr("   ")}},
		{"control in name", Input{Name: ptr("a\tb")}},
		{"long name", Input{Name: ptr(strings.Repeat("é", 201))}},
		{"long description", Input{Name: ptr("x"), Description: ptr(strings.Repeat("d", 64<<10+1))}},
		{"NUL in description", Input{Name: ptr("x"), Description: ptr("a\x00b")}},
		{"position 5", Input{Name: ptr("x"), Position: ptr(5)}},
		{"position -1", Input{Name: ptr("x"), Position: ptr(-1)}},
		{"negative depth", Input{Name: ptr("x"), Depth: ptr(-1)}},
		{"deep depth", Input{Name: ptr("x"), Depth: ptr(10001)}},
		{"role 3", Input{Name: ptr("x"), Role: ptr(3)}},
		{"avatar number", Input{Name: ptr("x"), Avatar: raw(`5`)}},
		{"avatar without base64", Input{Name: ptr("x"), Avatar: raw(`{"mime":"image/png"}`)}},
		{"avatar not base64", Input{Name: ptr("x"), Avatar: raw(`{"base64":"***"}`)}},
		{"avatar empty", Input{Name: ptr("x"), Avatar: raw(`{"base64":""}`)}},
		{"avatar text", Input{Name: ptr("x"), Avatar: avatarJSON([]byte("just some text, no image here"), "")}},
		{"avatar svg", Input{Name: ptr("x"), Avatar: avatarJSON([]byte("<svg xmlns='http://www.w3.org/2000/svg'/>"), "image/svg+xml")}},
		{"avatar lies about its type", Input{Name: ptr("x"), Avatar: avatarJSON(red, "image/jpeg")}},
		{"avatar too big", Input{Name: ptr("x"), Avatar: avatarJSON(big, "")}},
		{"avatar plain URL", Input{Name: ptr("x"), Avatar: raw(`"https://example.com/a.png"`)}},
		{"avatar data URL not base64", Input{Name: ptr("x"), Avatar: raw(`"data:image/png,abc"`)}},
		{"update to a blank name", Input{ID: &p.ID, Name: ptr("")}},
		{"update with a bad avatar", Input{ID: &p.ID, Description: ptr("changed"), Avatar: raw(`{"base64":"AAAA"}`)}},
	}
	for _, c := range bad {
		if _, err := e.svc.Save(ctx, c.in); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
	if _, err := e.svc.Save(ctx, Input{ID: ptr("missing"), Name: ptr("x")}); apperr.CodeOf(err) != CodeNotFound {
		t.Errorf("update of a missing id: %v", err)
	}
	for name, call := range map[string]func() error{
		"get":        func() error { _, err := e.svc.Get(ctx, "missing"); return err },
		"delete":     func() error { return e.svc.Delete(ctx, "missing") },
		"setActive":  func() error { _, err := e.svc.SetActive(ctx, ptr("missing")); return err },
		"setDefault": func() error { _, err := e.svc.SetDefault(ctx, ptr("missing")); return err },
	} {
		if err := call(); apperr.CodeOf(err) != CodeNotFound {
			t.Errorf("%s of a missing id: %v", name, err)
		}
	}
	after, _ := e.svc.List(ctx)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("refused calls changed the personas:\n%+v\n%+v", before, after)
	}
	if got := e.events(); len(got) != 0 {
		t.Errorf("refused calls published %v", types(got))
	}
}

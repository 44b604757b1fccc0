package cards

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"hearth/backend/jsonx"
)

// decodeAvatar decodes a DefaultAvatar and checks its size.
func decodeAvatar(t *testing.T, name string) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(DefaultAvatar(name)))
	if err != nil {
		t.Fatalf("%q: %v", name, err)
	}
	if b := img.Bounds(); b.Dx() != DefaultAvatarWidth || b.Dy() != DefaultAvatarHeight {
		t.Fatalf("%q: %v, want %d×%d", name, b, DefaultAvatarWidth, DefaultAvatarHeight)
	}
	return img
}

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a >> 8)}
}

// inkPixels counts the pixels of img that are not bg, and of those the
// ones in the picture's middle half (where a centred letter sits).
func inkPixels(img image.Image, bg color.RGBA) (all, middle int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if rgba(img.At(x, y)) == bg {
				continue
			}
			all++
			if x >= b.Dx()/4 && x < b.Dx()*3/4 && y >= b.Dy()/4 && y < b.Dy()*3/4 {
				middle++
			}
		}
	}
	return all, middle
}

// TestAvatarColourMirrorsTheList pins the colour rule of Avatar.svelte:
// the hue from the name's code points, hsl(h 42% 38%) behind, and the
// values a browser computes for those hsl() colours.
func TestAvatarColourMirrorsTheList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		hue  int
	}{
		{"", 0},
		{"A", 65},
		{"Ab", (65*31 + 98) % 360},
		{"東京", (0x6771*31 + 0x4eac) % 360},
		{"😀", 0x1f600 % 360},
	} {
		if got := avatarHue(tc.name); got != tc.hue {
			t.Errorf("avatarHue(%q) = %d, want %d", tc.name, got, tc.hue)
		}
	}
	// CSS Color 4 for these hsl() colours (what Chromium computes; the e2e
	// first-hour-chars compares a list avatar with an exported card).
	for _, tc := range []struct {
		hue  int
		s, l float64
		want color.RGBA
	}{
		{0, 0.42, 0.38, color.RGBA{138, 56, 56, 255}},
		{120, 0.42, 0.38, color.RGBA{56, 138, 56, 255}},
		{240, 0.80, 0.92, color.RGBA{218, 218, 251, 255}},
		{65, 0.42, 0.38, color.RGBA{131, 138, 56, 255}},
	} {
		if got := hslColor(tc.hue, tc.s, tc.l); got != tc.want {
			t.Errorf("hsl(%d %v %v) = %v, want %v", tc.hue, tc.s, tc.l, got, tc.want)
		}
	}
}

// TestAvatarInitial mirrors the list's initial: the first letter or digit,
// upper-cased as JavaScript does, else "?".
func TestAvatarInitial(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"seraphina": "S", "  bob": "B", "42 things": "4", "😀 émile": "É", "ßara": "SS",
		"東京": "東", "😀🎉": "?", "": "?", "—": "?",
	} {
		if got := avatarInitial(name); got != want {
			t.Errorf("avatarInitial(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestDefaultAvatar draws the card picture of a character without one:
// 400×600, the list's colour in the corners, the letter's pixels in the
// middle for a Latin initial, a silhouette where the font has no glyph, and
// no panic for any name.
func TestDefaultAvatar(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Seraphina", "Émile", "Жанна", "東京", "😀🎉", "", "\xff\xfe", "ßara", "한국어", "مرحبا"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			img := decodeAvatar(t, name)
			hue := avatarHue(name)
			bg, fg := hslColor(hue, 0.42, 0.38), hslColor(hue, 0.80, 0.92)
			b := img.Bounds()
			for _, p := range []image.Point{{0, 0}, {b.Dx() - 1, 0}, {0, b.Dy() - 1}, {b.Dx() - 1, b.Dy() - 1}} {
				if got := rgba(img.At(p.X, p.Y)); got != bg {
					t.Fatalf("corner %v is %v, want the list's colour %v", p, got, bg)
				}
			}
			all, middle := inkPixels(img, bg)
			if all < 2000 || middle < all*9/10 {
				t.Fatalf("%d pixels drawn, %d of them in the middle: no letter or silhouette", all, middle)
			}
			found := false
			for y := b.Min.Y; y < b.Max.Y && !found; y++ {
				for x := b.Min.X; x < b.Max.X && !found; x++ {
					found = rgba(img.At(x, y)) == fg
				}
			}
			if !found {
				t.Fatalf("no pixel has the letter's colour %v", fg)
			}
		})
	}
}

// TestDefaultAvatarDrawsTheLetter tells a letter from the silhouette: two
// initials the font has give different pictures, and an initial it lacks
// gives the same picture as any other it lacks (of the same hue).
func TestDefaultAvatarDrawsTheLetter(t *testing.T) {
	t.Parallel()
	ink := func(name string) []bool {
		img := decodeAvatar(t, name)
		bg := hslColor(avatarHue(name), 0.42, 0.38)
		b := img.Bounds()
		out := make([]bool, 0, b.Dx()*b.Dy())
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				out = append(out, rgba(img.At(x, y)) != bg)
			}
		}
		return out
	}
	same := func(a, b []bool) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if same(ink("Ada"), ink("Oz")) {
		t.Error("A and O drew the same shape: the letter is not drawn")
	}
	if same(ink("Ada"), ink("東京")) {
		t.Error("A and 東 drew the same shape: the CJK initial is not a silhouette")
	}
	if !same(ink("東京"), ink("한국")) {
		t.Error("two initials the font lacks drew different shapes: a glyph box crept in")
	}
	if !drawLetter(image.NewRGBA(image.Rect(0, 0, DefaultAvatarWidth, DefaultAvatarHeight)), "Ж", color.White) {
		t.Error("the font has Cyrillic, yet Ж was not drawn")
	}
}

// TestEncodePNGDefaultAvatar writes a card without a picture into its
// DefaultAvatar, which is read back as the card's image.
func TestEncodePNGDefaultAvatar(t *testing.T) {
	t.Parallel()
	out, err := EncodePNG(jsonx.Object{"name": jsonx.Raw("Lumen")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodePNG(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Image, DefaultAvatar("Lumen")) {
		t.Error("the card's image is not the default avatar drawn for its name")
	}
}

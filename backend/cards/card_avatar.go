package cards

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"sync"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"hearth/backend/jsonx"
)

// The size of the picture a card without an avatar is written into:
// SillyTavern's default avatar is 400×600, the shape card sites show.
const (
	DefaultAvatarWidth  = 400
	DefaultAvatarHeight = 600
)

// letterScale is the letter's size against the picture's width, the ratio
// the window's Avatar component uses (font-size 0.42 of its side).
const letterScale = 0.42

// DefaultAvatar draws the picture of a card that has none: the name's
// initial on the name's colour, as the window's character list shows that
// character (frontend/src/ui/components/common/Avatar.svelte, in the dark
// theme, the default), so an exported card looks like the character it came
// from. An initial the embedded font cannot draw (CJK, most scripts beyond
// Latin, Greek and Cyrillic) becomes a plain head-and-shoulders silhouette
// in the letter's colour instead of a missing-glyph box.
func DefaultAvatar(name string) []byte {
	hue := avatarHue(name)
	bg := hslColor(hue, 0.42, 0.38)
	fg := hslColor(hue, 0.80, 0.92)
	img := image.NewRGBA(image.Rect(0, 0, DefaultAvatarWidth, DefaultAvatarHeight))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	if !drawLetter(img, avatarInitial(name), fg) {
		drawSilhouette(img, fg)
	}
	var out bytes.Buffer
	// Flat colour compresses well at any level; the fastest keeps a
	// library export of many cards without pictures quick.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, img); err != nil {
		panic(err) // encoding an in-memory image to a buffer cannot fail
	}
	return out.Bytes()
}

// cardName is data's name field ("" when it is missing or not a string).
func cardName(data jsonx.Object) string {
	var name string
	_ = json.Unmarshal(data["name"], &name)
	return name
}

// upper is the full Unicode upper-casing JavaScript's toUpperCase does
// ("ß" becomes "SS"), which unicode.ToUpper does not.
var upper = cases.Upper(language.Und)

// avatarInitial is what the list shows for name: its first letter or digit,
// upper-cased, or "?" when it has none (an emoji-only name).
func avatarInitial(name string) string {
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return upper.String(string(r))
		}
	}
	return "?"
}

// avatarHue is the list's hue for name: h = (h*31 + code point) mod 360
// over the name's code points.
func avatarHue(name string) int {
	h := 0
	for _, r := range name {
		h = (h*31 + int(r)) % 360
	}
	return h
}

// hslColor converts a CSS hsl() colour (hue in degrees, saturation and
// lightness from 0 to 1) to sRGB as browsers do (CSS Color 4), each channel
// rounded to the nearest of 256 steps.
func hslColor(hue int, s, l float64) color.RGBA {
	a := s * min(l, 1-l)
	f := func(n float64) uint8 {
		k := math.Mod(n+float64(hue)/30, 12)
		v := l - a*max(-1, min(k-3, 9-k, 1))
		return uint8(math.Round(v * 255))
	}
	return color.RGBA{R: f(0), G: f(8), B: f(4), A: 255}
}

// letterFont is Go Bold, parsed once (the list draws its letter at weight 650).
var letterFont = sync.OnceValue(func() *sfnt.Font {
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		panic(err) // the embedded font is always readable
	}
	return f
})

// drawLetter draws text centred on img in c and reports whether it did:
// false, drawing nothing, when the font lacks one of its characters.
func drawLetter(img *image.RGBA, text string, c color.Color) bool {
	f := letterFont()
	var buf sfnt.Buffer
	for _, r := range text {
		if i, err := f.GlyphIndex(&buf, r); err != nil || i == 0 {
			return false
		}
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: letterScale * DefaultAvatarWidth, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return false
	}
	defer face.Close()
	d := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face}
	ink, _ := d.BoundString(text)
	if ink.Max.X <= ink.Min.X || ink.Max.Y <= ink.Min.Y {
		return false
	}
	// The ink's box, not the line's, is centred: a capital sits in the
	// middle, as it looks in the round list avatar.
	w, h := ink.Max.X-ink.Min.X, ink.Max.Y-ink.Min.Y
	d.Dot = fixed.Point26_6{
		X: fixed.I(DefaultAvatarWidth)/2 - w/2 - ink.Min.X,
		Y: fixed.I(DefaultAvatarHeight)/2 - h/2 - ink.Min.Y,
	}
	d.DrawString(text)
	return true
}

// drawSilhouette draws a neutral head and shoulders centred on img in c.
func drawSilhouette(img *image.RGBA, c color.Color) {
	b := img.Bounds()
	w, h := float32(b.Dx()), float32(b.Dy())
	cx, cy := w/2, h/2
	r := vector.NewRasterizer(b.Dx(), b.Dy())
	// The head: a circle a little above the middle.
	circle(r, cx, cy-0.12*w, 0.17*w)
	// The shoulders: the top half of an ellipse below it, cut flat.
	rx, ry, by := 0.3*w, 0.26*w, cy+0.34*w
	r.MoveTo(cx-rx, by)
	r.CubeTo(cx-rx, by-ry*kappa, cx-rx*kappa, by-ry, cx, by-ry)
	r.CubeTo(cx+rx*kappa, by-ry, cx+rx, by-ry*kappa, cx+rx, by)
	r.ClosePath()
	r.Draw(img, b, image.NewUniform(c), image.Point{})
}

// kappa places the control points of a cubic Bézier quarter circle.
const kappa = 0.5523

// circle adds a circle of radius rad around (cx, cy) to r.
func circle(r *vector.Rasterizer, cx, cy, rad float32) {
	k := rad * kappa
	r.MoveTo(cx+rad, cy)
	r.CubeTo(cx+rad, cy+k, cx+k, cy+rad, cx, cy+rad)
	r.CubeTo(cx-k, cy+rad, cx-rad, cy+k, cx-rad, cy)
	r.CubeTo(cx-rad, cy-k, cx-k, cy-rad, cx, cy-rad)
	r.CubeTo(cx+k, cy-rad, cx+rad, cy-k, cx+rad, cy)
	r.ClosePath()
}

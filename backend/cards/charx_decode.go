package cards

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// centralDirSignature opens every central-directory record of a zip.
var centralDirSignature = []byte("PK\x01\x02")

// DecodeCHARX reads a CHARX archive: `card.json` at its root (V2 or V3)
// and the files its `assets` list points to with `embeded://` URIs. The
// `icon` asset named `main` (else the first icon) becomes the avatar; the
// other embedded files come back as Assets. Only card.json and the files
// the card lists are unpacked, each bounded, and all of them together.
func DecodeCHARX(raw []byte) (*Imported, error) {
	return decodeCHARX(raw, defaultLimits)
}

func decodeCHARX(raw []byte, lim limits) (*Imported, error) {
	if len(raw) > lim.fileBytes {
		return nil, tooLarge("the CHARX file", len(raw), lim.fileBytes)
	}
	// archive/zip reads every central-directory record it finds before
	// anything can be checked, and each begins with this signature: more
	// of them than the cap means the directory alone would cost too much.
	if n := bytes.Count(raw, centralDirSignature); n > lim.zipEntries {
		return nil, tooManyEntries(lim.zipEntries)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, invalid("zip", "the CHARX file is not a valid zip archive: %v", err)
	}
	if len(zr.File) > lim.zipEntries {
		return nil, tooManyEntries(lim.zipEntries)
	}
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		if name := cleanPath(f.Name); name != "" && files[name] == nil {
			files[name] = f
		}
	}
	u := unzipper{lim: lim, read: map[string][]byte{}}
	cardFile := files["card.json"]
	if cardFile == nil {
		return nil, invalid("no_card_json", "the CHARX archive has no card.json at its root")
	}
	if cardFile.UncompressedSize64 > uint64(lim.fileBytes) {
		return nil, tooLarge("card.json", int(min(cardFile.UncompressedSize64, 1<<62)), lim.fileBytes)
	}
	js, err := u.unpack("card.json", cardFile, int64(lim.fileBytes))
	if err != nil {
		return nil, err
	}
	imp, err := parseCard(js, lim)
	if err != nil {
		return nil, prefixed(err, "card.json: ")
	}
	if imp.Version == V1 {
		return nil, invalid("spec", "card.json has no spec: a CHARX card must be %s or %s", SpecV3, SpecV2)
	}
	imp.Format = FormatCHARX
	for _, a := range assetEntries(imp.Data) {
		p, ok := embeddedPath(a.URI)
		if !ok {
			continue
		}
		f := files[p]
		if f == nil {
			imp.Warnings = append(imp.Warnings, fmt.Sprintf("the asset %q (%s) is not in the archive; it was skipped", a.Name, a.URI))
			continue
		}
		if a.Data, err = u.unpack(p, f, lim.zipEntry); err != nil {
			return nil, err
		}
		a.Path = p
		imp.Assets = append(imp.Assets, a)
	}
	if i := pickIcon(imp.Assets); i >= 0 {
		imp.Image = imp.Assets[i].Data
		imp.ImageType = http.DetectContentType(imp.Image)
		imp.Assets = append(imp.Assets[:i:i], imp.Assets[i+1:]...)
	}
	return imp, nil
}

// unzipper unpacks archive entries once each, within the per-entry and
// total bounds.
type unzipper struct {
	lim   limits
	total int64
	read  map[string][]byte
}

// unpack returns the content of f (named name), at most max bytes.
func (u *unzipper) unpack(name string, f *zip.File, max int64) ([]byte, error) {
	if b, ok := u.read[name]; ok {
		return b, nil
	}
	limit := min(max, u.lim.zipTotal-u.total)
	if f.UncompressedSize64 > uint64(limit) {
		return nil, u.bomb(name, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, invalid("zip", "the CHARX entry %q cannot be read: %v", name, err)
	}
	defer rc.Close()
	buf := bytes.NewBuffer(make([]byte, 0, f.UncompressedSize64+1))
	n, err := buf.ReadFrom(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, invalid("zip", "the CHARX entry %q is corrupt: %v", name, err)
	}
	if n > limit {
		return nil, u.bomb(name, limit)
	}
	u.total += n
	u.read[name] = buf.Bytes()
	return buf.Bytes(), nil
}

// bomb is the error for an entry that unpacks past limit bytes.
func (u *unzipper) bomb(name string, limit int64) error {
	e := invalid("zip_bomb", "the CHARX entry %q unpacks to more than %d bytes (at most %d per file and %d in all are allowed)",
		name, limit, u.lim.zipEntry, u.lim.zipTotal)
	e.Details["entry"] = name
	return e
}

// tooManyEntries is the error for an archive with more than max files.
func tooManyEntries(max int) error {
	e := invalid("too_many_entries", "the CHARX archive has more than %d files", max)
	e.Details["maxEntries"] = max
	return e
}
